package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/mcpvet/mcpvet/vocab"
)

// What a local server sees. Clients start a server in a folder, hand it
// paths in its argv and run its command from an installation (a venv, an
// nvm or pyenv tree); a sandbox showing only the system folders makes
// every such server fail to start. The isolating backends therefore expose,
// read-only and at the same path:
//
//   - the working directory: the plan's Dir (a config's "cwd"), else
//     [Options.WorkDir], else the directory mcpvet runs in;
//   - every folder named in argv that exists on the host; every file
//     named in argv together with its project root (the nearest ancestor
//     holding package.json, pyproject.toml, go.mod, Cargo.toml or .git,
//     never $HOME or /); a file outside any project only when it is the
//     program run (the command, or the script an interpreter is given),
//     and then with its own folder, which holds the modules it imports
//     (refused like any path when it is /, a top-level folder, $HOME or a
//     credential store): a data file elsewhere needs --expose, so that a
//     path handed to a server does not by itself open the host to it;
//   - the installation prefix of the command (the folder above the bin/
//     or shims/ its path or real path is in);
//   - [Options.Expose], and [Options.ExposeRW] writable.
//
// Never exposed, even when named: /, a top-level folder (/tmp, /home:
// shared by everything on the machine), $HOME itself, a folder holding a
// credential store, a credential store or anything in one, and
// [Options.Hidden] (the results database, which is masked when it lies in
// an exposed folder).

// Reasons of an [Exposure].
const (
	ExposeCwd     = "cwd"
	ExposeArgv    = "argv"
	ExposeProject = "project"
	// ExposeScriptDir: the folder of the program run, when it is in no
	// project.
	ExposeScriptDir = "script-dir"
	ExposePrefix    = "prefix"
	ExposeUser      = "expose"
	ExposeUserRW    = "expose-rw"
)

// An Exposure is a host path a server sees at the same path.
type Exposure struct {
	Path     string `json:"path"`
	Writable bool   `json:"writable,omitempty"`
	// Why is one of the Expose constants.
	Why string `json:"why"`
}

// credentialStores are paths under $HOME that hold credentials.
var credentialStores = []string{
	".ssh", ".aws", ".azure", ".config/gcloud", ".kube", ".docker", ".gnupg", ".password-store",
	".netrc", ".npmrc", ".pypirc", ".git-credentials", ".config/gh", ".local/share/keyrings",
}

// projectMarkers make a folder a project root.
var projectMarkers = []string{"package.json", "pyproject.toml", "go.mod", "Cargo.toml", ".git"}

// interpreters run the script named by their first non-flag argument.
var interpreters = []string{"node", "nodejs", "python", "python3", "deno", "bun", "ruby", "perl", "php", "bash", "sh", "tsx", "ts-node", "java", "uv", "lua", "Rscript", "dotnet"}

// isInterpreter reports whether a command is an interpreter (python3.12
// counts as python3).
func isInterpreter(cmd string) bool {
	base := filepath.Base(cmd)
	base = strings.TrimRight(base, "0123456789.")
	return slices.Contains(interpreters, base)
}

// prefixDirs are the folders whose parent is an installation prefix.
var prefixDirs = []string{"bin", "shims", "Scripts"}

// An ExposeError says why a path is never exposed.
type ExposeError struct {
	Path   string
	Reason string
}

func (e *ExposeError) Error() string {
	return fmt.Sprintf("%s is never exposed to a server: %s", e.Path, e.Reason)
}

// hostHome is the user's home folder, "" when unknown.
func hostHome() string {
	h, err := os.UserHomeDir()
	if err != nil || !filepath.IsAbs(h) {
		return ""
	}
	return filepath.Clean(h)
}

// within reports whether p is dir or inside it.
func within(p, dir string) bool {
	if dir == "/" {
		return true
	}
	return p == dir || strings.HasPrefix(p, dir+"/")
}

