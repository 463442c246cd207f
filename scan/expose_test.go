package scan

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpvet/mcpvet/internal/testenv"

	"github.com/mcpvet/mcpvet/sandbox"
	"github.com/mcpvet/mcpvet/vocab"
)

// TestUnexposedPathNamed runs a node server whose project is visible but
// whose data file (a lone file outside any project) is not: the run ends
// exited_early and the detail names the file and the flag that shows it;
// with --expose the same server starts.
func TestUnexposedPathNamed(t *testing.T) {
	if testing.Short() {
		t.Skip("launches node in the sandbox")
	}
	if _, err := exec.LookPath("node"); err != nil {
		testenv.Need(t, "node is not installed")
	}
	root := t.TempDir()
	proj := filepath.Join(root, "proj")
	data := filepath.Join(root, "data", "seed.json")
	for _, d := range []string{root, proj, filepath.Dir(data)} {
		os.MkdirAll(d, 0o755)
		os.Chmod(d, 0o755)
	}
	os.Chmod(filepath.Dir(root), 0o755)
	os.WriteFile(filepath.Join(proj, "package.json"), []byte(`{"name": "reader", "version": "1.0.0"}`), 0o644)
	os.WriteFile(data, []byte(`{}`), 0o644)
	// Reads its seed file at startup, as servers read a config or a DB.
	os.WriteFile(filepath.Join(proj, "server.js"), []byte(`const fs = require('fs');
fs.readFileSync(process.argv[2]);
process.stdin.on('data', (d) => {
  for (const line of d.toString().split('\n').filter(Boolean)) {
    const m = JSON.parse(line);
    if (m.id === undefined) continue;
    const result = m.method === 'initialize' ? {protocolVersion: m.params.protocolVersion, capabilities: {}, serverInfo: {name: 'reader', version: '1.0.0'}} : {};
    process.stdout.write(JSON.stringify({jsonrpc: '2.0', id: m.id, result}) + '\n');
  }
});
`), 0o644)
	plan := vocab.Plan{Key: "reader", Name: "reader", Source: "test", Transport: vocab.TransportStdio,
		Command: "node", Args: []string{filepath.Join(proj, "server.js"), data}}
	opts := fastOptions("auto")
	opts.Sandbox.WorkDir = proj
	res, err := Probe(context.Background(), &plan, opts)
	if err != nil {
		t.Fatal(err)
	}
	if res.Liveness.Status != vocab.StatusExitedEarly || !strings.Contains(res.Liveness.Detail, "pass --expose "+data) {
		t.Fatalf("liveness %s: %s", res.Liveness.Status, res.Liveness.Detail)
	}
	opts.Sandbox.Expose = []string{data}
	res, err = Probe(context.Background(), &plan, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Liveness.HandshakeCompleted {
		t.Fatalf("with --expose: %s: %s", res.Liveness.Status, res.Liveness.Detail)
	}
	found := false
	for _, e := range res.Target.Isolation.Exposed {
		found = found || (e.Path == data && e.Why == sandbox.ExposeUser)
	}
	if !found {
		t.Errorf("isolation.exposed = %+v, want %s (expose)", res.Target.Isolation.Exposed, data)
	}
}
