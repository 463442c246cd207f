package sandbox

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpvet/mcpvet/vocab"
)

// TestBwrapCommand pins the bwrap command line built for a server: the
// namespaces, the root layout, the writable and masked binds, /dev, the
// status, block and seccomp fds, then the server's argv unchanged; and
// the mechanisms it claims before start.
func TestBwrapCommand(t *testing.T) {
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Skip("bwrap is not on PATH")
	}
	scratch, work := t.TempDir(), t.TempDir()
	db := filepath.Join(work, "mcpvet.db")
	for _, tc := range []struct {
		name         string
		allowNetwork bool
	}{{"no network", false}, {"network", true}} {
		t.Run(tc.name, func(t *testing.T) {
			s := &Server{
				plan: &vocab.Plan{Command: "true"}, argv: []string{"true", "--flag"}, env: []string{"PATH=/usr/bin:/bin", "SECRET=x"},
				exposed: []Exposure{{Path: scratch, Writable: true, Why: ExposeUserRW}, {Path: work, Why: ExposeCwd}},
				masked:  []string{db}, readOnly: []string{work}, workDir: work,
			}
			p, err := bwrapBackend{allowNetwork: tc.allowNetwork}.command(s)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				for _, f := range append(p.childFiles, p.parentFiles...) {
					f.Close()
				}
			})
			want := []string{"bwrap", "--unshare-all", "--die-with-parent", "--new-session", "--hostname", "mcpvet-sandbox"}
			wantMech := []string{"bwrap", "mountns", "pidns", "ipcns", "utsns"}
			if tc.allowNetwork {
				want = append(want, "--share-net")
			} else {
				wantMech = append(wantMech, "netns")
			}
			want = append(want, "--unshare-user", "--cap-drop", "ALL")
			if os.Geteuid() == 0 {
				want = append(want, "--uid", strconv.Itoa(sandboxUID), "--gid", strconv.Itoa(sandboxUID))
				wantMech = append(wantMech, "userns", "uid:"+strconv.Itoa(runUID(s.runID)))
			} else {
				wantMech = append(wantMech, "userns")
			}
			size := strconv.Itoa(sandboxTmpfsSize)
			want = append(want, "--size", size, "--tmpfs", "/tmp", "--size", size, "--perms", "0700", "--tmpfs", sandboxHome)
			binds, links := rootLayout(s)
			for _, b := range binds {
				want = append(want, "--ro-bind", b.Path, b.Path)
			}
			for _, l := range links {
				want = append(want, "--symlink", l.Target, l.Path)
			}
			want = append(want, "--bind", scratch, scratch, "--ro-bind", "/dev/null", db, "--proc", "/proc", "--tmpfs", "/dev")
			for _, d := range devices {
				want = append(want, "--dev-bind", "/dev/"+d, "/dev/"+d)
			}
			want = append(want, "--symlink", "/proc/self/fd", "/dev/fd", "--symlink", "/proc/self/fd/0", "/dev/stdin",
				"--symlink", "/proc/self/fd/1", "/dev/stdout", "--symlink", "/proc/self/fd/2", "/dev/stderr",
				"--perms", "1777", "--tmpfs", "/dev/shm", "--remount-ro", "/", "--chdir", work,
				"--json-status-fd", "3", "--block-fd", "4", "--seccomp", "5", "--", "true", "--flag")
			if os.Geteuid() == 0 {
				// As root, the stage helper binds the sources outside the
				// system folders into the run folder, drops to the run's uid
				// and execs bwrap (issue 22 item 1).
				bwrap, _ := exec.LookPath("bwrap")
				staged, srcs := stageBwrapSources(want[1:], s.runDir)
				if !slices.Contains(srcs, work) || !slices.Contains(srcs, scratch) {
					t.Errorf("staged sources %v, want %s and %s among them", srcs, work, scratch)
				}
				head := append([]string{bwrapStageArgv0, stageIdentity(runUID(s.runID), stageRlimits(s)), s.runDir, strconv.Itoa(len(srcs))}, srcs...)
				want = append(append(head, bwrap), staged...)
				if p.cmd.Path != "/proc/self/exe" || p.cmd.SysProcAttr == nil || p.cmd.SysProcAttr.Cloneflags&syscall.CLONE_NEWNS == 0 {
					t.Errorf("stage helper: path %q, attr %+v", p.cmd.Path, p.cmd.SysProcAttr)
				}
			}
			if diff := cmp.Diff(want, p.cmd.Args); diff != "" {
				t.Errorf("bwrap args (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(wantMech, p.mechanisms); diff != "" {
				t.Errorf("mechanisms (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(s.env, p.cmd.Env); diff != "" {
				t.Errorf("env (-want +got):\n%s", diff)
			}
			if p.cmd.Dir != "/" || len(p.cmd.ExtraFiles) != 3 || len(p.parentFiles) != 1 || p.release == nil || p.signal == nil || p.exitStatus == nil || !p.noGroupSignal {
				t.Errorf("process: Dir %q, %d extra files, %d parent files, release %v, signal %v, exitStatus %v, noGroupSignal %v",
					p.cmd.Dir, len(p.cmd.ExtraFiles), len(p.parentFiles), p.release != nil, p.signal != nil, p.exitStatus != nil, p.noGroupSignal)
			}
		})
	}
}