// CheckExpose returns an *[ExposeError] when path must not be shown to a
// server: /, a top-level folder, a home folder of the machine (the
// caller's, any in the passwd database, /root and every /home/*), a
// credential store or an AI client's store in any of those homes, a
// folder holding one, a runtime folder (/run, /var/run,
// $XDG_RUNTIME_DIR: the sockets of the machine's daemons), or one of
// hidden (the results database, compared by device and inode). path is
// made absolute first; it, every home and every store are compared both
// as named and with their symlinks resolved, so a $HOME reached through a
// symlink, or a config naming the real folder, changes nothing.
func CheckExpose(path string, hidden []string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return &ExposeError{Path: path, Reason: err.Error()}
	}
	cands := resolvedForms(abs)
	for _, p := range cands {
		if p == "/" {
			return &ExposeError{Path: path, Reason: "it is the whole file system; expose the folder the server needs"}
		}
		if filepath.Dir(p) == "/" {
			return &ExposeError{Path: path, Reason: "a top-level folder is shared by everything on the machine; expose the folder inside it that the server needs"}
		}
		for _, r := range runtimeDirs() {
			if within(p, r) {
				return &ExposeError{Path: path, Reason: r + " is a runtime folder: it holds the sockets of the machine's daemons"}
			}
		}
		for _, h := range machineHomes() {
			if p == h.path {
				if h.own {
					return &ExposeError{Path: path, Reason: "$HOME holds your credentials; expose the folder inside it that the server needs"}
				}
				return &ExposeError{Path: path, Reason: "it is the home folder of user " + h.user + "; expose the folder inside it that the server needs"}
			}
			for _, c := range h.stores {
				if within(p, c.path) {
					return &ExposeError{Path: path, Reason: h.tilde() + c.rel + " is " + c.kind()}
				}
				if within(c.path, p) {
					return &ExposeError{Path: path, Reason: "it holds " + c.the() + " " + h.tilde() + c.rel + "; expose a folder that does not"}
				}
			}
		}
	}
	if fi, err := os.Stat(abs); err == nil {
		for _, h := range hiddenForms(hidden) {
			if hi, err := os.Stat(h); err == nil && os.SameFile(fi, hi) {
				return &ExposeError{Path: path, Reason: "it is mcpvet's results database"}
			}
		}
	}
	for _, p := range cands {
		for _, h := range hidden {
			if h == "" {
				continue
			}
			if ha, err := filepath.Abs(h); err == nil && p == ha {
				return &ExposeError{Path: path, Reason: "it is mcpvet's results database"}
			}
		}
	}
	return nil
}

// resolvedForms returns abs and, when different, abs with its symlinks
// resolved; for a path that does not exist, its deepest existing ancestor
// is resolved and the rest appended.
func resolvedForms(abs string) []string {
	abs = filepath.Clean(abs)
	out := []string{abs}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		if real != abs {
			out = append(out, real)
		}
		return out
	}
	for dir, rest := filepath.Dir(abs), filepath.Base(abs); dir != "/" && dir != "."; dir, rest = filepath.Dir(dir), filepath.Join(filepath.Base(dir), rest) {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			if r := filepath.Join(real, rest); r != abs {
				out = append(out, r)
			}
			break
		}
	}
	return out
}

// hiddenForms lists the hidden files and their SQLite companions.
func hiddenForms(hidden []string) []string {
	var out []string
	for _, h := range hidden {
		if h == "" {
			continue
		}
		if abs, err := filepath.Abs(h); err == nil {
			out = append(out, abs, abs+"-wal", abs+"-shm", abs+"-journal")
		}
	}
	return out
}

// WorkDirNone as [Options.WorkDir] marks plans that are not the user's own
// (a registry scan, whose arguments come from the registry): servers start
// in their private HOME and see no host path beyond the system folders,
// their package and what --expose names.
const WorkDirNone = "-"

