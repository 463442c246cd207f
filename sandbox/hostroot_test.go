package sandbox

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpvet/mcpvet/internal/testenv"
	"github.com/mcpvet/mcpvet/internal/testfixture"
	"github.com/mcpvet/mcpvet/vocab"
)

// plantRootOnly makes a world-readable folder holding a root-only 0600
// file and a listening 0600 Unix socket, and a world-writable scratch
// folder, as a shared machine or CI runner has them.
func plantRootOnly(t *testing.T) (dir, secret, sock, scratch string) {
	t.Helper()
	base := t.TempDir()
	os.Chmod(filepath.Dir(base), 0o755) // t.TempDir's parent is 0700
	os.Chmod(base, 0o755)
	dir = filepath.Join(base, "project")
	scratch = filepath.Join(base, "scratch")
	for _, d := range []string{dir, scratch} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.Chmod(scratch, 0o777)
	secret = filepath.Join(dir, "root-only.key")
	if err := os.WriteFile(secret, []byte("ROOT-ONLY-SECRET"), 0o600); err != nil {
		t.Fatal(err)
	}
	sock = filepath.Join(dir, "daemon.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	os.Chmod(sock, 0o600)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	return dir, secret, sock, scratch
}

// TestServerNeverHostRoot runs mcpvet as root (issue 22 item 1): under
// bwrap the server's "nobody" was host root (uid_map "65534 0 1"), read
// root-only 0600 files in any exposed folder and left a setuid-root copy of
// a program in an --expose-rw folder. Under every isolating backend the
// server must now read no root-only file and leave no set-id file and no
// root-owned file on the host, and the writable folder is nosuid,nodev.
func TestServerNeverHostRoot(t *testing.T) {
	if os.Geteuid() != 0 {
		testenv.Need(t, "the test is about mcpvet run as root")
	}
	bin := testfixture.Build(t, "hostile-host")["hostile-host"]
	for _, backend := range isolatingTestBackends(t) {
		t.Run(backend, func(t *testing.T) {
			dir, secret, _, scratch := plantRootOnly(t)
			plan := &vocab.Plan{Key: "hh", Name: "hh", Transport: vocab.TransportStdio, Command: bin, Dir: dir,
				Args: []string{"uidmap", "read:" + secret, "setid:" + scratch, "mount:" + scratch}}
			opts := testOptions(backend)
			opts.ExposeRW = []string{scratch}
			s := launch(t, plan, opts, "")
			cs := clientSession(t, s)
			out := callTool(t, cs, "report")
			cs.Close()
			s.Close()
			t.Logf("report:\n%s", out)
			if strings.Contains(out, "ROOT-ONLY-SECRET") {
				t.Errorf("the server read a root-only file:\n%s", out)
			}
			if !strings.Contains(out, "plain ok") {
				t.Errorf("the server could not write to its --expose-rw folder:\n%s", out)
			}
			for _, l := range strings.Split(out, "\n") {
				if strings.HasPrefix(l, "mount:") && (!strings.Contains(l, "nosuid") || !strings.Contains(l, "nodev")) {
					t.Errorf("writable folder mounted without nosuid,nodev: %s", l)
				}
			}
			// The host's view of what the server left behind.
			ents, err := os.ReadDir(scratch)
			if err != nil {
				t.Fatal(err)
			}
			if len(ents) == 0 {
				t.Fatal("the server left nothing in its writable folder: the attack did not run")
			}
			for _, e := range ents {
				fi, err := os.Lstat(filepath.Join(scratch, e.Name()))
				if err != nil {
					t.Fatal(err)
				}
				st := fi.Sys().(*syscall.Stat_t)
				if fi.Mode()&(os.ModeSetuid|os.ModeSetgid) != 0 {
					t.Errorf("host: %s is %v (uid %d): a set-id file left by the server", e.Name(), fi.Mode(), st.Uid)
				}
				if st.Uid == 0 || st.Gid == 0 {
					t.Errorf("host: %s is owned by %d:%d, want the run's unprivileged uid", e.Name(), st.Uid, st.Gid)
				}
			}
			_ = time.Second
		})
	}
}
