package scan

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcpvet/mcpvet/internal/testfixture"
	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/vocab"
)

// TestCanaryChannels: the leaky fixture gets a canary for its secret
// LEAKY_TOKEN and leaks it through one channel and encoding per case. Each
// must give errors/leaks_secret (stderr: stderr/leaks_secret) naming the
// channel, never the value (issue 11, item 1: only a verbatim echo in a
// call result was caught).
func TestCanaryChannels(t *testing.T) {
	bin := testfixture.Path(t, "leaky")
	tests := []struct {
		mode    string
		code    string
		channel string // in the finding's value
		enc     string // in the finding's value, after the variable
	}{
		{"serverinfo-name", probe.CodeLeaksSecret, "serverInfo.name: LEAKY_TOKEN", ""},
		{"serverinfo-version", probe.CodeLeaksSecret, "serverInfo.version: LEAKY_TOKEN", ""},
		{"serverinfo-title", probe.CodeLeaksSecret, "serverInfo.title: LEAKY_TOKEN", ""},
		{"instructions", probe.CodeLeaksSecret, "instructions: LEAKY_TOKEN", ""},
		{"tool-name", probe.CodeLeaksSecret, "tools[0].name: LEAKY_TOKEN", ""},
		{"tool-title", probe.CodeLeaksSecret, "tools[0].title: LEAKY_TOKEN", ""},
		{"description", probe.CodeLeaksSecret, "tools[0].description: LEAKY_TOKEN", ""},
		{"schema-description", probe.CodeLeaksSecret, "tools[0].inputSchema.properties.q.description: LEAKY_TOKEN", ""},
		{"schema-default", probe.CodeLeaksSecret, "tools[0].inputSchema.properties.q.default: LEAKY_TOKEN", ""},
		{"schema-key", probe.CodeLeaksSecret, "tools[0].inputSchema.properties.", "(key): LEAKY_TOKEN"},
		{"annotations", probe.CodeLeaksSecret, "tools[0].annotations.title: LEAKY_TOKEN", ""},
		{"output-schema", probe.CodeLeaksSecret, "tools[0].outputSchema.properties.hits.description: LEAKY_TOKEN", ""},
		{"prompt-description", probe.CodeLeaksSecret, "prompts[0].description: LEAKY_TOKEN", ""},
		{"prompt-argument", probe.CodeLeaksSecret, "prompts[0].arguments[0].description: LEAKY_TOKEN", ""},
		{"resource-description", probe.CodeLeaksSecret, "resources[0].description: LEAKY_TOKEN", ""},
		{"template-description", probe.CodeLeaksSecret, "resourceTemplates[0].description: LEAKY_TOKEN", ""},
		{"prompt-content", probe.CodeLeaksSecret, "prompts/get(", "messages[0].content.text: LEAKY_TOKEN"},
		{"resource-text", probe.CodeLeaksSecret, "resources/read(", "contents[0].text: LEAKY_TOKEN"},
		{"resource-blob", probe.CodeLeaksSecret, "contents[0].blob: LEAKY_TOKEN", "(base64)"},
		{"notification", probe.CodeLeaksSecret, "notifications/message data: LEAKY_TOKEN", ""},
		{"server-request", probe.CodeLeaksSecret, "sampling/createMessage messages[0].content.text: LEAKY_TOKEN", ""},
		{"call-result", probe.CodeLeaksSecret, "tools/call(", "content[0].text: LEAKY_TOKEN"},
		{"call-structured", probe.CodeLeaksSecret, "tools/call(", "structuredContent.session: LEAKY_TOKEN"},
		{"error-message", probe.CodeLeaksSecret, "tools/call(", "error.message: LEAKY_TOKEN"},
		{"error-data", probe.CodeLeaksSecret, "tools/call(", "error.data.request.headers.authorization: LEAKY_TOKEN"},
		{"description-uescape", probe.CodeLeaksSecret, "tools[0].description: LEAKY_TOKEN", ""},
		{"description-json-in-string", probe.CodeLeaksSecret, "tools[0].description: LEAKY_TOKEN", "(JSON escapes)"},
		{"description-base64-0", probe.CodeLeaksSecret, "tools[0].description: LEAKY_TOKEN", "(base64)"},
		{"description-base64-1", probe.CodeLeaksSecret, "tools[0].description: LEAKY_TOKEN", "(base64)"},
		{"description-base64-2", probe.CodeLeaksSecret, "tools[0].description: LEAKY_TOKEN", "(base64)"},
		{"description-base64url", probe.CodeLeaksSecret, "tools[0].description: LEAKY_TOKEN", "(base64"},
		{"description-base64-wrapped", probe.CodeLeaksSecret, "tools[0].description: LEAKY_TOKEN", "(wrapped, base64)"},
		{"description-hex", probe.CodeLeaksSecret, "tools[0].description: LEAKY_TOKEN", "(hex)"},
		{"description-hex-upper", probe.CodeLeaksSecret, "tools[0].description: LEAKY_TOKEN", "(hex)"},
		{"description-percent", probe.CodeLeaksSecret, "tools[0].description: LEAKY_TOKEN", "(percent-encoded)"},
		{"description-percent-lower", probe.CodeLeaksSecret, "tools[0].description: LEAKY_TOKEN", "(percent-encoded)"},
		{"description-split", probe.CodeLeaksSecret, "tools[0].description + tools[1].description: LEAKY_TOKEN", "(split)"},
		{"stderr", probe.CodeLeaksSecretStderr, "stderr: LEAKY_TOKEN", ""},
		{"stderr-early", probe.CodeLeaksSecretStderr, "stderr: LEAKY_TOKEN", ""},
		{"stderr-base64", probe.CodeLeaksSecretStderr, "stderr: LEAKY_TOKEN", "(base64)"},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			t.Parallel()
			res := probeLeaky(t, bin, tt.mode)
			var f *probe.Finding
			for i := range res.Findings {
				if res.Findings[i].Code == tt.code && strings.Contains(res.Findings[i].Value, tt.channel) {
					f = &res.Findings[i]
				}
			}
			if f == nil {
				t.Fatalf("no %s finding naming %q; status %s, findings:\n%s", tt.code, tt.channel, res.Liveness.Status, findingLines(res))
			}
			if tt.enc != "" && !strings.Contains(f.Value, tt.enc) {
				t.Errorf("finding value %q does not name %q", f.Value, tt.enc)
			}
			// The first launch's secrets go by their own names; only a
			// relaunch's are marked (one.go:270:9 and :276:9 `i > 0`
			// -> `>=` marked the first launch's "(launch 1)").
			if strings.Contains(f.Value, "(launch") {
				t.Errorf("finding value %q marks the first launch", f.Value)
			}
			checkNoCanaryInFindings(t, res, f)
			want := vocab.DecisionDrop
			if tt.code == probe.CodeLeaksSecretStderr {
				want = vocab.DecisionFix
			}
			if res.Verdict == nil || res.Verdict.Decision != want {
				t.Errorf("verdict = %+v, want %s", res.Verdict, want)
			}
		})
	}
	t.Run("no leak", func(t *testing.T) {
		t.Parallel()
		res := probeLeaky(t, bin, "")
		for _, f := range res.Findings {
			if f.Code == probe.CodeLeaksSecret || f.Code == probe.CodeLeaksSecretStderr {
				t.Errorf("finding without a leak: %+v", f)
			}
		}
		if res.Liveness.Status != vocab.StatusOK {
			t.Errorf("status %s: %s", res.Liveness.Status, res.Liveness.Detail)
		}
	})
}

