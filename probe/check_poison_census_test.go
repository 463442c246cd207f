package probe

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/mcpvet/mcpvet/internal/safe"
	"github.com/mcpvet/mcpvet/internal/testenv"
)

// registryTexts reads every description and title string of the registry
// dumps in ../shared/registry (server, environment variable, argument and
// header descriptions), keyed "FILE#INDEX NAME POINTER".
func registryTexts(t *testing.T) []textField {
	t.Helper()
	var out []textField
	for _, file := range []string{"servers.json", "seed_2025_05_16.json", "seed.json"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "shared", "registry", file))
		if err != nil {
			testenv.Need(t, fmt.Sprintf("registry dump not available: %v", err))
		}
		b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
		var entries []json.RawMessage
		if err := json.Unmarshal(b, &entries); err != nil {
			var wrapped struct {
				Servers []json.RawMessage `json:"servers"`
			}
			if err2 := json.Unmarshal(b, &wrapped); err2 != nil {
				t.Fatalf("%s: %v", file, err)
			}
			entries = wrapped.Servers
		}
		for i, e := range entries {
			var v any
			_ = json.Unmarshal(e, &v)
			name := ""
			if m, ok := v.(map[string]any); ok {
				if s, ok := m["server"].(map[string]any); ok {
					name, _ = s["name"].(string)
				} else {
					name, _ = m["name"].(string)
				}
			}
			walkAny(v, "", func(ptr, s string) {
				out = append(out, textField{subject: fmt.Sprintf("%s#%d %s", file, i, name), pointer: ptr, text: s,
					name: false})
			})
		}
	}
	return out
}

func walkAny(v any, ptr string, fn func(ptr, s string)) {
	switch x := v.(type) {
	case map[string]any:
		for k, c := range x {
			p := ptr + "/" + k
			if s, ok := c.(string); ok && (k == "description" || k == "title") {
				fn(p, s)
				continue
			}
			walkAny(c, p, fn)
		}
	case []any:
		for i, c := range x {
			walkAny(c, fmt.Sprintf("%s/%d", ptr, i), fn)
		}
	}
}

// TestPoisonRegistryCensus runs the poison checks on every description
// and title in the registry dumps (server descriptions, environment
// variable, argument and header descriptions: 11,042 texts of real
// servers, none written for mcpvet) and logs each hit. None of these
// texts is poisoned, so every hit would be a false finding: the test
// fails on any. Run with -v to see the count per code.
func TestPoisonRegistryCensus(t *testing.T) {
	fields := registryTexts(t)
	counts := map[string]int{}
	var lines []string
	for _, f := range fields {
		for _, fd := range poisonText(f, nil) {
			counts[fd.Code]++
			lines = append(lines, fmt.Sprintf("%s %s %s: %q | %s", fd.Code, f.subject, f.pointer, fd.Value, safe.Truncate(f.text, 300, safe.Ellipsis)))
		}
	}
	sort.Strings(lines)
	var codes []string
	for c, n := range counts {
		codes = append(codes, fmt.Sprintf("%s=%d", c, n))
	}
	sort.Strings(codes)
	t.Logf("%d registry texts checked; hits per code: %s", len(fields), strings.Join(codes, " "))
	for _, l := range lines {
		t.Errorf("false finding on registry text: %s", l)
	}
}
