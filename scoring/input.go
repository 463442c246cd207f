package scoring

import (
	"bytes"
	"encoding/json"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/mcpvet/mcpvet/internal/safe"
)

// maxParseBytes bounds the payloads the grader parses as JSON; larger ones
// are graded as plain text.
const maxParseBytes = 256 << 10

// maxSemanticBytes bounds each text segment the message elements read: what
// an error says that can help comes first, and a longer text fails the
// bounded element anyway. Leak detection reads up to [maxScanBytes].
const maxSemanticBytes = 1 << 10

// maxFields bounds the JSON leaves collected from one response.
const maxFields = 2000

// segment is one piece of model-visible text with a label saying where it
// came from ("text", "error.message", "structuredContent.recover").
type segment struct {
	label string
	s     string
	lower string
	// hints is the hint mask of lower, for text segments (hinted says it
	// was computed).
	hints  uint64
	hinted bool
}

// field is one JSON leaf of a payload.
type field struct {
	// path is the dotted location, starting with the payload's label.
	path string
	// key is the leaf's key, lowercased without '_' and '-'.
	key string
	// val is a string, float64, bool, nil, or for arrays and objects their
	// length as int (arrays) or -1 (objects); containers are recorded too
	// so closest_matches: [...] can be seen.
	val any
	// items holds up to 8 scalar items of an array, as strings.
	items []string
}

// input is a response prepared once for every element detector.
type input struct {
	r *Response
	c *Context
	// raw are the payloads as the model sees them, for leaks and tokens.
	raw []segment
	// text are the human-readable strings: plain text, and each string
	// leaf of a JSON payload as its own segment.
	text []segment
	// fields are the JSON leaves of every payload.
	fields []field
	// sent is the decoded invalid value: a string's contents, or the JSON
	// literal of a number or boolean. sentType is 's', 'n', 'b', 'o'
	// (object or array), or 0 when nothing was sent.
	sent     string
	sentType byte
	// sentItems are the string items (three characters or more) of an
	// array sent as the invalid value: each one echoed is the received
	// value (errors-v10: "No files matching '/tmp/x.js' were found" for
	// filePaths ["/tmp/x.js"]).
	sentItems []string
	// maxArray is the longest JSON array in any payload.
	maxArray int
	// rawJSON marks the raw segments that held a JSON payload: their lines
	// are JSON layout, not enumerated items.
	rawJSON []bool
	// names caches [input.ownNames].
	names map[string]bool
}

func newInput(r *Response, c *Context) *input {
	in := &input{r: r, c: c}
	in.decodeSent()
	add := func(label, s string) {
		if s == "" {
			return
		}
		in.raw = append(in.raw, segment{label: label, s: s, lower: asciiLower(s)})
	}
	add("text", r.Text)
	add("error.message", r.ErrorMessage)
	if len(r.ErrorData) > 0 && !bytes.Equal(bytes.TrimSpace(r.ErrorData), []byte("null")) {
		add("error.data", string(r.ErrorData))
	}
	if len(r.StructuredContent) > 0 && !bytes.Equal(bytes.TrimSpace(r.StructuredContent), []byte("null")) {
		add("structuredContent", string(r.StructuredContent))
	}
	// Nothing is read for meaning when no error was signalled (not even in
	// the text of a success result): only leaks and size are judged then.
	if !silent(r) {
		in.rawJSON = make([]bool, len(in.raw))
		for i := range in.raw {
			in.splitPayload(i)
		}
	}
	return in
}

// addText appends a text segment, cut to maxSemanticBytes.
func (in *input) addText(label, s string) {
	s = safe.Truncate(s, maxSemanticBytes, "")
	lower := asciiLower(s)
	in.text = append(in.text, segment{label: label, s: s, lower: lower, hints: hintMask(lower), hinted: true})
}

