package source

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// stripJSONC turns JSON with comments and trailing commas (VS Code's
// "JSONC", which mcp.json files use) into JSON. Comments and trailing commas
// become spaces, newlines are kept, so offsets and line numbers of errors
// still point into the original text.
func stripJSONC(src []byte) []byte {
	if !bytes.ContainsAny(src, "/,") {
		return src
	}
	out := bytes.Clone(src)
	outsideStrings(out, func(i int) int {
		if out[i] != '/' || i+1 >= len(out) {
			return i
		}
		switch out[i+1] {
		case '/':
			for ; i < len(out) && out[i] != '\n'; i++ {
				out[i] = ' '
			}
		case '*':
			out[i], out[i+1] = ' ', ' '
			for i += 2; i < len(out); i++ {
				if out[i] == '*' && i+1 < len(out) && out[i+1] == '/' {
					out[i], out[i+1] = ' ', ' '
					return i + 1
				}
				if out[i] != '\n' {
					out[i] = ' '
				}
			}
		}
		return i
	})
	// Trailing commas, now that comments are blank.
	outsideStrings(out, func(i int) int {
		if out[i] == ',' {
			j := i + 1
			for j < len(out) && isJSONSpace(out[j]) {
				j++
			}
			if j < len(out) && (out[j] == '}' || out[j] == ']') {
				out[i] = ' '
			}
		}
		return i
	})
	return out
}

// outsideStrings calls visit with the index of every byte of b that is not
// inside a JSON string literal (quotes excluded); visit returns the index
// of the last byte it consumed.
func outsideStrings(b []byte, visit func(i int) int) {
	inString := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case inString && c == '\\':
			i++
		case inString && c == '"':
			inString = false
		case inString:
		case c == '"':
			inString = true
		default:
			i = visit(i)
		}
	}
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// member is one member of a JSON object, in document order.
type member struct {
	Key   string
	Value json.RawMessage
}

// objectMembers returns the members of a JSON object in document order. A
// key given twice keeps its first position and its last value, as
// JSON.parse does.
func objectMembers(raw []byte) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not an object")
	}
	var ms []member
	pos := map[string]int{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, ok := tok.(string)
		if !ok {
			return nil, fmt.Errorf("object key is %v", tok)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		if i, dup := pos[key]; dup {
			ms[i].Value = v
			continue
		}
		pos[key] = len(ms)
		ms = append(ms, member{Key: key, Value: v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	return ms, nil
}

// lineCol converts a byte offset into a 1-based line and column.
func lineCol(src []byte, off int64) (line, col int) {
	if off > int64(len(src)) {
		off = int64(len(src))
	}
	before := src[:off]
	line = bytes.Count(before, []byte{'\n'}) + 1
	col = int(off) - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return line, col
}

// syntaxError describes a JSON decoding error with its line and column.
func syntaxError(src []byte, err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		if se.Offset >= int64(len(src)) {
			line, col := lineCol(src, int64(len(src)))
			return fmt.Sprintf("invalid JSON: the text ends early (line %d, column %d); a closing bracket, brace or quote is missing", line, col)
		}
		// Offset counts the bytes read, the offending one included.
		line, col := lineCol(src, max(se.Offset-1, 0))
		return fmt.Sprintf("invalid JSON at line %d, column %d: %v", line, col, se)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return "invalid JSON: the file ends too early"
	}
	return "invalid JSON: " + err.Error()
}
