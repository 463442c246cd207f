package testfixture

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Local is a set of local servers laid out the way people keep them, in a
// fresh folder outside the repository (so that nothing is visible through
// the directory the tests run in):
//
//	ROOT/projects/notes        a two-file node project (index.js requires ./lib)
//	ROOT/projects/wordcount    a python script importing a sibling module
//	ROOT/projects/pkg          a python package, placed in ROOT/venv
//	ROOT/venv                  a venv made with python3 -m venv
type Local struct {
	Root string
	// NodeDir, PyDir: the node and python projects.
	NodeDir, PyDir string
	// Venv is the venv; VenvScript its console script running the
	// package (what pip writes for [project.scripts]).
	Venv, VenvScript string
}

// LocalServers copies testdata/local into a temporary folder and builds the
// venv. It skips the test when node or python3 is missing. The folders are
// world-readable, as a user's projects are, so that a sandbox running the
// server under another uid can read them.
func LocalServers(tb testing.TB) *Local {
	tb.Helper()
	for _, tool := range []string{"node", "python3"} {
		if _, err := exec.LookPath(tool); err != nil {
			tb.Skipf("%s is not installed; the local-server tests need it", tool)
		}
	}
	root, err := moduleRoot()
	if err != nil {
		tb.Fatal(err)
	}
	dir := tb.TempDir()
	l := &Local{Root: dir, NodeDir: filepath.Join(dir, "projects", "notes"), PyDir: filepath.Join(dir, "projects", "wordcount"),
		Venv: filepath.Join(dir, "venv")}
	for src, dst := range map[string]string{"node-project": l.NodeDir, "py-project": l.PyDir, "py-package": filepath.Join(dir, "projects", "pkg")} {
		if err := copyTree(filepath.Join(root, "testdata", "local", src), dst); err != nil {
			tb.Fatal(err)
		}
	}
	if out, err := exec.Command("python3", "-m", "venv", "--without-pip", l.Venv).CombinedOutput(); err != nil {
		tb.Fatalf("python3 -m venv: %v\n%s", err, out)
	}
	// No package index here: place the package in the venv the way an
	// install would, with the console script pip writes.
	py := filepath.Join(l.Venv, "bin", "python")
	out, err := exec.Command(py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])").Output()
	if err != nil {
		tb.Fatalf("venv python: %v", err)
	}
	site := strings.TrimSpace(string(out))
	if err := copyTree(filepath.Join(dir, "projects", "pkg", "localmcp"), filepath.Join(site, "localmcp")); err != nil {
		tb.Fatal(err)
	}
	l.VenvScript = filepath.Join(l.Venv, "bin", "localmcp")
	script := fmt.Sprintf("#!%s\nimport sys\nfrom localmcp.__main__ import main\nif __name__ == '__main__':\n    sys.exit(main())\n", py)
	if err := os.WriteFile(l.VenvScript, []byte(script), 0o755); err != nil {
		tb.Fatal(err)
	}
	// Readable by others, from the temporary root down.
	for d := dir; d != filepath.Dir(d) && strings.HasPrefix(d, os.TempDir()+"/"); d = filepath.Dir(d) {
		_ = os.Chmod(d, 0o755)
	}
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = os.Chmod(p, 0o755)
		}
		return nil
	})
	return l
}

func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
}
