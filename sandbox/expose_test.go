package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpvet/mcpvet/internal/testenv"

	"github.com/mcpvet/mcpvet/internal/testfixture"
	"github.com/mcpvet/mcpvet/vocab"
)

func isolatingTestBackends(t *testing.T) []string {
	var out []string
	for _, b := range testBackends(t) {
		if b != BackendNone {
			out = append(out, b)
		}
	}
	if len(out) == 0 {
		testenv.Need(t, "no isolating backend works here")
	}
	return out
}

// exposedPathsOf lists Info.Exposed as "why:path".
func exposedPathsOf(info Info) []string {
	var out []string
	for _, e := range info.Exposed {
		s := e.Why + ":" + e.Path
		if e.Writable {
			s += " (rw)"
		}
		out = append(out, s)
	}
	return out
}

// TestLocalServersStart runs local servers as their configs start them:
// a node project from its folder, a script by absolute path from
// elsewhere, a python script importing its sibling through the pyenv shim
// on PATH, and a venv's console script and module. Before, each exited
// early ("Cannot find module", "can't open file", "No such file").
func TestLocalServersStart(t *testing.T) {
	l := testfixture.LocalServers(t)
	elsewhere := t.TempDir()
	os.Chmod(elsewhere, 0o755)
	cases := []struct {
		name    string
		plan    vocab.Plan
		workDir string
		want    []string // entries of Info.Exposed
	}{
		{name: "node project cwd", plan: vocab.Plan{Command: "node", Args: []string{"index.js"}, Dir: l.NodeDir},
			want: []string{"cwd:" + l.NodeDir}},
		{name: "node script by path", plan: vocab.Plan{Command: "node", Args: []string{filepath.Join(l.NodeDir, "index.js")}}, workDir: elsewhere,
			want: []string{"cwd:" + elsewhere, "project:" + l.NodeDir}},
		{name: "python script in project", plan: vocab.Plan{Command: "python3", Args: []string{filepath.Join(l.PyDir, "server.py")}}, workDir: elsewhere,
			want: []string{"cwd:" + elsewhere, "project:" + l.PyDir}},
		{name: "venv console script", plan: vocab.Plan{Command: l.VenvScript}, workDir: elsewhere,
			want: []string{"cwd:" + elsewhere, "prefix:" + l.Venv}},
		{name: "venv python -m", plan: vocab.Plan{Command: filepath.Join(l.Venv, "bin", "python"), Args: []string{"-m", "localmcp"}}, workDir: elsewhere,
			want: []string{"cwd:" + elsewhere, "prefix:" + l.Venv}},
	}
	for _, backend := range isolatingTestBackends(t) {
		for _, tc := range cases {
			t.Run(backend+"/"+tc.name, func(t *testing.T) {
				plan := tc.plan
				plan.Transport, plan.Key, plan.Name = vocab.TransportStdio, tc.name, tc.name
				opts := testOptions(backend)
				opts.WorkDir = tc.workDir
				s := launch(t, &plan, opts, "")
				cs := clientSession(t, s)
				defer cs.Close()
				info := s.Info(0)
				got := exposedPathsOf(info)
				for _, w := range tc.want {
					if !slices.Contains(got, w) {
						t.Errorf("Exposed = %v, want %s among them", got, w)
					}
				}
				wantDir := tc.workDir
				if plan.Dir != "" {
					wantDir = plan.Dir
				}
				if info.WorkDir != wantDir {
					t.Errorf("WorkDir = %q, want %q", info.WorkDir, wantDir)
				}
			})
		}
	}
}

