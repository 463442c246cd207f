package sandbox

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// aiClientStores are paths under a home that hold an AI client's settings:
// the configuration of every MCP server the user has, with their tokens
// (Claude Desktop, Claude Code and its .credentials.json, Cursor,
// Windsurf/Codeium, Codex, Gemini, Zed, VS Code's user settings).
var aiClientStores = []string{
	".config/Claude", "Library/Application Support/Claude", ".claude", ".claude.json",
	".cursor", ".config/Cursor", ".codeium", ".codex", ".gemini",
	".config/zed", ".config/Code/User", ".config/Code - Insiders/User", ".config/VSCodium/User",
	".continue", ".config/github-copilot",
}

// named is a home folder and its user.
type named struct{ path, user string }

// A homeStore is a credential or AI-client store of one home.
type homeStore struct {
	rel  string // relative to the home, as listed
	path string // absolute, in one of the home's forms
	ai   bool
}

func (c homeStore) kind() string {
	if c.ai {
		return "an AI client's store (its servers' tokens)"
	}
	return "a credential store"
}

// the is kind with the definite article, for "it holds the ...".
func (c homeStore) the() string {
	if c.ai {
		return "the AI client's store"
	}
	return "the credential store"
}

// A machineHome is one form (as named, or resolved) of a home folder.
type machineHome struct {
	path   string
	user   string
	own    bool // the caller's $HOME
	stores []homeStore
}

// tilde is how a store of the home is named in a refusal.
func (h machineHome) tilde() string {
	if h.own {
		return "~/"
	}
	return h.path + "/"
}

// machineHomes returns every home folder of the machine in every form:
// the caller's $HOME, the homes of the passwd database that are folders
// of their own (not /, a system folder or a missing one), /root and every
// folder in /home; each as named and with its symlinks resolved, with the
// credential and AI-client stores in it, themselves also resolved (a
// ~/.ssh that is a symlink to a folder elsewhere). Read afresh on each
// call: $HOME may change in tests, and the files are small.
func machineHomes() []machineHome {
	var homes []named
	own := hostHome()
	if own != "" {
		homes = append(homes, named{own, "you"})
	}
	homes = append(homes, passwdHomes("/etc/passwd")...)
	homes = append(homes, named{"/root", "root"})
	if ents, err := os.ReadDir("/home"); err == nil {
		for _, e := range ents {
			homes = append(homes, named{filepath.Join("/home", e.Name()), e.Name()})
		}
	}
	var out []machineHome
	seen := map[string]bool{}
	ownForms := resolvedForms(own)
	for _, h := range homes {
		if h.path == "" || h.path == "/" || underSystemDir(h.path) || slices.Contains(systemDirs, h.path) {
			continue
		}
		for _, form := range resolvedForms(h.path) {
			if seen[form] {
				continue
			}
			seen[form] = true
			mh := machineHome{path: form, user: h.user, own: own != "" && slices.Contains(ownForms, form)}
			add := func(rel string, ai bool) {
				for _, p := range resolvedForms(filepath.Join(form, rel)) {
					mh.stores = append(mh.stores, homeStore{rel: rel, path: p, ai: ai})
				}
			}
			for _, c := range credentialStores {
				add(c, false)
			}
			for _, c := range aiClientStores {
				add(c, true)
			}
			out = append(out, mh)
		}
	}
	return out
}

// passwdHomes reads the home folders of the passwd file (/etc/passwd)
// that exist as folders.
func passwdHomes(passwd string) []named {
	f, err := os.Open(passwd)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []named
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Split(sc.Text(), ":")
		if len(fields) < 7 || !filepath.IsAbs(fields[5]) {
			continue
		}
		dir := filepath.Clean(fields[5])
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			continue
		}
		out = append(out, named{dir, fields[0]})
	}
	return out
}

// runtimeDirs are the folders holding the machine's daemon sockets, in
// every form: /run, /var/run and $XDG_RUNTIME_DIR.
func runtimeDirs() []string {
	dirs := []string{"/run", "/var/run"}
	if x := os.Getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(x) {
		dirs = append(dirs, filepath.Clean(x))
	}
	var out []string
	for _, d := range dirs {
		for _, f := range resolvedForms(d) {
			if !slices.Contains(out, f) {
				out = append(out, f)
			}
		}
	}
	return out
}
