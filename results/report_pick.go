package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/scan/vocab"
)

// The census pass reads a few fields of each stored result. encoding/json
// validates and then walks every byte of a 13 KB result (probe bodies,
// schemas, raw listings) to fill those fields; the picker below skips
// whole values with a byte scanner instead and hands only the small
// values it keeps to encoding/json. It never panics on malformed input;
// on valid JSON it reads what encoding/json would (FuzzPickLean checks
// both).

var errPick = errors.New("malformed JSON")

// pickWS skips JSON whitespace from i.
func pickWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\t' || b[i] == '\r') {
		i++
	}
	return i
}

// pickSkip returns the index just past the JSON value starting at b[i].
func pickSkip(b []byte, i int) (int, error) {
	i = pickWS(b, i)
	if i >= len(b) {
		return 0, errPick
	}
	switch b[i] {
	case '"':
		return pickSkipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				end, err := pickSkipString(b, i)
				if err != nil {
					return 0, err
				}
				i = end
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1, nil
				}
			}
			i++
		}
		return 0, errPick
	default: // number, true, false, null
		j := i
		for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\n' && b[j] != '\t' && b[j] != '\r' {
			j++
		}
		if j == i {
			return 0, errPick
		}
		return j, nil
	}
}

// pickSkipString returns the index just past the string starting at b[i].
// It finds each quote with bytes.IndexByte and counts the backslashes
// before it: an odd number escapes the quote.
func pickSkipString(b []byte, i int) (int, error) {
	i++
	for {
		k := bytes.IndexByte(b[i:], '"')
		if k < 0 {
			return 0, errPick
		}
		i += k
		n := 0
		for j := i - 1; j >= 0 && b[j] == '\\'; j-- {
			n++
		}
		i++
		if n%2 == 0 {
			return i, nil
		}
	}
}

// pickObject calls fn with each key and raw value of the object b; null
// is an empty object.
func pickObject(b []byte, fn func(key, val []byte) error) error {
	i := pickWS(b, 0)
	if bytes.Equal(b[i:], []byte("null")) {
		return nil
	}
	if i >= len(b) || b[i] != '{' {
		return errPick
	}
	i = pickWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return nil
	}
	for {
		i = pickWS(b, i)
		if i >= len(b) || b[i] != '"' {
			return errPick
		}
		end, err := pickSkipString(b, i)
		if err != nil {
			return err
		}
		key := b[i+1 : end-1]
		i = pickWS(b, end)
		if i >= len(b) || b[i] != ':' {
			return errPick
		}
		start := pickWS(b, i+1)
		if i, err = pickSkip(b, start); err != nil {
			return err
		}
		if err := fn(key, b[start:i]); err != nil {
			return err
		}
		i = pickWS(b, i)
		if i >= len(b) {
			return errPick
		}
		if b[i] == '}' {
			return nil
		}
		if b[i] != ',' {
			return errPick
		}
		i++
	}
}

// pickArray calls fn with each raw element of the array b; null is an
// empty array.
func pickArray(b []byte, fn func(val []byte) error) error {
	i := pickWS(b, 0)
	if bytes.Equal(b[i:], []byte("null")) {
		return nil
	}
	if i >= len(b) || b[i] != '[' {
		return errPick
	}
	i = pickWS(b, i+1)
	if i < len(b) && b[i] == ']' {
		return nil
	}
	for {
		start := pickWS(b, i)
		end, err := pickSkip(b, start)
		if err != nil {
			return err
		}
		if err := fn(b[start:end]); err != nil {
			return err
		}
		i = pickWS(b, end)
		if i >= len(b) {
			return errPick
		}
		if b[i] == ']' {
			return nil
		}
		if b[i] != ',' {
			return errPick
		}
		i++
	}
}

// pickKey reports whether a raw key names a field, matching keys
// without regard to case as encoding/json does (keys with escapes are
// compared after unescaping).
func pickKey(key []byte, name string) bool {
	if bytes.IndexByte(key, '\\') < 0 {
		return string(key) == name || bytes.EqualFold(key, []byte(name))
	}
	var s string
	return json.Unmarshal(append(append([]byte{'"'}, key...), '"'), &s) == nil && bytes.EqualFold([]byte(s), []byte(name))
}

// pickString decodes a raw JSON string; null is "".
func pickString(v []byte) (string, error) {
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' && bytes.IndexByte(v, '\\') < 0 {
		return string(v[1 : len(v)-1]), nil
	}
	var s string
	err := json.Unmarshal(v, &s)
	return s, err
}

// pickBool decodes a raw JSON boolean; null is false.
func pickBool(v []byte) (bool, error) {
	switch string(v) {
	case "true":
		return true, nil
	case "false", "null":
		return false, nil
	}
	return false, fmt.Errorf("%w: %.20q is not a boolean", errPick, v)
}

// pickFloat decodes a raw JSON number; null is nil.
func pickFloat(v []byte) (*float64, error) {
	if string(v) == "null" {
		return nil, nil
	}
	f, err := strconv.ParseFloat(string(v), 64)
	if err != nil {
		return nil, fmt.Errorf("%w: %.20q is not a number", errPick, v)
	}
	return &f, nil
}

