// Package jsonscan walks the members of a JSON object and the elements of a
// JSON array in place: the values it hands out are slices of the input,
// never copies, and nothing is decoded. mcpvet uses it on what a server
// sends (a listing page of up to 16 MiB, one message line) so that a huge
// value is held once, not once per decoder buffer (issue 22 item 9).
//
// The walkers expect valid JSON (run json.Valid first, which allocates
// nothing); on invalid input they return an error or stop, never panic.
package jsonscan

import (
	"encoding/json"
	"errors"
)

// ErrSyntax reports input the walker could not follow.
var ErrSyntax = errors.New("jsonscan: invalid JSON")

// MaxDepth is the nesting depth encoding/json (and so the MCP SDK)
// refuses past.
const MaxDepth = 10000

func space(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index after the string literal starting at b[i]
// (a '"').
func skipString(b []byte, i int) (int, error) {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1, nil
		}
	}
	return 0, ErrSyntax
}

// skip returns the index after the value starting at b[i].
func skip(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, ErrSyntax
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				j, err := skipString(b, i)
				if err != nil {
					return 0, err
				}
				i = j - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1, nil
				}
			}
		}
		return 0, ErrSyntax
	}
	j := i
	for j < len(b) {
		c := b[j]
		if c == ',' || c == '}' || c == ']' || c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			break
		}
		j++
	}
	if j == i {
		return 0, ErrSyntax
	}
	return j, nil
}

// Members calls fn with the key (decoded) and the value (a slice of b) of
// each member of the JSON object b, in order, until fn returns false.
func Members(b []byte, fn func(key string, val []byte) bool) error {
	return Spans(b, func(key string, from, to int) bool { return fn(key, b[from:to:to]) })
}

// Spans is Members with the value given as its bounds in b.
func Spans(b []byte, fn func(key string, from, to int) bool) error {
	i := space(b, 0)
	if i >= len(b) || b[i] != '{' {
		return ErrSyntax
	}
	i = space(b, i+1)
	if i < len(b) && b[i] == '}' {
		return nil
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return ErrSyntax
		}
		j, err := skipString(b, i)
		if err != nil {
			return err
		}
		var key string
		if json.Unmarshal(b[i:j], &key) != nil {
			return ErrSyntax
		}
		i = space(b, j)
		if i >= len(b) || b[i] != ':' {
			return ErrSyntax
		}
		i = space(b, i+1)
		j, err = skip(b, i)
		if err != nil {
			return err
		}
		if !fn(key, i, j) {
			return nil
		}
		i = space(b, j)
		if i < len(b) && b[i] == '}' {
			return nil
		}
		if i >= len(b) || b[i] != ',' {
			return ErrSyntax
		}
		i = space(b, i+1)
	}
}

// Elements calls fn with each element (a slice of b) of the JSON array b,
// in order, until fn returns false.
func Elements(b []byte, fn func(val []byte) bool) error {
	i := space(b, 0)
	if i >= len(b) || b[i] != '[' {
		return ErrSyntax
	}
	i = space(b, i+1)
	if i < len(b) && b[i] == ']' {
		return nil
	}
	for {
		j, err := skip(b, i)
		if err != nil {
			return err
		}
		if !fn(b[i:j:j]) {
			return nil
		}
		i = space(b, j)
		if i < len(b) && b[i] == ']' {
			return nil
		}
		if i >= len(b) || b[i] != ',' {
			return ErrSyntax
		}
		i = space(b, i+1)
	}
}

// Depth returns the deepest nesting of objects and arrays in b (0 for a
// scalar), stopping once it passes limit.
func Depth(b []byte, limit int) int {
	depth, deepest := 0, 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '"':
			j, err := skipString(b, i)
			if err != nil {
				return deepest
			}
			i = j - 1
		case '{', '[':
			depth++
			if depth > deepest {
				deepest = depth
				if deepest > limit {
					return deepest
				}
			}
		case '}', ']':
			depth--
		}
	}
	return deepest
}

// StringHead decodes the head of the JSON string literal lit: at most n
// bytes of the literal (escapes are never split), as text. ok is false
// when lit is not a string literal.
func StringHead(lit []byte, n int) (head string, ok bool) {
	if len(lit) < 2 || lit[0] != '"' {
		return "", false
	}
	end := len(lit) - 1 // the closing quote
	i := 1
	for i < end && i < n {
		if lit[i] == '\\' {
			w := 2
			if i+1 < end && lit[i+1] == 'u' {
				w = 6
			}
			if i+w > n {
				break
			}
			i += w
			continue
		}
		i++
	}
	for i < end && i > 1 && lit[i]&0xC0 == 0x80 {
		i-- // not inside a UTF-8 sequence
	}
	buf := make([]byte, 0, i+1)
	buf = append(buf, lit[:i]...)
	buf = append(buf, '"')
	if json.Unmarshal(buf, &head) != nil {
		return "", false
	}
	return head, true
}