func probeLeaky(t *testing.T, bin, mode string) *probe.Result {
	t.Helper()
	plan := vocab.Plan{Key: "leaky", Name: "leaky", Source: "test", Transport: vocab.TransportStdio, Command: bin,
		Env: map[string]string{"LEAKY_MODE": mode}, Secrets: []string{"LEAKY_TOKEN"}}
	o := fastOptions("none")
	o.Run.Inject = nil // the injected calls reach prompts/get, resources/read and tools/call
	o.Run.CallTimeout = 2 * time.Second
	res, err := Probe(context.Background(), &plan, o)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func findingLines(res *probe.Result) string {
	var b strings.Builder
	for _, f := range res.Findings {
		b.WriteString("  " + f.Code + " " + f.Subject + " " + f.Value + "\n")
	}
	return b.String()
}

// checkNoCanaryInFindings: no finding repeats a canary verbatim (other
// checks quote what the server sent, with canaries masked), and the leak
// finding does not repeat it hex-encoded either.
// canaryValue matches a whole canary (the probe's own near-miss names of
// a tool drop a character).
var canaryValue = regexp.MustCompile(`mcpvet-canary-[0-9a-f]{16}`)

func checkNoCanaryInFindings(t *testing.T, res *probe.Result, leak *probe.Finding) {
	t.Helper()
	b, _ := json.Marshal(res.Findings)
	if canaryValue.Match(b) {
		t.Errorf("a finding repeats the canary: %s", canaryValue.Find(b))
	}
	b, _ = json.Marshal(leak)
	if h := hex.EncodeToString([]byte("mcpvet-canary-")); strings.Contains(string(b), h) {
		t.Errorf("the leak finding repeats the canary in hex: %s", b)
	}
}