// decodeLean decodes a stored result into a [probe.Result] holding only
// what [Tally.Add] and [RowOf] read: the target; the liveness status,
// handshake, protocol version, serverInfo, exit code and total time; tool
// names and annotations; how many prompts, resources and templates;
// finding codes, severities and subjects; probe classes and element
// names and passes; the score; the verdict's decision and rules.
func decodeLean(js []byte) (*probe.Result, error) {
	res := &probe.Result{}
	err := pickObject(js, func(key, v []byte) error {
		switch {
		case pickKey(key, "target"):
			return json.Unmarshal(v, &res.Target)
		case pickKey(key, "liveness"):
			return pickLiveness(v, &res.Liveness)
		case pickKey(key, "tools"):
			res.Tools = nil
			return pickArray(v, func(t []byte) error {
				var tool probe.Tool
				err := pickObject(t, func(k, tv []byte) error {
					var err error
					switch {
					case pickKey(k, "name"):
						tool.Name, err = pickString(tv)
					case pickKey(k, "annotations"):
						tool.Annotations = json.RawMessage(tv)
					}
					return err
				})
				res.Tools = append(res.Tools, tool)
				return err
			})
		case pickKey(key, "prompts"):
			res.Prompts = nil
			return pickArray(v, func([]byte) error { res.Prompts = append(res.Prompts, probe.Prompt{}); return nil })
		case pickKey(key, "resources"):
			res.Resources = nil
			return pickArray(v, func([]byte) error { res.Resources = append(res.Resources, probe.Resource{}); return nil })
		case pickKey(key, "resourceTemplates"):
			res.ResourceTemplates = nil
			return pickArray(v, func([]byte) error {
				res.ResourceTemplates = append(res.ResourceTemplates, probe.ResourceTemplate{})
				return nil
			})
		case pickKey(key, "findings"):
			res.Findings = nil
			return pickArray(v, func(fv []byte) error {
				var f probe.Finding
				err := pickObject(fv, func(k, x []byte) error {
					var err error
					var s string
					switch {
					case pickKey(k, "code"):
						f.Code, err = pickString(x)
					case pickKey(k, "severity"):
						s, err = pickString(x)
						f.Severity = probe.Severity(s)
					case pickKey(k, "subject"):
						f.Subject, err = pickString(x)
					}
					return err
				})
				res.Findings = append(res.Findings, f)
				return err
			})
		case pickKey(key, "probes"):
			res.Probes = nil
			return pickArray(v, func(pv []byte) error {
				var p probe.ProbeCall
				err := pickObject(pv, func(k, x []byte) error {
					switch {
					case pickKey(k, "class"):
						var err error
						p.Class, err = pickString(x)
						return err
					case pickKey(k, "elements"):
						p.Elements = nil
						return pickArray(x, func(ev []byte) error {
							var e probe.Element
							err := pickObject(ev, func(ek, ex []byte) error {
								var err error
								switch {
								case pickKey(ek, "name"):
									e.Name, err = pickString(ex)
								case pickKey(ek, "pass"):
									e.Pass, err = pickBool(ex)
								}
								return err
							})
							p.Elements = append(p.Elements, e)
							return err
						})
					}
					return nil
				})
				res.Probes = append(res.Probes, p)
				return err
			})
		case pickKey(key, "score"):
			var err error
			res.Score, err = pickFloat(v)
			return err
		case pickKey(key, "verdict"):
			if string(v) == "null" {
				res.Verdict = nil
				return nil
			}
			return pickVerdict(v, res)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

func pickLiveness(v []byte, l *probe.Liveness) error {
	return pickObject(v, func(k, x []byte) error {
		var err error
		var s string
		switch {
		case pickKey(k, "status"):
			s, err = pickString(x)
			l.Status = vocab.Status(s)
		case pickKey(k, "handshakeCompleted"):
			l.HandshakeCompleted, err = pickBool(x)
		case pickKey(k, "protocolVersion"):
			l.ProtocolVersion, err = pickString(x)
		case pickKey(k, "serverInfo"):
			err = json.Unmarshal(x, &l.ServerInfo)
		case pickKey(k, "exitCode"):
			err = json.Unmarshal(x, &l.ExitCode)
		case pickKey(k, "timings"):
			err = pickObject(x, func(tk, tx []byte) error {
				if pickKey(tk, "totalMs") {
					f, err := pickFloat(tx)
					if f != nil {
						l.Timings.TotalMs = *f
					}
					return err
				}
				return nil
			})
		}
		return err
	})
}

func pickVerdict(v []byte, res *probe.Result) error {
	if res.Verdict == nil {
		res.Verdict = &probe.Verdict{}
	}
	return pickObject(v, func(k, x []byte) error {
		switch {
		case pickKey(k, "decision"):
			var err error
			res.Verdict.Decision, err = pickString(x)
			return err
		case pickKey(k, "rules"):
			res.Verdict.Rules = nil
			return pickArray(x, func(rv []byte) error {
				var r probe.Rule
				err := pickObject(rv, func(rk, rx []byte) error {
					var err error
					switch {
					case pickKey(rk, "name"):
						r.Name, err = pickString(rx)
					case pickKey(rk, "fired"):
						r.Fired, err = pickBool(rx)
					case pickKey(rk, "decision"):
						r.Decision, err = pickString(rx)
					}
					return err
				})
				res.Verdict.Rules = append(res.Verdict.Rules, r)
				return err
			})
		}
		return nil
	})
}
