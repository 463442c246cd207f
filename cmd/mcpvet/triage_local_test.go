package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpvet/mcpvet/internal/testenv"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpvet/mcpvet/internal/testfixture"
	"github.com/mcpvet/mcpvet/results"
	"github.com/mcpvet/mcpvet/results/report"
)

// portfolio is the servers of the done-when config, as paths on this
// machine.
type portfolio struct {
	notesDir string // the folder handed to server-filesystem
	l        *testfixture.Local
}

// The pinned real servers, as configs name them.
const (
	memorySpec     = "@modelcontextprotocol/server-memory@2026.1.26"
	filesystemSpec = "@modelcontextprotocol/server-filesystem@2026.1.14"
)

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// forms writes the same five servers the way each client writes them and
// returns the config paths by client.
func (p *portfolio) forms(t *testing.T) map[string]string {
	l := p.l
	dir := t.TempDir()
	write := func(rel, content string) string {
		path := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	nodeIndex := filepath.Join(l.NodeDir, "index.js")
	pyServer := filepath.Join(l.PyDir, "server.py")
	q := jsonString
	out := map[string]string{}
	out["Claude Desktop"] = write("Claude/claude_desktop_config.json", fmt.Sprintf(`{
  "mcpServers": {
    "memory": {
      "command": "npx",
      "args": ["-y", %s]
    },
    "filesystem": {
      "command": "npx",
      "args": [
        "-y",
        %s,
        %s
      ]
    },
    "notes": {
      "command": "node",
      "args": [%s]
    },
    "wordcount": {
      "command": "python3",
      "args": [%s]
    },
    "localmcp": {
      "command": %s
    }
  }
}
`, q(memorySpec), q(filesystemSpec), q(p.notesDir), q(nodeIndex), q(pyServer), q(l.VenvScript)))
	// VS Code: the workspace config of the node project, with
	// ${workspaceFolder}.
	vscode := fmt.Sprintf(`{
  "servers": {
    "memory": {"type": "stdio", "command": "npx", "args": ["-y", %s]},
    "filesystem": {"type": "stdio", "command": "npx", "args": ["-y", %s, %s]},
    "notes": {"type": "stdio", "command": "node", "args": ["${workspaceFolder}/index.js"]},
    "wordcount": {"type": "stdio", "command": "python3", "args": [%s]},
    "localmcp": {"type": "stdio", "command": %s},
  },
  "inputs": []
}
`, q(memorySpec), q(filesystemSpec), q(p.notesDir), q(pyServer), q(l.VenvScript))
	vsPath := filepath.Join(l.NodeDir, ".vscode", "mcp.json")
	if err := os.MkdirAll(filepath.Dir(vsPath), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(vsPath, []byte(vscode), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(filepath.Dir(vsPath)) })
	out["VS Code"] = vsPath
	out["Cursor"] = write(".cursor/mcp.json", fmt.Sprintf(`{
  "mcpServers": {
    "memory": {"command": "npx", "args": ["-y", %s], "env": {}},
    "filesystem": {"command": "npx", "args": ["-y", %s, %s], "env": {}},
    "notes": {"command": "node", "args": [%s], "env": {}},
    "wordcount": {"command": "python3", "args": [%s], "env": {}},
    "localmcp": {"command": %s, "args": [], "env": {}}
  }
}
`, q(memorySpec), q(filesystemSpec), q(p.notesDir), q(nodeIndex), q(pyServer), q(l.VenvScript)))
	// Claude Code: user servers, and per-project ones run in their project.
	out["Claude Code"] = write(".claude.json", fmt.Sprintf(`{
  "numStartups": 12,
  "mcpServers": {
    "memory": {"type": "stdio", "command": "npx", "args": ["-y", %s], "env": {}},
    "filesystem": {"type": "stdio", "command": "npx", "args": ["-y", %s, %s], "env": {}}
  },
  "projects": {
    %s: {
      "allowedTools": [],
      "mcpServers": {"notes": {"type": "stdio", "command": "node", "args": ["index.js"], "env": {}}}
    },
    %s: {
      "allowedTools": [],
      "mcpServers": {
        "wordcount": {"type": "stdio", "command": "python3", "args": ["server.py"], "env": {}},
        "localmcp": {"type": "stdio", "command": %s, "args": [], "env": {}}
      }
    }
  }
}
`, q(memorySpec), q(filesystemSpec), q(p.notesDir), q(l.NodeDir), q(l.PyDir), q(l.VenvScript)))
	out["Codex CLI"] = write(".codex/config.toml", fmt.Sprintf(`model = "gpt-5-codex"

[mcp_servers.memory]
command = "npx"
args = ["-y", %s]

[mcp_servers.filesystem]
command = "npx"
args = ["-y", %s, %s]

[mcp_servers.notes]
command = "node"
args = ["index.js"]
cwd = %s

[mcp_servers.wordcount]
command = "python3"
args = [%s]

[mcp_servers.localmcp]
command = %s
startup_timeout_sec = 20
`, q(memorySpec), q(filesystemSpec), q(p.notesDir), q(l.NodeDir), q(pyServer), q(l.VenvScript)))
	out["Zed"] = write("zed/settings.json", fmt.Sprintf(`// Zed settings
{
  "theme": "One Dark",
  "context_servers": {
    "memory": {"source": "custom", "command": "npx", "args": ["-y", %s], "env": {}},
    "filesystem": {"source": "custom", "command": "npx", "args": ["-y", %s, %s], "env": {}},
    "notes": {"command": {"path": "node", "args": [%s], "env": {}}, "settings": {}},
    "wordcount": {"source": "custom", "command": "python3", "args": [%s]},
    "localmcp": {"source": "custom", "command": %s, "args": []}
  }
}
`, q(memorySpec), q(filesystemSpec), q(p.notesDir), q(nodeIndex), q(pyServer), q(l.VenvScript)))
	return out
}

// TestTriageLocalPortfolio is the done-when test: a Claude Desktop
// config with two `npx -y` entries of pinned real servers (memory, and
// filesystem given a folder), a two-file local node project, a python
// script in a project folder and a venv with a local package. All complete
// the handshake under the default sandbox without --allow-network, and the
// same config in VS Code, Cursor, Claude Code, Codex (TOML) and Zed form
// gives the same result. The 80-column table fits and keeps its hints.
func TestTriageLocalPortfolio(t *testing.T) {
	if testing.Short() {
		t.Skip("installs npm packages and probes real servers")
	}
	if _, err := exec.LookPath("npm"); err != nil {
		testenv.Need(t, "npm is not installed")
	}
	cache, err := filepath.Abs(filepath.Join("..", "..", ".cache", "mcpvet"))
	if err != nil {
		t.Fatal(err)
	}
	p := &portfolio{l: testfixture.LocalServers(t)}
	p.notesDir = filepath.Join(p.l.Root, "Documents", "notes")
	if err := os.MkdirAll(p.notesDir, 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chmod(filepath.Dir(p.notesDir), 0o755)
	if err := os.WriteFile(filepath.Join(p.notesDir, "todo.md"), []byte("- triage\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	forms := p.forms(t)
	type outcome struct {
		Status    string
		Handshake bool
	}
	var reference map[string]outcome
	var referenceTriage *results.Triage
	for _, client := range []string{"Claude Desktop", "VS Code", "Cursor", "Claude Code", "Codex CLI", "Zed"} {
		t.Run(strings.ReplaceAll(client, " ", "_"), func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "mcpvet.db")
			code, stdout, stderr := runReportCLI("triage", forms[client], "--db", db, "--cache-dir", cache, "--format", "json",
				"--no-inject", "--concurrency", "2", "-q")
			if code != exitOK {
				t.Fatalf("exit %d; stderr:\n%s", code, stderr)
			}
			var tr results.Triage
			if err := json.Unmarshal([]byte(stdout), &tr); err != nil {
				t.Fatalf("%v\n%s", err, stdout)
			}
			got := map[string]outcome{}
			for _, s := range tr.Servers {
				got[s.Name] = outcome{Status: string(s.Status), Handshake: s.Status == "ok"}
				if s.Status != "ok" {
					t.Errorf("%s: %s: %v (next step: %s)", s.Name, s.Status, s.Reasons, s.NextStep)
				}
			}
			if len(got) != 5 {
				t.Errorf("servers = %v, want 5", got)
			}
			if reference == nil {
				reference, referenceTriage = got, &tr
				return
			}
			if diff := cmp.Diff(reference, got); diff != "" {
				t.Errorf("%s differs from Claude Desktop (-want +got):\n%s", client, diff)
			}
		})
	}
	if referenceTriage == nil {
		return
	}
	var b bytes.Buffer
	if err := report.WriteTriage(&b, referenceTriage, "table", &report.TriageOptions{Width: 80}); err != nil {
		t.Fatal(err)
	}
	t.Logf("80-column table:\n%s", b.String())
	for line := range strings.SplitSeq(b.String(), "\n") {
		if n := len([]rune(line)); n > 80 {
			t.Errorf("line of %d columns: %q", n, line)
		}
		if strings.Contains(line, "…") {
			t.Errorf("cut line: %q", line)
		}
	}
}