// workDirOf returns the host folder a plan's server starts in, "" for
// none.
func workDirOf(plan *vocab.Plan, o *Options) string {
	if o.WorkDir == WorkDirNone && plan.Dir == "" {
		return ""
	}
	// A package mcpvet installs is registry code, not the user's: it runs
	// in its private HOME unless its config names a working directory, so
	// `mcpvet probe npm:PKG` run inside a project does not show the project
	// to the package.
	if plan.Package != nil && plan.Dir == "" {
		return ""
	}
	base := o.WorkDir
	if base == WorkDirNone {
		base = ""
	}
	if base == "" {
		base, _ = os.Getwd()
	}
	dir := plan.Dir
	if dir == "" {
		return base
	}
	if !filepath.IsAbs(dir) && base != "" {
		dir = filepath.Join(base, dir)
	}
	return filepath.Clean(dir)
}

// projectRoot returns the nearest ancestor of file holding a project
// marker, below $HOME and /, or "".
func projectRoot(file, home string) string {
	for dir := filepath.Dir(file); dir != "/" && dir != "." && dir != home; dir = filepath.Dir(dir) {
		if home != "" && within(home, dir) {
			return ""
		}
		for _, m := range projectMarkers {
			if _, err := os.Lstat(filepath.Join(dir, m)); err == nil {
				return dir
			}
		}
	}
	return ""
}

// argPaths returns the candidate paths in argv: every argument, and the
// value of --flag=value.
func argPaths(argv []string) []string {
	var out []string
	for _, a := range argv {
		if a == "" || strings.ContainsRune(a, 0) || len(a) > 4096 {
			continue
		}
		if strings.HasPrefix(a, "-") {
			if _, v, ok := strings.Cut(a, "="); ok {
				out = append(out, v)
			}
			continue
		}
		out = append(out, a)
	}
	return out
}

// planExposure computes what the server sees (isolating backends) and
// where it starts; each refusal is one line in s.refused. It fills
// s.exposed, s.masked and s.workDir.
func (s *Server) planExposure() {
	x := &exposer{s: s, home: hostHome(), cwd: workDirOf(s.plan, &s.opts), seen: map[string]bool{}}
	x.userPaths()
	x.workingDir()
	if s.opts.WorkDir != WorkDirNone {
		x.argvPaths()
		x.installPrefixes()
	}
	s.maskHidden()
}

// An exposer adds a server's exposures one rule at a time, in the order
// planExposure applies them: the first rule to add a path names why.
type exposer struct {
	s    *Server
	home string // hostHome()
	cwd  string // workDirOf the plan, "" for none
	seen map[string]bool
}

// add exposes p unless it is a system folder (always visible), refused
// (one line in s.refused) or missing. It reports whether p is exposed or
// visible anyway.
func (x *exposer) add(p, why string, rw bool) bool {
	p = filepath.Clean(p)
	if x.seen[p] {
		return true
	}
	if underSystemDir(p) || slices.Contains(systemDirs, p) {
		return true
	}
	if !x.allowed(p, why) {
		return false
	}
	if _, err := os.Stat(p); err != nil {
		return false
	}
	x.seen[p] = true
	x.s.exposed = append(x.s.exposed, Exposure{Path: p, Writable: rw, Why: why})
	return true
}

// allowed applies [CheckExpose] to p, recording a refusal in s.refused.
func (x *exposer) allowed(p, why string) bool {
	if err := CheckExpose(p, x.s.opts.Hidden); err != nil {
		x.s.refused = append(x.s.refused, fmt.Sprintf("not exposed (%s): %v", why, err))
		return false
	}
	return true
}

// userPaths exposes [Options.ExposeRW] writable, then [Options.Expose].
func (x *exposer) userPaths() {
	for _, p := range x.s.opts.ExposeRW {
		if abs, err := filepath.Abs(p); err == nil {
			x.add(abs, ExposeUserRW, true)
		}
	}
	for _, p := range x.s.opts.Expose {
		if abs, err := filepath.Abs(p); err == nil {
			x.add(abs, ExposeUser, false)
		}
	}
}

// workingDir exposes the working directory, and starts the server there
// when it is an allowed folder.
func (x *exposer) workingDir() {
	if x.cwd == "" {
		return
	}
	if fi, err := os.Stat(x.cwd); err == nil && fi.IsDir() && x.add(x.cwd, ExposeCwd, false) {
		x.s.workDir = x.cwd
	}
}