// splitPayload adds seg to in.text, replacing a JSON document, or a JSON
// object or array embedded after a prose prefix, by its string leaves. The
// TypeScript SDK writes zod's issue array after "MCP error -32602: Input
// validation error: Invalid arguments for tool X: "; FastMCP and
// hand-written servers put a JSON object after "Error: ". The payload must
// run to the end of the text, so a bracket inside the prose ("[0]") is not
// taken for one.
func (in *input) splitPayload(i int) {
	seg := in.raw[i]
	s := seg.s
	if len(s) > maxParseBytes {
		in.addText(seg.label, s)
		return
	}
	t := strings.TrimSpace(s)
	if t == "" {
		return
	}
	last := t[len(t)-1]
	if last != '}' && last != ']' {
		in.addText(seg.label, s)
		return
	}
	// Try the openers in order; prose rarely holds more than a few.
	for start, tries := 0, 0; tries < 8; tries++ {
		k := strings.IndexAny(s[start:], "{[")
		if k < 0 {
			break
		}
		start += k
		if v, ok := decodeTail(s[start:]); ok {
			if pre := strings.TrimSpace(s[:start]); pre != "" {
				in.addText(seg.label, pre)
			}
			in.rawJSON[i] = true
			in.walk(seg.label, "", v, 0)
			return
		}
		start++
	}
	in.addText(seg.label, s)
}

// decodeTail decodes s as exactly one JSON value followed by white space.
func decodeTail(s string) (any, bool) {
	// Validate first, without allocating: most candidates ("[0]" in
	// "entities[0].name") fail at once, and a Decoder costs a buffer.
	if s == "" || s[0] != '{' && s[0] != '[' || !json.Valid(unsafe.Slice(unsafe.StringData(s), len(s))) {
		return nil, false
	}
	var v any
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	if d.Decode(&v) != nil {
		return nil, false
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, false
	}
	switch v.(type) {
	case map[string]any, []any:
		return v, true
	}
	return nil, false
}

func (in *input) walk(path, key string, v any, depth int) {
	if depth > 8 || len(in.fields) >= maxFields {
		return
	}
	nk := normKey(key)
	switch x := v.(type) {
	case map[string]any:
		in.fields = append(in.fields, field{path: path, key: nk, val: -1})
		keys := slices.Sorted(maps.Keys(x))
		for _, k := range keys {
			in.walk(path+"."+k, k, x[k], depth+1)
		}
	case []any:
		f := field{path: path, key: nk, val: len(x)}
		for _, it := range x {
			if len(f.items) == 8 {
				break
			}
			switch s := it.(type) {
			case string:
				f.items = append(f.items, s)
			case json.Number:
				f.items = append(f.items, s.String())
			}
		}
		in.fields = append(in.fields, f)
		in.maxArray = max(in.maxArray, len(x))
		for i, it := range x {
			// The first items say what the array holds; the rest only
			// count towards its length.
			if i >= 16 {
				break
			}
			in.walk(path+"["+strconv.Itoa(i)+"]", key, it, depth+1)
		}
	case string:
		in.fields = append(in.fields, field{path: path, key: nk, val: x})
		in.addText(path, x)
	case json.Number:
		f, err := x.Float64()
		if err != nil {
			return
		}
		in.fields = append(in.fields, field{path: path, key: nk, val: f})
	case bool:
		in.fields = append(in.fields, field{path: path, key: nk, val: x})
	case nil:
		in.fields = append(in.fields, field{path: path, key: nk, val: nil})
	}
}

// normKey lowercases k and drops '_' and '-', so retry_after_seconds,
// retryAfterSeconds and retry-after-seconds compare equal.
func normKey(k string) string {
	var b strings.Builder
	b.Grow(len(k))
	for i := 0; i < len(k); i++ {
		c := k[i]
		switch {
		case c == '_' || c == '-':
		case c >= 'A' && c <= 'Z':
			b.WriteByte(c + 'a' - 'A')
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func (in *input) decodeSent() {
	raw := bytes.TrimSpace(in.r.Sent)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return
	}
	switch raw[0] {
	case '"':
		var s string
		if json.Unmarshal(raw, &s) == nil {
			in.sent, in.sentType = s, 's'
		}
	case '{', '[':
		in.sent, in.sentType = string(raw), 'o'
		var items []any
		if raw[0] == '[' && json.Unmarshal(raw, &items) == nil {
			for _, it := range items {
				if s, ok := it.(string); ok && len(s) >= 3 && len(in.sentItems) < 8 {
					in.sentItems = append(in.sentItems, s)
				}
			}
		}
	case 't', 'f':
		in.sent, in.sentType = string(raw), 'b'
	default:
		in.sent, in.sentType = string(raw), 'n'
	}
}

// fieldsWithKey returns the leaves whose normalized key is one of keys.
func (in *input) fieldsWithKey(keys ...string) []field {
	var out []field
	for _, f := range in.fields {
		if slices.Contains(keys, f.key) {
			out = append(out, f)
		}
	}
	return out
}
