package sandbox

import (
	"encoding/binary"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpvet/mcpvet/internal/testfixture"
	"github.com/mcpvet/mcpvet/vocab"
)

// fakeHome makes a home folder reached through a symlink ($HOME = the
// link), holding credential and AI-client stores, with every folder and
// file readable by others (so that a refusal, not a permission, keeps them
// from a server running as the run's uid), and a project folder.
func fakeHome(t *testing.T) (link, real string) {
	t.Helper()
	base := t.TempDir()
	os.Chmod(filepath.Dir(base), 0o755)
	os.Chmod(base, 0o755)
	real = filepath.Join(base, "realhome")
	link = filepath.Join(base, "home-link")
	for rel, content := range map[string]string{
		".ssh/id_rsa":      "HOME-SECRET-SSH",
		".aws/credentials": "HOME-SECRET-AWS",
		".config/Claude/claude_desktop_config.json": "HOME-SECRET-CLAUDE-DESKTOP",
		".claude/.credentials.json":                 "HOME-SECRET-CLAUDE-CODE",
		".cursor/mcp.json":                          "HOME-SECRET-CURSOR",
		"proj/ok.txt":                               "PROJECT-OK",
	} {
		p := filepath.Join(real, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	filepath.Walk(real, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.IsDir() {
			os.Chmod(p, 0o755)
		}
		return nil
	})
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", link)
	return link, real
}

// TestCheckExposeResolvedHomes pins the refusals of issue 22 items 3, 4 and
// 5 on resolved paths: $HOME reached through a symlink, the stores named by
// their real folder, every home of the machine, the AI clients' stores,
// and the runtime folders. Before, every "real" row was allowed (the
// comparison used the unresolved $HOME), as were the AI stores, another
// user's home and /run/user/0.
func TestCheckExposeResolvedHomes(t *testing.T) {
	link, real := fakeHome(t)
	xdg := filepath.Join(filepath.Dir(real), "xdg-runtime")
	os.Mkdir(xdg, 0o700)
	t.Setenv("XDG_RUNTIME_DIR", xdg)
	refused := []string{
		real, real + "/", link,
		real + "/.ssh", real + "/.ssh/id_rsa", real + "/.aws/credentials",
		real + "/.config/Claude", real + "/.config/Claude/claude_desktop_config.json", real + "/.config",
		real + "/.claude", real + "/.claude/.credentials.json", link + "/.claude",
		real + "/.cursor", real + "/.codex", real + "/.gemini", real + "/.codeium", real + "/.config/zed", real + "/.config/Code/User",
		"/root/.ssh", "/root/.claude", "/root/.config/Claude",
		"/run/user/0", "/run/containerd", "/var/run/docker.sock", xdg, xdg + "/bus",
	}
	allowed := []string{real + "/proj", link + "/proj", real + "/proj/ok.txt"}
	if os.Geteuid() == 0 {
		// Another user's home: as root every /home/* is reachable.
		other, err := os.MkdirTemp("/home", "i22-other-")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(other) })
		os.MkdirAll(filepath.Join(other, ".ssh"), 0o700)
		os.MkdirAll(filepath.Join(other, "proj"), 0o755)
		refused = append(refused, other, other+"/.ssh", other+"/.ssh/id_ed25519")
		allowed = append(allowed, other+"/proj")
	}
	for _, p := range refused {
		if err := CheckExpose(p, nil); err == nil {
			t.Errorf("CheckExpose(%s) = nil, want a refusal", p)
		}
	}
	for _, p := range allowed {
		if err := CheckExpose(p, nil); err != nil {
			t.Errorf("CheckExpose(%s) = %v, want nil", p, err)
		}
	}
}

