package probe

import (
	"encoding/json"
	"strings"
	"testing"
)

// Session 9 survivors of probe/check_schema.go from line 801 on (nonRE2's
// rewrite of ECMA-262 escapes, isHexString, isHex, regexBalanced): see
// docs/testing.md, "Survivors of session 9 (probe/check_schema.go, lines
// 801 on)".

// s9hEscapeReason is nonRE2's reason for a pattern that compiles in RE2
// once its ECMA-262 escapes are spelled the RE2 way.
const s9hEscapeReason = `ECMA-262 escape syntax (\uXXXX, \cX, [^] or a letter escape)`

// s9hPatternCase is one "pattern" a server publishes on a string argument
// and what the scanner tells the user about it: want is the reason of the
// schema/pattern_not_portable finding (the pattern is valid ECMA-262 that
// RE2 rejects, so the scanner leaves it out and checks the rest), or ""
// when the pattern is broken in every dialect and the schema does not
// compile (schema/input_compile_failed).
type s9hPatternCase struct {
	name, pattern, want string
}

func s9hCheckPatterns(t *testing.T, tests []s9hPatternCase) {
	t.Helper()
	c := NewChecker()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prop, err := json.Marshal(map[string]any{"type": "string", "description": "The value.", "pattern": tt.pattern})
			if err != nil {
				t.Fatal(err)
			}
			schema := `{"type":"object","properties":{"value":` + string(prop) + `},"required":["value"],"additionalProperties":false}`
			got := c.checkSchema("2025-06-18", "tool:t", inputSide, json.RawMessage(schema), true)
			var portable, failed []Finding
			for _, f := range got {
				switch f.Code {
				case CodePatternNotPortable:
					portable = append(portable, f)
				case CodeInputCompileFailed:
					failed = append(failed, f)
				}
			}
			if tt.want == "" {
				if len(failed) != 1 || len(portable) != 0 {
					t.Errorf("pattern %q: want only schema/input_compile_failed (broken in every dialect), got %+v", tt.pattern, got)
				}
				return
			}
			if len(portable) != 1 || len(failed) != 0 {
				t.Fatalf("pattern %q: want one schema/pattern_not_portable and a schema that compiles, got %+v", tt.pattern, got)
			}
			f := portable[0]
			if f.Pointer != "/inputSchema/properties/value/pattern" || f.Value != tt.pattern || !strings.Contains(f.Message, "uses "+tt.want+",") {
				t.Errorf("pattern %q: finding %+v, want pointer /inputSchema/properties/value/pattern, the pattern as value and the reason %q", tt.pattern, f, tt.want)
			}
		})
	}
}

// TestS9hLetterEscapes: the escapes ECMA-262 spells differently from RE2
// (\uXXXX, \u{...}, \cX, identity escapes of letters) are rewritten, the
// others kept as they are, so that a pattern is called "not portable" only
// when RE2 compiles its rewrite.
func TestS9hLetterEscapes(t *testing.T) {
	s9hCheckPatterns(t, []s9hPatternCase{
		// An international phone number with a no-break space: \+ and
		// \d{1,3} are RE2 escapes and stay as they are.
		{"phone with no-break space", `^\+\d{1,3}\u00a0\d{4,14}$`, s9hEscapeReason},
		// An amount in euros, the pattern starting with an escape.
		{"euro amount", `\d+(,\d{2})?\u00a0\u20ac$`, s9hEscapeReason},
		// A heart emoji with its optional variation selector, in the
		// code point form: u{2764} unrewritten would be a repeat count
		// past RE2's 1000.
		{"emoji code point escape", `^\u{2764}\u{FE0F}?$`, s9hEscapeReason},
		// An ANSI colour sequence as PCRE writes it: \e is an identity
		// escape in ECMA-262 ("e"), unknown to RE2.
		{"ANSI colour, PCRE escape", `\e\[[0-9;]*m`, s9hEscapeReason},
		// Pydantic's patterns come from Python, where \Z ends the
		// string; ECMA-262 reads it as "Z".
		{"Python end anchor", `^[a-z0-9_]+\Z`, s9hEscapeReason},
		// A Windows folder with one backslash where two were meant:
		// "\u" not followed by four hex digits is the letter u in
		// ECMA-262, not a code point.
		{"single backslash before users", `^C:\users\\[^\\]+$`, s9hEscapeReason},
		// Truncated escapes at the pattern's end: identity escapes in
		// ECMA-262, never read past the end.
		{"ends in \\u", `^caf\u`, s9hEscapeReason},
		{"ends in a short \\u", `^caf\u00e`, s9hEscapeReason},
		{"ends in \\c", `^[a-z]+\c`, s9hEscapeReason},
		// A Windows drive whose trailing backslash lost its pair: broken
		// everywhere.
		{"trailing backslash", `^[A-Z]:\`, ""},
	})
}

// TestS9hUnicodeRanges: \uXXXX with every kind of hex digit (0-9, a-f,
// A-F, the bounds of each) is rewritten to RE2's \x{XXXX}; left as the
// letters "uXXXX" it would end a character class range below its start.
func TestS9hUnicodeRanges(t *testing.T) {
	s9hCheckPatterns(t, []s9hPatternCase{
		// No C0 or C1 control character (DEL to U+009F).
		{"no control characters", `^[^\x00-\x1f\x7f-\u009f]*$`, s9hEscapeReason},
		// Latin letters with diacritics up to the IPA extensions, hex
		// in upper case and in lower case.
		{"latin letters, upper-case hex", `^[A-Za-z\xC0-\u02AF]+$`, s9hEscapeReason},
		{"latin letters, lower-case hex", `^[a-z\xe0-\u02af]+$`, s9hEscapeReason},
		// Not hex: the letters stand for themselves.
		{"not hex", `^[\x7f-\u00gg]$`, ""},
	})
}

// TestS9hControlEscapes: \cX is the control character X % 32, so ranges of
// them compile once rewritten.
func TestS9hControlEscapes(t *testing.T) {
	s9hCheckPatterns(t, []s9hPatternCase{
		{"^A to US", `[\cA-\x1f]`, s9hEscapeReason},
		{"^a to US, lower case", `[\ca-\x1f]`, s9hEscapeReason},
		{"^Z to US", `^[^\cZ-\x1f]*$`, s9hEscapeReason},
		{"^z to US, lower case", `^[^\cz-\x1f]*$`, s9hEscapeReason},
	})
}

// TestS9hBalanced: a pattern with ECMA-262-only syntax is "not portable"
// only when its parentheses and brackets pair up (escaped ones and those
// inside a character class do not count); otherwise it is broken in every
// dialect and the schema fails to compile.
func TestS9hBalanced(t *testing.T) {
	s9hCheckPatterns(t, []s9hPatternCase{
		// A function call but not eval: parentheses escaped and inside
		// a negated class.
		{"call but not eval", `^(?!eval)[a-z_]+\([^)]*\)$`, "lookahead (?!"},
		{"escaped parenthesis", `^(?!tmp)\(`, "lookahead (?!"},
		{"bracket in a class", `^(?<![\[(])[a-z]+$`, "lookbehind (?<!"},
		{"unclosed lookahead", `^(?!tmp`, ""},
		{"unclosed class", `^(?!tmp)[a-z`, ""},
	})
}