// argvPaths exposes the folders named in argv, and the files with their
// project roots (see [exposer.argvFile]).
func (x *exposer) argvPaths() {
	argv := x.s.argv
	// An installed package is exposed by the installer: of its argv only
	// the plan's arguments (a folder given to server-filesystem) are the
	// user's.
	first, script := 0, -1
	if x.s.plan.Package != nil {
		first = max(0, len(argv)-len(x.s.plan.Args))
	} else {
		script = scriptArg(argv)
	}
	for i := first; i < len(argv); i++ {
		for _, p := range argPaths([]string{argv[i]}) {
			p, ok := hostArgPath(p, i == 0, x.cwd)
			if !ok {
				continue
			}
			fi, err := os.Stat(p)
			if err != nil {
				continue
			}
			if fi.IsDir() {
				x.add(p, ExposeArgv, false)
				continue
			}
			x.argvFile(p, i == 0, i == script)
		}
	}
}

// scriptArg returns the index in argv of the script an interpreter runs
// (its first non-flag argument), or -1: when argv[0] is no interpreter, or
// it runs code given by -m, -c or -e.
func scriptArg(argv []string) int {
	if len(argv) == 0 || !isInterpreter(argv[0]) {
		return -1
	}
	takesValue := valueFlags[strings.TrimRight(filepath.Base(argv[0]), "0123456789.")]
	for i := 1; i < len(argv); i++ {
		if !strings.HasPrefix(argv[i], "-") {
			return i
		}
		if argv[i] == "-m" || argv[i] == "-c" || argv[i] == "-e" {
			break
		}
		if slices.Contains(takesValue, argv[i]) {
			i++ // "python3 -W FILE script.py": FILE is -W's value, not the script
		}
	}
	return -1
}

// valueFlags are the flags of each interpreter that take the next
// argument as their value (issue 22 item 11: `python3 -W FILE script.py`
// exposed FILE as if it were the script).
var valueFlags = map[string][]string{
	"python":  {"-W", "-X", "--check-hash-based-pycs"},
	"python3": {"-W", "-X", "--check-hash-based-pycs"},
	"node":    {"-r", "--require", "--import", "--loader", "--experimental-loader", "-C", "--conditions", "--env-file", "--title", "--input-type"},
	"nodejs":  {"-r", "--require", "--import", "--loader", "--experimental-loader", "-C", "--conditions", "--env-file", "--title", "--input-type"},
	"bun":     {"-r", "--preload", "--config", "--env-file", "--cwd"},
	"deno":    {"-c", "--config", "--import-map", "--env-file"},
	"ruby":    {"-I", "-r", "-C", "-E"},
	"perl":    {"-I", "-M", "-m"},
	"php":     {"-c", "-d", "-z"},
	"bash":    {"-o", "-O", "--rcfile", "--init-file"},
	"sh":      {"-o"},
	"java":    {"-cp", "-classpath", "--class-path", "-p", "--module-path", "--add-modules", "-m", "--module"},
	"lua":     {"-l"},
	"tsx":     {"--tsconfig", "--env-file", "-r", "--require", "--import"},
	"ts-node": {"-r", "--require", "-P", "--project", "-C", "--compiler"},
	"uv":      {"--with", "--python", "-p", "--directory", "--project"},
	"Rscript": {"-e"},
}

// hostArgPath returns the host path an argv path names: an absolute path
// as is, a relative one joined to the working directory cwd. It reports
// false for a command looked up on PATH (cmd: p is argv[0]), a relative
// path with no working directory, and a URL.
func hostArgPath(p string, cmd bool, cwd string) (string, bool) {
	if filepath.IsAbs(p) {
		return p, true
	}
	if cmd && !strings.Contains(p, "/") {
		return "", false // a command looked up on PATH
	}
	if cwd == "" || strings.Contains(p, "://") {
		return "", false
	}
	return filepath.Join(cwd, p), true
}

