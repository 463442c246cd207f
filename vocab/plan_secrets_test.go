package vocab

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPlanStoredAndRestored(t *testing.T) {
	cfg := Plan{Key: "config:c.json#gh", Name: "gh", Source: "config:c.json", Transport: TransportStdio, Command: "gh-mcp",
		Env: map[string]string{"GITHUB_TOKEN": "ghp_secretvalue123456"}, Headers: map[string]string{"Authorization": "Bearer x-secret-1"}}
	st := cfg.Stored()
	b, _ := json.Marshal(st)
	if strings.Contains(string(b), "secretvalue") || strings.Contains(string(b), "x-secret-1") {
		t.Fatalf("stored plan holds a value: %s", b)
	}
	want := map[string]string{"env:GITHUB_TOKEN": "config:c.json", "header:Authorization": "config:c.json"}
	if diff := cmp.Diff(want, st.SecretFrom); diff != "" {
		t.Errorf("SecretFrom (-want +got):\n%s", diff)
	}
	if cfg.Env["GITHUB_TOKEN"] == "" {
		t.Error("Stored changed the original plan")
	}
	var back Plan
	_ = json.Unmarshal(b, &back)
	if err := back.Restore(&cfg); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(cfg.Env, back.Env); diff != "" || back.Headers["Authorization"] != "Bearer x-secret-1" || back.SecretFrom != nil {
		t.Errorf("restored plan differs: %+v", back)
	}
	_ = json.Unmarshal(b, &back)
	err := back.Restore(&Plan{Env: map[string]string{"GITHUB_TOKEN": "x"}})
	if err == nil || !strings.Contains(err.Error(), "header Authorization") || !strings.Contains(err.Error(), "put it back in c.json") {
		t.Errorf("Restore without the header = %v", err)
	}

	cli := Plan{Source: "cli", URL: "https://u:pw@example.com/mcp", Headers: map[string]string{"X-Api-Key": "k-123456789"}}
	st = cli.Stored()
	if st.URL != "https://example.com/mcp" || st.SecretFrom["header:X-Api-Key"] != "flag:--header" || st.Headers["X-Api-Key"] != "" {
		t.Errorf("stored cli plan = %+v", st)
	}
	reg := Plan{Source: "registry", Env: map[string]string{"LOG_LEVEL": "info"},
		ServerJSON: json.RawMessage(`{"remotes":[{"url":"https://u:pw@example.com/mcp"}]}`)}
	st = reg.Stored()
	if st.Env["LOG_LEVEL"] != "info" || st.SecretFrom != nil || strings.Contains(string(st.ServerJSON), "pw@") {
		t.Errorf("stored registry plan = %+v (%s)", st, st.ServerJSON)
	}
}