// TestExposeRefusesCredentials names credential stores in argv and with
// --expose: they are refused with a warning and stay unreadable, while a
// project folder named the same way is readable.
func TestExposeRefusesCredentials(t *testing.T) {
	bins := testfixture.Build(t, "hostile-readfile")
	home := t.TempDir()
	t.Setenv("HOME", home)
	write := func(rel, content string) string {
		p := filepath.Join(home, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	sshKey := write(".ssh/id_ed25519", "SSH-KEY-SECRET")
	awsCreds := write(".aws/credentials", "AWS-SECRET")
	gh := write(".config/gh/hosts.yml", "GH-TOKEN-SECRET")
	notes := write("proj/notes.txt", "PROJECT-NOTES")
	for d := home; strings.HasPrefix(d, os.TempDir()+"/"); d = filepath.Dir(d) {
		os.Chmod(d, 0o755)
	}
	for _, backend := range isolatingTestBackends(t) {
		t.Run(backend, func(t *testing.T) {
			plan := &vocab.Plan{Key: "readfile", Name: "readfile", Transport: vocab.TransportStdio, Command: bins["hostile-readfile"],
				Args: []string{"--config-dir=" + filepath.Join(home, ".aws"), filepath.Join(home, ".ssh"), filepath.Join(home, ".config"),
					sshKey, awsCreds, gh, notes}}
			opts := testOptions(backend)
			opts.WorkDir = home // refused too: $HOME itself
			opts.Expose = []string{filepath.Join(home, ".ssh"), filepath.Join(home, "proj")}
			s := launch(t, plan, opts, "")
			cs := clientSession(t, s)
			out := callTool(t, cs, "report")
			cs.Close()
			for _, p := range []string{sshKey, awsCreds, gh} {
				if !strings.Contains(out, p+": denied") {
					t.Errorf("%s readable:\n%s", p, out)
				}
			}
			if !strings.Contains(out, notes+`: read "PROJECT-NOTES"`) {
				t.Errorf("the exposed project is not readable:\n%s", out)
			}
			info := s.Info(0)
			// The program run lies in no project: its own folder is
			// exposed as its project (issue 27), nothing of $HOME but the
			// named project.
			want := []string{"expose:" + filepath.Join(home, "proj"), "script-dir:" + filepath.Dir(bins["hostile-readfile"])}
			if got := exposedPathsOf(info); !slices.Equal(got, want) {
				t.Errorf("Exposed = %v, want %v", got, want)
			}
			warns := strings.Join(info.Refused, "\n")
			for _, want := range []string{"~/.ssh is a credential store", "~/.aws is a credential store", "holds the credential store ~/.config/gcloud", "$HOME holds your credentials"} {
				if !strings.Contains(warns, want) {
					t.Errorf("warnings lack %q:\n%s", want, warns)
				}
			}
			if info.WorkDir != "" {
				t.Errorf("WorkDir = %q, want the private HOME", info.WorkDir)
			}
		})
	}
}

func TestCheckExpose(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	db := filepath.Join(t.TempDir(), "mcpvet.db")
	tests := []struct {
		path string
		want string // part of the reason, "" when allowed
	}{
		{"/", "whole file system"},
		{"/tmp", "top-level folder"},
		{home, "$HOME holds your credentials"},
		{filepath.Join(home, ".ssh"), "~/.ssh is a credential store"},
		{filepath.Join(home, ".ssh", "id_rsa"), "~/.ssh is a credential store"},
		{filepath.Join(home, ".netrc"), "~/.netrc is a credential store"},
		{filepath.Join(home, ".config"), "holds the credential store ~/.config/gcloud"},
		{filepath.Dir(home), "holds the credential store"},
		{db, "results database"},
		{filepath.Join(home, "src", "proj"), ""},
		{filepath.Join(home, ".config", "myapp"), ""},
	}
	for _, tc := range tests {
		err := CheckExpose(tc.path, []string{db})
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("CheckExpose(%s) = %v, want allowed", tc.path, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("CheckExpose(%s) = %v, want %q", tc.path, err, tc.want)
		}
	}
}

// TestExposeRWAndMaskedDB gives a writable scratch folder, and checks that
// the results database inside the exposed working directory is masked.
func TestExposeRWAndMaskedDB(t *testing.T) {
	bins := testfixture.Build(t, "hostile-readfile")
	work := t.TempDir()
	scratch := t.TempDir()
	for _, d := range []string{work, scratch, filepath.Dir(work), filepath.Dir(scratch)} {
		os.Chmod(d, 0o777)
	}
	db := filepath.Join(work, "mcpvet.db")
	if err := os.WriteFile(db, []byte("DB-CONTENT-SECRET"), 0o644); err != nil {
		t.Fatal(err)
	}
	readme := filepath.Join(work, "README")
	os.WriteFile(readme, []byte("readme"), 0o644)
	for _, backend := range isolatingTestBackends(t) {
		t.Run(backend, func(t *testing.T) {
			plan := &vocab.Plan{Key: "rf", Name: "rf", Transport: vocab.TransportStdio, Command: bins["hostile-readfile"], Args: []string{db, readme}}
			opts := testOptions(backend)
			opts.WorkDir, opts.ExposeRW, opts.Hidden = work, []string{scratch}, []string{db}
			s := launch(t, plan, opts, "")
			cs := clientSession(t, s)
			out := callTool(t, cs, "report")
			cs.Close()
			if strings.Contains(out, "DB-CONTENT-SECRET") || !strings.Contains(out, readme+`: read "readme"`) {
				t.Errorf("report:\n%s", out)
			}
			got := exposedPathsOf(s.Info(time.Second))
			if !slices.Contains(got, "expose-rw:"+scratch+" (rw)") || !slices.Contains(got, "cwd:"+work) {
				t.Errorf("Exposed = %v", got)
			}
		})
	}
}

func TestUnexposedHint(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "data.json")
	os.WriteFile(file, []byte("{}"), 0o644)
	tests := []struct {
		stderr  string
		exposed []Exposure
		want    string
	}{
		{"Error: ENOENT: no such file or directory, open '" + file + "'", nil, "pass --expose " + file},
		{"python3: can't open file '" + file + "': [Errno 2] No such file or directory", nil, file + " exists on the host"},
		{"Error: ENOENT: no such file or directory, open '" + file + "'", []Exposure{{Path: dir, Why: ExposeCwd}}, ""},
		{"Error: ENOENT: no such file or directory, open '/nonexistent/x'", nil, ""},
		{"all fine " + file, nil, ""},
	}
	for _, tc := range tests {
		got := UnexposedHint(tc.stderr, tc.exposed)
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("UnexposedHint(%q) = %q, want %q", tc.stderr, got, tc.want)
		}
	}
}