// argvFile exposes a file named in argv: its project root, and the file
// itself when it is outside that root. A file outside any project is
// exposed only when it is the program run (cmd: the command, script: the
// script an interpreter runs); the command itself is bound by the layout.
func (x *exposer) argvFile(p string, cmd, script bool) {
	real := p
	if r, err := filepath.EvalSymlinks(p); err == nil {
		real = r
	}
	root := projectRoot(real, x.home)
	if root == "" && !cmd && !script {
		return // a lone data file: --expose it
	}
	if !x.allowed(p, ExposeArgv) {
		return
	}
	if root != "" {
		x.add(root, ExposeProject, false)
	} else if dir := filepath.Dir(real); !(cmd && slices.Contains(prefixDirs, filepath.Base(dir))) && x.allowed(dir, ExposeScriptDir) {
		// A script outside any project imports its siblings (node's
		// require('./lib'), python's import helper): its own folder is
		// its project. Never /, a top-level folder, $HOME or a
		// credential store: allowed refuses those. A command in a bin/
		// folder has its installation prefix exposed instead.
		x.add(dir, ExposeScriptDir, false)
		if dir != filepath.Dir(p) && x.allowed(filepath.Dir(p), ExposeScriptDir) {
			x.add(filepath.Dir(p), ExposeScriptDir, false)
		}
	}
	// The file as named too when it or its target is outside the root: a
	// symlink to a project's script is opened by the name argv gives.
	if !cmd && (root == "" || !within(real, root) || !within(p, root)) {
		x.add(p, ExposeArgv, false)
	}
}

// installPrefixes exposes the installation prefix of a local command, and
// the interpreter its #! line names with that one's prefix: a console
// script runs its venv's python, which links to an installation elsewhere
// (pyenv, /usr). An installed package is exposed by the installer.
func (x *exposer) installPrefixes() {
	if x.s.plan.Package != nil {
		return
	}
	path := lookEnv(x.s.env, "PATH")
	cmd, err := lookPath(x.s.argv[0], path)
	if err != nil {
		return
	}
	progs := []string{cmd}
	if interp := shebang(cmd, path); interp != "" {
		progs = append(progs, interp)
	}
	for _, prog := range progs {
		abs, err := filepath.Abs(prog)
		if err != nil {
			continue
		}
		if prog != cmd && !underSystemDir(abs) {
			x.add(abs, ExposeArgv, false)
		}
		cands := []string{abs}
		if real, err := filepath.EvalSymlinks(abs); err == nil && real != abs {
			cands = append(cands, real)
		}
		for _, c := range cands {
			if prefix := installPrefix(c, x.home); prefix != "" {
				x.add(prefix, ExposePrefix, false)
			}
		}
	}
}

// installPrefix returns the installation prefix of a program: the folder
// above the bin/, shims/ or Scripts/ it is in, "" when it is in none or
// the prefix is home or /.
func installPrefix(prog, home string) string {
	d := filepath.Dir(prog)
	if !slices.Contains(prefixDirs, filepath.Base(d)) {
		return ""
	}
	if prefix := filepath.Dir(d); prefix != home && prefix != "/" {
		return prefix
	}
	return ""
}

// maskHidden masks the hidden files (the results database) that lie in
// exposed folders, by their real paths (a database named through a
// symlinked folder is the same file), then the sockets and databases the
// exposed folders hold ([Server.maskHostFiles]), and lists the read-only
// exposures for the layout.
func (s *Server) maskHidden() {
	for _, f := range hiddenForms(s.opts.Hidden) {
		for _, e := range s.exposed {
			if real, ok := realWithin(f, e.Path); ok {
				s.mask(real)
				break
			}
		}
	}
	s.maskHostFiles()
	// Binds nested in another read-only bind are left out: a file mount
	// point cannot be made in a read-only folder.
	for _, e := range s.exposed {
		if e.Writable {
			continue
		}
		nested := false
		for _, o := range s.exposed {
			if !o.Writable && o.Path != e.Path && within(e.Path, o.Path) {
				nested = true
				break
			}
		}
		if !nested {
			s.readOnly = append(s.readOnly, e.Path)
		}
	}
}

