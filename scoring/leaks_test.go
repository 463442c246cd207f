package scoring

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestScanLeaks(t *testing.T) {
	c := &Context{
		Canaries:    map[string]string{"GITHUB_TOKEN": "mcpvet-canary-0a1b2c3d4e5f", "SHORT": "abc"},
		PublicPaths: []string{"/srv/allowed/"},
	}
	tests := []struct {
		name string
		text string
		want []Leak
	}{
		{"clean", "Expected string, received number at message", nil},
		{"canary", "token mcpvet-canary-0a1b2c3d4e5f was rejected",
			[]Leak{{Kind: LeakSecret, Where: "text[6:32]", Evidence: "canary value of GITHUB_TOKEN"}}},
		{"short canaries are ignored", "abc", nil},
		{"aws key", "using AKIAIOSFODNN7EXAMPLE",
			[]Leak{{Kind: LeakCredential, Where: "text[6:26]", Evidence: "credential-shaped token AKIA…"}}},
		{"postgres url", "connect postgres://u:pw@db:5432/x failed",
			[]Leak{{Kind: LeakConnectionString, Where: "text[8:33]", Evidence: `connection string "postgres://u:***@db:5432/x"`}}},
		{"ado string", "Server=db01;Database=x;User Id=sa;Password=hunter2;",
			[]Leak{{Kind: LeakConnectionString, Where: "text[0:43]", Evidence: `connection string "Server=db01;Database=x;User Id=sa;Password="`}}},
		{"private address", "upstream 192.168.1.20:8080 refused",
			[]Leak{{Kind: LeakInternalHost, Where: "text[9:26]", Evidence: "internal host 192.168.1.20:8080"}}},
		{"localhost with port", "GET localhost:9200/_search failed",
			[]Leak{{Kind: LeakInternalHost, Where: "text[4:18]", Evidence: "internal host localhost:9200"}}},
		{"public address is fine", "upstream 8.8.8.8 refused", nil},
		{"node frame", "Error: boom\n    at handler (/app/dist/index.js:12:7)",
			[]Leak{
				{Kind: LeakStackTrace, Where: "text[16:52]", Evidence: `stack frame "at handler (/app/dist/index.js:12:7)"`},
				{Kind: LeakHostPath, Where: "text[28:46]", Evidence: `host path "/app/dist/index.js"`},
			}},
		{"python traceback", "Traceback (most recent call last):\n  File \"x.py\", line 3",
			[]Leak{{Kind: LeakStackTrace, Where: "text[0:33]", Evidence: `stack frame "Traceback (most recent call last)"`}}},
		{"host path", "cannot read /home/alice/.npmrc",
			[]Leak{{Kind: LeakHostPath, Where: "text[12:30]", Evidence: `host path "/home/alice/.npmrc"`}}},
		{"public path", "cannot read /srv/allowed/notes.txt", nil},
		{"prefix of a public path is not public", "cannot read /srv/allowedx/notes.txt",
			[]Leak{{Kind: LeakHostPath, Where: "text[12:35]", Evidence: `host path "/srv/allowedx/notes.txt"`}}},
		{"sentence full stop is not part of a path", "missing /var/lib/x.",
			[]Leak{{Kind: LeakHostPath, Where: "text[8:18]", Evidence: `host path "/var/lib/x"`}}},
		{"URL paths are not host paths", "see https://example.com/home/docs and demo://resource/static/x", nil},
		{"MCP method names are not paths", "Method tools/list not found", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ScanLeaks("text", tt.text, c)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ScanLeaks(%q) (-want +got):\n%s", tt.text, diff)
			}
		})
	}
}

// TestLeakEcho checks that a value the caller sent is an echo, not a leak.
func TestLeakEcho(t *testing.T) {
	r := Response{Kind: KindUnknownID, Method: "tools/call", Tool: "read", Param: "path", Sent: raw(`"/etc/passwd"`),
		Class: ClassToolError, ProtocolVersion: "2025-11-25", Text: "Access denied: /etc/passwd is outside /data"}
	g := Grade(r, Context{ToolNames: []string{"read"}})
	if !g.Pass(ElemNoLeak) {
		t.Errorf("echoed path graded as a leak: %v", g.Leaks)
	}
	r.Text = "Access denied: /etc/passwd resolved to /home/svc/etc/passwd"
	g = Grade(r, Context{ToolNames: []string{"read"}})
	want := []Leak{{Kind: LeakHostPath, Where: "text[39:59]", Evidence: `host path "/home/svc/etc/passwd"`}}
	if diff := cmp.Diff(want, g.Leaks); diff != "" {
		t.Errorf("leaks (-want +got):\n%s", diff)
	}
}

// TestEchoOfEscapedArguments: a server that repeats its arguments as JSON
// text (Python's json.dumps, Node's JSON.stringify in an error message)
// repeats the escaped form of what the caller sent, `C:\\Users\\bob`: that
// is an echo too, of the invalid value or of any other argument, while a
// path the caller never sent, escaped or not, stays a leak.
func TestEchoOfEscapedArguments(t *testing.T) {
	base := Response{Kind: KindPatternViolation, Method: "tools/call", Tool: "read", Param: "path",
		Sent: raw(`"C:\\Users\\bob\\notes.txt"`), Arguments: raw(`{"path":"C:\\Users\\bob\\notes.txt","root":"D:\\work\\repo"}`),
		Class: ClassToolError, ProtocolVersion: "2025-11-25"}
	for _, tt := range []struct {
		name, text string
		leaks      []string
	}{
		{"the invalid value, JSON-escaped", `Invalid arguments: {"path": "C:\\Users\\bob\\notes.txt"}: must be relative`, nil},
		{"another argument, JSON-escaped", `root "D:\\work\\repo" does not contain "C:\\Users\\bob\\notes.txt"`, nil},
		{"the invalid value, decoded", `C:\Users\bob\notes.txt must be relative`, nil},
		{"a path nobody sent, escaped", `Invalid arguments: {"path": "C:\\Users\\bob\\notes.txt"} (cwd C:\\srv\\mcp\\index.js)`, []string{`C:\\\\srv\\\\mcp\\\\index.js`}},
		{"a path nobody sent, decoded", `cannot open C:\srv\mcp\data\notes.txt`, []string{`C:\\srv\\mcp\\data\\notes.txt`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := base
			r.Text = tt.text
			g := Grade(r, Context{ToolNames: []string{"read"}})
			var got []string
			for _, l := range g.Leaks {
				if l.Kind == LeakHostPath {
					got = append(got, l.Evidence)
				}
			}
			if len(got) != len(tt.leaks) {
				t.Fatalf("host-path leaks %q, want %d containing %q", got, len(tt.leaks), tt.leaks)
			}
			for i, w := range tt.leaks {
				if !strings.Contains(got[i], w) {
					t.Errorf("leak %q does not name %q", got[i], w)
				}
			}
		})
	}
}