// TestNoneBackendRealDirs checks that --sandbox none runs the server where
// its client would: in the working directory, with the real HOME, and
// records both.
func TestNoneBackendRealDirs(t *testing.T) {
	work := t.TempDir()
	plan, marker := fakePlan(t, "env")
	opts := testOptions(BackendNone)
	opts.WorkDir = work
	s := launch(t, plan, opts, marker)
	connect(t, s)
	info := s.Info(5 * time.Second)
	home, _ := os.UserHomeDir()
	if !strings.Contains(info.StderrTail, "HOME="+home+"\n") {
		t.Errorf("server environment lacks the real HOME %s:\n%s", home, info.StderrTail)
	}
	if info.WorkDir != work || info.Home != home {
		t.Errorf("WorkDir %q Home %q, want %q %q", info.WorkDir, info.Home, work, home)
	}
}

func TestInstalledVersion(t *testing.T) {
	dir := t.TempDir()
	pkgDir := filepath.Join(dir, "node_modules", "@scope", "srv")
	os.MkdirAll(pkgDir, 0o755)
	os.WriteFile(filepath.Join(pkgDir, "package.json"), []byte(`{"name": "@scope/srv", "version": "1.4.2"}`), 0o644)
	ep := &entryPoint{dir: dir, version: installedNPMVersion(pkgDir)}
	if got := installedVersion(&vocab.Package{RegistryType: "npm", Identifier: "@scope/srv"}, ep); got != "1.4.2" {
		t.Errorf("unpinned: %q, want 1.4.2", got)
	}
	other := &entryPoint{dir: dir, version: installedNPMVersion(filepath.Join(dir, "node_modules", "@scope", "other"))}
	if got := installedVersion(&vocab.Package{RegistryType: "npm", Identifier: "@scope/other", Version: "2.0.0"}, other); got != "2.0.0" {
		t.Errorf("unreadable: %q, want the plan's", got)
	}
}