// shebang returns the interpreter a script's #! line names (the program
// /usr/bin/env looks up, for "#!/usr/bin/env node"), or "".
func shebang(path, pathEnv string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	buf := make([]byte, 256)
	n, _ := f.Read(buf)
	line, _, _ := strings.Cut(string(buf[:n]), "\n")
	rest, ok := strings.CutPrefix(line, "#!")
	if !ok {
		return ""
	}
	fields := strings.Fields(rest)
	if len(fields) == 0 || !filepath.IsAbs(fields[0]) {
		return ""
	}
	if filepath.Base(fields[0]) != "env" {
		return fields[0]
	}
	for _, a := range fields[1:] {
		if strings.HasPrefix(a, "-") {
			continue
		}
		if p, err := lookPath(a, pathEnv); err == nil {
			return p
		}
		break
	}
	return ""
}

// writableBinds returns the exposed folders the server may write to.
func (s *Server) writableBinds() []string {
	var out []string
	for _, e := range s.exposed {
		if e.Writable {
			out = append(out, e.Path)
		}
	}
	return out
}

// sandboxDir is the working directory inside an isolating backend.
func (s *Server) sandboxDir() string {
	if s.workDir != "" {
		return s.workDir
	}
	return sandboxHome
}

// hostPathRE finds absolute paths in error output.
var hostPathRE = regexp.MustCompile(`(?:^|[\s'"(\x60=:])(/[^\s'"()\x60,;:]+)`)

// notFoundSigns mark stderr lines that report a missing or unreadable file.
var notFoundSigns = []string{"ENOENT", "EACCES", "No such file", "Permission denied", "Cannot find module", "can't open file",
	"not found", "Cannot access", "does not exist", "cannot access", "Errno 2", "Errno 13"}

// UnexposedHint looks in a server's stderr for a file error on a host path
// that exists but was not exposed, and says which flag would expose it.
// exposed lists what the server saw. It returns "" when there is no such
// path.
func UnexposedHint(stderr string, exposed []Exposure) string {
	if len(stderr) > 64<<10 {
		stderr = stderr[len(stderr)-64<<10:]
	}
	for line := range strings.SplitSeq(stderr, "\n") {
		hit := false
		for _, s := range notFoundSigns {
			if strings.Contains(line, s) {
				hit = true
				break
			}
		}
		if !hit {
			continue
		}
		for _, m := range hostPathRE.FindAllStringSubmatch(line, 8) {
			p := strings.TrimRight(m[1], ".")
			if strings.HasPrefix(p, sandboxHome) || underSystemDir(p) || strings.HasPrefix(p, "/proc/") || strings.HasPrefix(p, "/dev/") {
				continue
			}
			p = filepath.Clean(p)
			if _, err := os.Stat(p); err != nil {
				continue
			}
			visible := false
			for _, e := range exposed {
				if within(p, e.Path) {
					visible = true
					break
				}
			}
			if visible {
				continue
			}
			if err := CheckExpose(p, nil); err != nil {
				return fmt.Sprintf("%s exists on the host but is not exposed to the sandbox, and cannot be: %s", p, err.(*ExposeError).Reason)
			}
			return fmt.Sprintf("%s exists on the host but is not exposed to the sandbox; pass --expose %s (or --expose-rw for a folder it writes to)", p, p)
		}
	}
	return ""
}

// exposeBinds returns the builtin backend's binds for the writable
// exposures and the masked files, after the read-only layout.
func exposeBinds(s *Server) []initBind {
	var out []initBind
	for _, p := range s.writableBinds() {
		fi, err := os.Stat(p)
		out = append(out, initBind{Path: p, Dir: err == nil && fi.IsDir(), Writable: true})
	}
	for _, p := range s.masked {
		out = append(out, initBind{Path: p, Source: "/dev/null"})
	}
	return out
}