// TestBwrapCommandExecErrors: bwrap reports an exec failure only on its
// stderr, so the command is checked on the host first.
func TestBwrapCommandExecErrors(t *testing.T) {
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Skip("bwrap is not on PATH")
	}
	dir := t.TempDir()
	noExec := filepath.Join(dir, "noexec")
	if err := os.WriteFile(noExec, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		argv []string
		want error
	}{
		{"not on PATH", []string{"mcpvet-no-such-command"}, exec.ErrNotFound},
		{"missing", []string{filepath.Join(dir, "missing")}, os.ErrNotExist},
		{"not executable", []string{noExec}, syscall.EACCES},
		{"a folder", []string{dir}, syscall.EACCES},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &Server{plan: &vocab.Plan{}, argv: tc.argv, env: []string{"PATH=" + dir}}
			p, err := bwrapBackend{}.command(s)
			if p != nil || !errors.Is(err, tc.want) {
				t.Errorf("command = %v, %v, want error %v", p, err, tc.want)
			}
		})
	}
}

func TestBwrapNamespaceArgs(t *testing.T) {
	nobody := strconv.Itoa(sandboxUID)
	base := []string{"--unshare-all", "--die-with-parent", "--new-session", "--hostname", "mcpvet-sandbox"}
	user := []string{"--unshare-user", "--cap-drop", "ALL"}
	ns := []string{"bwrap", "mountns", "pidns", "ipcns", "utsns"}
	cat := func(parts ...[]string) []string {
		var out []string
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	for _, tc := range []struct {
		name          string
		network, root bool
		wantArgs      []string
		wantMech      []string
	}{
		{"user, no network", false, false, cat(base, user), cat(ns, []string{"netns", "userns"})},
		{"user, network", true, false, cat(base, []string{"--share-net"}, user), cat(ns, []string{"userns"})},
		{"root, no network", false, true, cat(base, user, []string{"--uid", nobody, "--gid", nobody}), cat(ns, []string{"netns", "userns"})},
		{"root, network", true, true, cat(base, []string{"--share-net"}, user, []string{"--uid", nobody, "--gid", nobody}), cat(ns, []string{"userns"})},
	} {
		args, mech := bwrapNamespaceArgs(tc.network, tc.root)
		if diff := cmp.Diff(tc.wantArgs, args); diff != "" {
			t.Errorf("%s: args (-want +got):\n%s", tc.name, diff)
		}
		if diff := cmp.Diff(tc.wantMech, mech); diff != "" {
			t.Errorf("%s: mechanisms (-want +got):\n%s", tc.name, diff)
		}
	}
}