// TestWorkDirNone: registry scans start servers in their private HOME,
// with nothing of the folder mcpvet runs in, and a path in a registry
// plan's arguments is not exposed.
func TestWorkDirNone(t *testing.T) {
	for _, backend := range isolatingTestBackends(t) {
		t.Run(backend, func(t *testing.T) {
			plan, marker := fakePlan(t, "env")
			// A folder in a registry plan's arguments is not shown.
			plan.Args = append(plan.Args, t.TempDir())
			opts := testOptions(backend)
			opts.WorkDir = WorkDirNone
			s := launch(t, plan, opts, marker)
			connect(t, s)
			info := s.Info(5 * time.Second)
			wd, _ := os.Getwd()
			if info.WorkDir != "" || len(info.Exposed) != 0 || strings.Contains(info.StderrTail, "PWD="+wd) {
				t.Errorf("WorkDir %q Exposed %v, env:\n%s", info.WorkDir, info.Exposed, info.StderrTail)
			}
		})
	}
}

// TestWorkDirOfPackage: a package mcpvet installs does not see the folder
// mcpvet runs in (`mcpvet probe npm:PKG` inside a project), unless its
// config names a working directory; a local command does.
func TestWorkDirOfPackage(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	pkg := &vocab.Package{RegistryType: "npm", Identifier: "x", Version: "1.0.0"}
	for _, tc := range []struct {
		name string
		plan vocab.Plan
		want string
	}{
		{"package", vocab.Plan{Package: pkg}, ""},
		{"package with cwd", vocab.Plan{Package: pkg, Dir: "/srv/app"}, "/srv/app"},
		{"local command", vocab.Plan{Command: "node", Args: []string{"server.js"}}, wd},
	} {
		if got := workDirOf(&tc.plan, &Options{}); got != tc.want {
			t.Errorf("%s: workDirOf = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestCheckExposeSymlink: a link to a credential store is refused like
// the store itself, the link's target being checked too.
func TestCheckExposeSymlink(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	if err := os.MkdirAll(filepath.Join(home, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "keys")
	if err := os.Symlink(filepath.Join(home, ".ssh"), link); err != nil {
		t.Fatal(err)
	}
	if err := CheckExpose(link, nil); err == nil || !strings.Contains(err.Error(), "credential store") {
		t.Errorf("CheckExpose(link to ~/.ssh) = %v, want refused as a credential store", err)
	}
}

// TestHostArgPathArgPaths: an argument of up to 4,096 bytes is a candidate
// path, a longer one or one with a NUL byte is not; --flag=value gives its
// value.
func TestHostArgPathArgPaths(t *testing.T) {
	long := "/" + strings.Repeat("a", 4095)
	got := argPaths([]string{"", long, long + "a", "/x\x00y", "--root=/srv/data", "/srv/app"})
	want := []string{long, "/srv/data", "/srv/app"}
	if !slices.Equal(got, want) {
		t.Errorf("argPaths = %q, want %q", got, want)
	}
}

// TestPlanExposureProjectRoot: the project root of a file is the nearest
// folder with a project marker, but the search stops at $HOME and at any
// folder that holds $HOME.
func TestPlanExposureProjectRoot(t *testing.T) {
	top := t.TempDir()
	for _, d := range []string{"home/u", "proj/src", "outer/app/lib"} {
		if err := os.MkdirAll(filepath.Join(top, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"proj/go.mod", "package.json"} {
		if err := os.WriteFile(filepath.Join(top, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	home := filepath.Join(top, "home", "u")
	for _, tc := range []struct{ file, home, want string }{
		{filepath.Join(top, "proj", "src", "main.go"), home, filepath.Join(top, "proj")},
		// top holds package.json, but also $HOME's parent: not a project root.
		{filepath.Join(top, "outer", "app", "lib", "x.js"), filepath.Join(top, "home"), ""},
		{filepath.Join(top, "outer", "app", "lib", "x.js"), "", top},
	} {
		if got := projectRoot(tc.file, tc.home); got != tc.want {
			t.Errorf("projectRoot(%s, home %q) = %q, want %q", tc.file, tc.home, got, tc.want)
		}
	}
}
