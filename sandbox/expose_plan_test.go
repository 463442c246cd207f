package sandbox

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpvet/mcpvet/vocab"
)

// exposureOutcome is what planExposure fills in.
type exposureOutcome struct {
	Exposed  []Exposure
	Refused  []string
	Masked   []string
	ReadOnly []string
	WorkDir  string
}

// TestPlanExposure pins what an isolated server sees for each rule of
// planExposure (working directory, argv folders and project roots, install
// prefixes and interpreters, --expose, the refusals) without starting a
// server, so a change to any rule shows here as a diff.
func TestPlanExposure(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	t.Setenv("HOME", home)
	p := func(rel string) string { return filepath.Join(root, rel) }
	mkfile := func(rel, content string, mode os.FileMode) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p(rel)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p(rel), []byte(content), mode); err != nil {
			t.Fatal(err)
		}
	}
	mkfile("home/.ssh/id", "key", 0o600)
	mkfile("proj/package.json", "{}", 0o644)
	mkfile("proj/index.js", "", 0o644)
	mkfile("proj/data/x.json", "{}", 0o644)
	mkfile("proj/mcpvet.db", "db", 0o644)
	mkfile("loose/script.js", "", 0o644)
	mkfile("loose/data.txt", "", 0o644)
	mkfile("proj2/data.txt", "", 0o644)
	mkfile("home/srv.js", "", 0o644)
	mkfile("pyenv/versions/3.12/bin/python3", "", 0o755)
	mkfile("venv/bin/tool", "#!"+p("pyenv/versions/3.12/bin/python3")+"\nimport x\n", 0o755)
	mkfile("envvenv/bin/tool", "#!/usr/bin/env python3\n", 0o755)
	mkfile("realpfx/bin/run", "", 0o755)
	for _, d := range []string{"elsewhere", "out", "linkpfx/bin"} {
		if err := os.MkdirAll(p(d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(p("realpfx/bin/run"), p("linkpfx/bin/run")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(p("links"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(p("proj/index.js"), p("links/index.js")); err != nil {
		t.Fatal(err)
	}
	db := p("proj/mcpvet.db")
	pkg := &vocab.Package{RegistryType: "npm", Identifier: "x", Version: "1.0.0"}
	credRefusal := func(why, path, reason string) string {
		return "not exposed (" + why + "): " + (&ExposeError{Path: path, Reason: reason}).Error()
	}

	tests := []struct {
		name string
		plan vocab.Plan
		argv []string // default: Command and Args
		opts Options
		path string // the server's PATH
		want exposureOutcome
	}{
		{
			name: "script by path from elsewhere",
			plan: vocab.Plan{Command: "node", Args: []string{p("proj/index.js")}},
			opts: Options{WorkDir: p("elsewhere"), Hidden: []string{db}},
			want: exposureOutcome{
				Exposed:  []Exposure{{Path: p("elsewhere"), Why: ExposeCwd}, {Path: p("proj"), Why: ExposeProject}},
				Masked:   []string{db},
				ReadOnly: []string{p("elsewhere"), p("proj")},
				WorkDir:  p("elsewhere"),
			},
		},
		{
			name: "relative arguments resolve against the plan's Dir",
			plan: vocab.Plan{Command: "node", Dir: p("proj"), Args: []string{"index.js", "--root=data", "http://x/y", "missing", "-v"}},
			opts: Options{WorkDir: p("elsewhere")},
			want: exposureOutcome{
				Exposed:  []Exposure{{Path: p("proj"), Why: ExposeCwd}, {Path: p("proj/data"), Why: ExposeArgv}},
				ReadOnly: []string{p("proj")},
				WorkDir:  p("proj"),
			},
		},
		{
			name: "relative Dir joins WorkDir",
			plan: vocab.Plan{Command: "node", Dir: "proj", Args: []string{"index.js"}},
			opts: Options{WorkDir: root},
			want: exposureOutcome{
				Exposed:  []Exposure{{Path: p("proj"), Why: ExposeCwd}},
				ReadOnly: []string{p("proj")},
				WorkDir:  p("proj"),
			},
		},
		{
			// The script's own folder holds the modules it imports
			// (issue 27: node index.mjs importing ./lib.mjs, no
			// package.json); the data file is seen because it is there,
			// not because argv names it.
			name: "the script an interpreter runs, with its folder",
			plan: vocab.Plan{Command: "node", Args: []string{"--inspect", p("loose/script.js"), p("loose/data.txt")}},
			opts: Options{WorkDir: p("elsewhere")},
			want: exposureOutcome{
				Exposed:  []Exposure{{Path: p("elsewhere"), Why: ExposeCwd}, {Path: p("loose"), Why: ExposeScriptDir}, {Path: p("loose/script.js"), Why: ExposeArgv}},
				ReadOnly: []string{p("elsewhere"), p("loose")},
				WorkDir:  p("elsewhere"),
			},
		},
		{
			name: "a lone data file outside the script's folder",
			plan: vocab.Plan{Command: "node", Args: []string{p("loose/script.js"), p("proj2/data.txt")}},
			opts: Options{WorkDir: p("elsewhere")},
			want: exposureOutcome{
				Exposed:  []Exposure{{Path: p("elsewhere"), Why: ExposeCwd}, {Path: p("loose"), Why: ExposeScriptDir}, {Path: p("loose/script.js"), Why: ExposeArgv}},
				ReadOnly: []string{p("elsewhere"), p("loose")},
				WorkDir:  p("elsewhere"),
			},
		},
		{
			name: "a script in $HOME itself: the folder is refused",
			plan: vocab.Plan{Command: "node", Args: []string{p("home/srv.js")}},
			opts: Options{WorkDir: p("elsewhere")},
			want: exposureOutcome{
				Exposed:  []Exposure{{Path: p("elsewhere"), Why: ExposeCwd}, {Path: p("home/srv.js"), Why: ExposeArgv}},
				Refused:  []string{credRefusal(ExposeScriptDir, home, "$HOME holds your credentials; expose the folder inside it that the server needs")},
				ReadOnly: []string{p("elsewhere"), p("home/srv.js")},
				WorkDir:  p("elsewhere"),
			},
		},
		{
			name: "python -m runs no script",
			plan: vocab.Plan{Command: "python3.12", Args: []string{"-m", "mod", p("loose/script.js")}},
			opts: Options{WorkDir: p("elsewhere")},
			want: exposureOutcome{
				Exposed:  []Exposure{{Path: p("elsewhere"), Why: ExposeCwd}},
				ReadOnly: []string{p("elsewhere")},
				WorkDir:  p("elsewhere"),
			},
		},
		{
			name: "not an interpreter: no script",
			plan: vocab.Plan{Command: "mytool", Args: []string{p("loose/script.js")}},
			opts: Options{WorkDir: p("elsewhere")},
			want: exposureOutcome{
				Exposed:  []Exposure{{Path: p("elsewhere"), Why: ExposeCwd}},
				ReadOnly: []string{p("elsewhere")},
				WorkDir:  p("elsewhere"),
			},
		},
		{
			name: "the command by path outside a project",
			plan: vocab.Plan{Command: p("loose/script.js")},
			opts: Options{WorkDir: p("elsewhere")},
			want: exposureOutcome{
				Exposed:  []Exposure{{Path: p("elsewhere"), Why: ExposeCwd}, {Path: p("loose"), Why: ExposeScriptDir}},
				ReadOnly: []string{p("elsewhere"), p("loose")},
				WorkDir:  p("elsewhere"),
			},
		},
		{
			name: "console script: its prefix, its interpreter and that one's prefix",
			plan: vocab.Plan{Command: p("venv/bin/tool")},
			opts: Options{WorkDir: p("elsewhere")},
			want: exposureOutcome{
				Exposed: []Exposure{
					{Path: p("elsewhere"), Why: ExposeCwd},
					{Path: p("venv"), Why: ExposePrefix},
					{Path: p("pyenv/versions/3.12/bin/python3"), Why: ExposeArgv},
					{Path: p("pyenv/versions/3.12"), Why: ExposePrefix},
				},
				ReadOnly: []string{p("elsewhere"), p("venv"), p("pyenv/versions/3.12")},
				WorkDir:  p("elsewhere"),
			},
		},
		{
			name: "console script with #!/usr/bin/env, interpreter on PATH",
			plan: vocab.Plan{Command: "tool"},
			opts: Options{WorkDir: p("elsewhere")},
			path: p("envvenv/bin") + ":" + p("pyenv/versions/3.12/bin"),
			want: exposureOutcome{
				Exposed: []Exposure{
					{Path: p("elsewhere"), Why: ExposeCwd},
					{Path: p("envvenv"), Why: ExposePrefix},
					{Path: p("pyenv/versions/3.12/bin/python3"), Why: ExposeArgv},
					{Path: p("pyenv/versions/3.12"), Why: ExposePrefix},
				},
				ReadOnly: []string{p("elsewhere"), p("envvenv"), p("pyenv/versions/3.12")},
				WorkDir:  p("elsewhere"),
			},
		},
		{
			name: "command on PATH through a symlink: both prefixes",
			plan: vocab.Plan{Command: "run"},
			opts: Options{WorkDir: p("elsewhere")},
			path: p("linkpfx/bin"),
			want: exposureOutcome{
				Exposed: []Exposure{
					{Path: p("elsewhere"), Why: ExposeCwd},
					{Path: p("linkpfx"), Why: ExposePrefix},
					{Path: p("realpfx"), Why: ExposePrefix},
				},
				ReadOnly: []string{p("elsewhere"), p("linkpfx"), p("realpfx")},
				WorkDir:  p("elsewhere"),
			},
		},
		{
			name: "credential stores, $HOME, top-level folders and the database are refused",
			plan: vocab.Plan{Command: "node", Args: []string{p("home/.ssh/id"), p("home/.ssh"), db}},
			opts: Options{WorkDir: home, Expose: []string{p("home/.ssh"), "/tmp", "/usr/lib", p("nonexistent")}, Hidden: []string{db}},
			want: exposureOutcome{
				Refused: []string{
					credRefusal(ExposeUser, p("home/.ssh"), "~/.ssh is a credential store"),
					credRefusal(ExposeUser, "/tmp", "a top-level folder is shared by everything on the machine; expose the folder inside it that the server needs"),
					credRefusal(ExposeCwd, home, "$HOME holds your credentials; expose the folder inside it that the server needs"),
					credRefusal(ExposeArgv, p("home/.ssh/id"), "~/.ssh is a credential store"),
					credRefusal(ExposeArgv, p("home/.ssh"), "~/.ssh is a credential store"),
					credRefusal(ExposeArgv, db, "it is mcpvet's results database"),
				},
			},
		},
		{
			name: "--expose-rw before --expose, each path once",
			plan: vocab.Plan{Command: "node", Args: []string{p("proj/data"), p("proj/index.js")}},
			opts: Options{WorkDir: p("proj"), Expose: []string{p("proj"), p("proj/data")}, ExposeRW: []string{p("out"), p("missing")}},
			want: exposureOutcome{
				Exposed: []Exposure{
					{Path: p("out"), Writable: true, Why: ExposeUserRW},
					{Path: p("proj"), Why: ExposeUser},
					{Path: p("proj/data"), Why: ExposeUser},
				},
				ReadOnly: []string{p("proj")},
				WorkDir:  p("proj"),
			},
		},
		{
			name: "an installed package: only the plan's arguments, no prefix",
			plan: vocab.Plan{Package: pkg, Args: []string{p("proj/data")}},
			argv: []string{p("venv/bin/tool"), "--stdio", p("proj/data")},
			opts: Options{WorkDir: p("elsewhere")},
			want: exposureOutcome{
				Exposed:  []Exposure{{Path: p("proj/data"), Why: ExposeArgv}},
				ReadOnly: []string{p("proj/data")},
			},
		},
		{
			name: "an installed package given a lone data file: not exposed",
			plan: vocab.Plan{Package: pkg, Args: []string{p("loose/data.txt")}},
			argv: []string{p("venv/bin/tool"), p("loose/data.txt")},
			opts: Options{WorkDir: p("elsewhere")},
			want: exposureOutcome{},
		},
		{
			name: "a script through a symlink: the project of its target, and the link",
			plan: vocab.Plan{Command: "node", Args: []string{p("links/index.js")}},
			opts: Options{WorkDir: p("elsewhere")},
			want: exposureOutcome{
				Exposed: []Exposure{{Path: p("elsewhere"), Why: ExposeCwd}, {Path: p("proj"), Why: ExposeProject},
					{Path: p("links/index.js"), Why: ExposeArgv}},
				ReadOnly: []string{p("elsewhere"), p("proj"), p("links/index.js")},
				WorkDir:  p("elsewhere"),
			},
		},
		{
			name: "a registry plan: --expose only",
			plan: vocab.Plan{Command: "node", Args: []string{p("proj/index.js"), p("proj/data")}},
			opts: Options{WorkDir: WorkDirNone, Expose: []string{p("loose")}, Hidden: []string{db}},
			want: exposureOutcome{
				Exposed:  []Exposure{{Path: p("loose"), Why: ExposeUser}},
				ReadOnly: []string{p("loose")},
			},
		},
		{
			name: "a registry plan with a Dir starts there",
			plan: vocab.Plan{Command: "node", Dir: p("proj"), Args: []string{p("loose")}},
			opts: Options{WorkDir: WorkDirNone, Hidden: []string{db}},
			want: exposureOutcome{
				Exposed:  []Exposure{{Path: p("proj"), Why: ExposeCwd}},
				Masked:   []string{db},
				ReadOnly: []string{p("proj")},
				WorkDir:  p("proj"),
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			argv := tc.argv
			if argv == nil {
				argv = append([]string{tc.plan.Command}, tc.plan.Args...)
			}
			s := &Server{plan: &tc.plan, opts: tc.opts, argv: argv, env: []string{"PATH=" + tc.path}}
			s.planExposure()
			got := exposureOutcome{Exposed: s.exposed, Refused: s.refused, Masked: s.masked, ReadOnly: s.readOnly, WorkDir: s.workDir}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("planExposure (-want +got):\n%s", diff)
			}
		})
	}
}

func TestScriptArg(t *testing.T) {
	tests := []struct {
		name string
		argv []string
		want int
	}{
		{"empty", nil, -1},
		{"not an interpreter", []string{"mytool", "server.js"}, -1},
		{"script first", []string{"node", "server.js", "--port=1"}, 1},
		{"flags before the script", []string{"/usr/bin/python3.12", "-u", "-X", "dev", "server.py"}, 4},
		// Issue 22 item 11: a flag's value is not the script.
		{"python -W FILE", []string{"python3", "-W", "/home/u/.secret", "server.py"}, 3},
		{"node -r module", []string{"node", "-r", "/opt/preload.js", "server.js"}, 3},
		{"node --require=x", []string{"node", "--require=/opt/preload.js", "server.js"}, 2},
		{"bash -o", []string{"bash", "-o", "pipefail", "run.sh"}, 3},
		{"python -m", []string{"python3", "-m", "pkg.server"}, -1},
		{"python -c", []string{"python", "-c", "print(1)", "x.py"}, -1},
		{"node -e", []string{"node", "-e", "1", "x.js"}, -1},
		{"flags only", []string{"bash", "-x"}, -1},
	}
	for _, tc := range tests {
		if got := scriptArg(tc.argv); got != tc.want {
			t.Errorf("%s: scriptArg(%q) = %d, want %d", tc.name, tc.argv, got, tc.want)
		}
	}
}

func TestHostArgPath(t *testing.T) {
	tests := []struct {
		name   string
		p      string
		cmd    bool
		cwd    string
		want   string
		wantOK bool
	}{
		{"absolute", "/srv/data", false, "", "/srv/data", true},
		{"absolute command", "/opt/tool/bin/tool", true, "/w", "/opt/tool/bin/tool", true},
		{"command on PATH", "node", true, "/w", "", false},
		{"relative command", "./bin/tool", true, "/w", "/w/bin/tool", true},
		{"relative argument", "data", false, "/w", "/w/data", true},
		{"relative argument, no working directory", "data", false, "", "", false},
		{"URL", "http://example.com/x", false, "/w", "", false},
	}
	for _, tc := range tests {
		got, ok := hostArgPath(tc.p, tc.cmd, tc.cwd)
		if got != tc.want || ok != tc.wantOK {
			t.Errorf("%s: hostArgPath(%q, %v, %q) = %q, %v, want %q, %v", tc.name, tc.p, tc.cmd, tc.cwd, got, ok, tc.want, tc.wantOK)
		}
	}
}

func TestInstallPrefix(t *testing.T) {
	tests := []struct {
		name, prog, home, want string
	}{
		{"venv bin", "/w/.venv/bin/python", "/home/u", "/w/.venv"},
		{"pyenv shims", "/home/u/.pyenv/shims/python3", "/home/u", "/home/u/.pyenv"},
		{"windows venv Scripts", "/w/venv/Scripts/tool", "/home/u", "/w/venv"},
		{"not in a bin folder", "/w/tools/tool", "/home/u", ""},
		{"~/bin: the prefix would be $HOME", "/home/u/bin/tool", "/home/u", ""},
		{"/bin: the prefix would be /", "/bin/sh", "/home/u", ""},
	}
	for _, tc := range tests {
		if got := installPrefix(tc.prog, tc.home); got != tc.want {
			t.Errorf("%s: installPrefix(%q, %q) = %q, want %q", tc.name, tc.prog, tc.home, got, tc.want)
		}
	}
}