// TestResolvedHomeStaysHidden launches the hostile-host fixture under every
// isolating backend with $HOME a symlink and a config naming the real home
// as cwd and the AI stores as --flag=VALUE arguments (issue 22 items 3 and
// 4): before, the server read ~/.ssh, ~/.aws and the Claude, Claude Code
// and Cursor stores. Only the project folder, exposed with --expose, is
// readable.
func TestResolvedHomeStaysHidden(t *testing.T) {
	// Built before $HOME moves: go build keeps its caches under $HOME.
	bin := testfixture.Build(t, "hostile-host")["hostile-host"]
	_, real := fakeHome(t)
	args := []string{
		"--config=" + real + "/.config/Claude/claude_desktop_config.json",
		"--credentials=" + real + "/.claude/.credentials.json",
		"--cursor=" + real + "/.cursor",
	}
	for _, f := range []string{".ssh/id_rsa", ".aws/credentials", ".config/Claude/claude_desktop_config.json", ".claude/.credentials.json", ".cursor/mcp.json", "proj/ok.txt"} {
		args = append(args, "read:"+filepath.Join(real, f))
	}
	for _, backend := range isolatingTestBackends(t) {
		t.Run(backend, func(t *testing.T) {
			plan := &vocab.Plan{Key: "hh", Name: "hh", Transport: vocab.TransportStdio, Command: bin, Dir: real, Args: args}
			opts := testOptions(backend)
			opts.Expose = []string{filepath.Join(real, "proj")}
			s := launch(t, plan, opts, "")
			cs := clientSession(t, s)
			out := callTool(t, cs, "report")
			cs.Close()
			if strings.Contains(out, "HOME-SECRET") {
				t.Errorf("the server read a home secret:\n%s\nexposed %v", out, exposedPathsOf(s.Info(0)))
			}
			if !strings.Contains(out, "PROJECT-OK") {
				t.Errorf("the --expose'd project is not readable:\n%s", out)
			}
		})
	}
}

// mcpvetDBBytes is a 4 KiB file with an SQLite header carrying appID.
func mcpvetDBBytes(appID uint32, marker string) []byte {
	b := make([]byte, 4096)
	copy(b, "SQLite format 3\x00")
	binary.BigEndian.PutUint32(b[68:], appID)
	copy(b[100:], marker)
	return b
}

// TestSocketsAndDatabasesMasked exposes a folder holding a 0666 and a 0600
// Unix socket, the results database named through a symlinked folder
// (with its -wal), an older mcpvet database and another program's SQLite
// file (issue 22 items 5 and 7). Before, builtin connected to the 0666
// socket (and bwrap as root to the 0600 one), and the server read "SQLite
// format 3" of both mcpvet databases. Now the sockets and both databases
// are masked; the other program's file stays readable.
func TestSocketsAndDatabasesMasked(t *testing.T) {
	bin := testfixture.Build(t, "hostile-host")["hostile-host"]
	base := t.TempDir()
	os.Chmod(filepath.Dir(base), 0o755)
	os.Chmod(base, 0o755)
	work := filepath.Join(base, "work")
	os.MkdirAll(filepath.Join(work, "old"), 0o755)
	link := filepath.Join(base, "work-link")
	os.Symlink(work, link)
	db := filepath.Join(work, "mcpvet.db")
	os.WriteFile(db, mcpvetDBBytes(0x6d637076, "CURRENT-DB-ROWS"), 0o644)
	os.WriteFile(db+"-wal", []byte("CURRENT-DB-WAL"), 0o644)
	old := filepath.Join(work, "old", "scan-2025.sqlite")
	os.WriteFile(old, mcpvetDBBytes(0x6d637076, "OLD-DB-ROWS"), 0o644)
	other := filepath.Join(work, "other.db")
	os.WriteFile(other, mcpvetDBBytes(0, "OTHER-PROGRAM-DB"), 0o644)
	var socks []string
	for _, mode := range []os.FileMode{0o666, 0o600} {
		sock := filepath.Join(work, "daemon-"+mode.String()[1:]+".sock")
		l, err := net.Listen("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		os.Chmod(sock, mode)
		go func() {
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				c.Close()
			}
		}()
		socks = append(socks, sock)
	}
	args := []string{"read:" + db, "read:" + db + "-wal", "read:" + old, "read:" + other}
	for _, s := range socks {
		args = append(args, "connect:"+s)
	}
	for _, backend := range isolatingTestBackends(t) {
		t.Run(backend, func(t *testing.T) {
			plan := &vocab.Plan{Key: "hh", Name: "hh", Transport: vocab.TransportStdio, Command: bin, Dir: work, Args: args}
			opts := testOptions(backend)
			opts.Hidden = []string{filepath.Join(link, "mcpvet.db")}
			s := launch(t, plan, opts, "")
			cs := clientSession(t, s)
			out := callTool(t, cs, "report")
			cs.Close()
			for _, bad := range []string{"CURRENT-DB", "OLD-DB-ROWS", ": connected"} {
				if strings.Contains(out, bad) {
					t.Errorf("report holds %q:\n%s", bad, out)
				}
			}
			if !strings.Contains(out, "OTHER-PROGRAM-DB") {
				t.Errorf("another program's SQLite file should stay readable:\n%s", out)
			}
		})
	}
}
