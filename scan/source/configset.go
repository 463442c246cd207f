package source

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpvet/mcpvet/vocab"
)

// ErrNoConfig is returned by [LoadConfigSet] when discovery finds no
// client config.
var ErrNoConfig = errors.New("no MCP client config found on this machine (looked for Claude Desktop, Claude Code, VS Code, Cursor, Windsurf, Gemini CLI, Codex CLI and Zed configs, and .mcp.json and .vscode/mcp.json here); give a config file: mcpvet triage PATH")

// A SetConfig is one client config of a [ConfigSet].
type SetConfig struct {
	Found FoundConfig
	// Data is the file as read, for locating entries in reports.
	Data []byte
	// Plans are the config's runnable entries, in file order.
	Plans []vocab.Plan
	// Skipped are the entries not probed, each with its reason.
	Skipped []SkippedEntry
	// Err says why a discovered config could not be read at all.
	Err error
}

// A ConfigSet is the client configs of one `mcpvet triage`, `scan
// --config` or `probe --config`, and the distinct servers they name: two
// entries with the same [vocab.Plan.Identity] (the same URL, or the same
// command run the same way) are one server, probed once, whatever the
// entries are called and whichever clients name them.
type ConfigSet struct {
	// Explicit is true when the config was given, not discovered.
	Explicit bool
	Configs  []*SetConfig
	// Unique are the plans to probe, one per identity, in config order.
	Unique []vocab.Plan
	// Probed maps each entry's plan key to the key of the plan probed for
	// it (its own key for the first entry of an identity).
	Probed map[string]string
}

// WorkspaceOf returns ${workspaceFolder} for a config file: the folder
// holding .vscode/, .cursor/, .gemini/, .zed/ or .codex/ for a workspace
// config, else the config's own folder.
func WorkspaceOf(path string) string {
	dir := filepath.Dir(path)
	switch filepath.Base(dir) {
	case ".vscode", ".cursor", ".gemini", ".zed", ".codex":
		return filepath.Dir(dir)
	}
	return dir
}

// LoadConfigSet reads the config file path, or discovers the configs of
// env when path is "" (user configs, then the project configs of env.Dir).
// opts are the reading options every config shares (translation, inputs,
// variables, the environment lookup); each config adds its own file and
// workspace folder. A given config that cannot be read, or lists no
// server, is an error naming the file; a discovered one is kept with its
// Err and the others are read. Entries that cannot be read are skipped one
// by one ([SetConfig.Skipped]).
func LoadConfigSet(path string, env DiscoverEnv, opts *ConfigOptions) (*ConfigSet, error) {
	if opts == nil {
		opts = &ConfigOptions{}
	}
	set := &ConfigSet{Explicit: path != "", Probed: map[string]string{}}
	var found []FoundConfig
	if path != "" {
		abs, err := filepath.Abs(path)
		if err != nil {
			return nil, fmt.Errorf("config %q: %v", path, err)
		}
		found = []FoundConfig{{Path: path, WorkspaceFolder: WorkspaceOf(abs), Client: clientOf(abs)}}
	} else if found = Discover(env); len(found) == 0 {
		return nil, ErrNoConfig
	}
	seen := map[string]string{}
	for _, fc := range found {
		o := *opts
		o.Variables = map[string]string{}
		maps.Copy(o.Variables, opts.Variables)
		if fc.WorkspaceFolder != "" {
			o.Variables["workspaceFolder"] = fc.WorkspaceFolder
			o.Variables["workspaceFolderBasename"] = filepath.Base(fc.WorkspaceFolder)
			o.Dir = fc.WorkspaceFolder
		}
		o.File = fc.Path
		sc := &SetConfig{Found: fc}
		sc.Data, sc.Plans, sc.Skipped, sc.Err = readSetConfig(fc.Path, &o)
		if sc.Err != nil && set.Explicit {
			return nil, sc.Err
		}
		set.Configs = append(set.Configs, sc)
		for _, pl := range sc.Plans {
			id := pl.Identity()
			if key, dup := seen[id]; dup {
				set.Probed[pl.Key] = key
				continue
			}
			seen[id] = pl.Key
			set.Probed[pl.Key] = pl.Key
			set.Unique = append(set.Unique, pl)
		}
	}
	return set, nil
}

// clientOf names the client of a config file given on the command line,
// by the file names Discover looks for; "" when it is none of them.
func clientOf(abs string) string {
	base, dir := filepath.Base(abs), filepath.Base(filepath.Dir(abs))
	switch {
	case base == "claude_desktop_config.json":
		return ClientClaudeDesktop
	case base == ".claude.json" || base == ".mcp.json":
		return ClientClaudeCode
	case dir == ".vscode" || (dir == "User" && (base == "mcp.json" || base == "settings.json")):
		return ClientVSCode
	case dir == ".cursor":
		return ClientCursor
	case base == "mcp_config.json" && dir == "windsurf":
		return ClientWindsurf
	case dir == ".gemini":
		return ClientGemini
	case base == "config.toml" && (dir == ".codex" || strings.Contains(abs, "codex")):
		return ClientCodex
	case dir == "zed" || dir == ".zed" || dir == "Zed":
		return ClientZed
	}
	return ""
}

// readSetConfig reads one config of a set. Any problem with the file is
// one error naming it and what would work.
func readSetConfig(path string, o *ConfigOptions) (data []byte, plans []vocab.Plan, skipped []SkippedEntry, err error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("config %q: %v; give the path of an MCP client config such as claude_desktop_config.json", path, err)
	}
	defer file.Close()
	if fi, err := file.Stat(); err == nil && fi.IsDir() {
		return nil, nil, nil, fmt.Errorf("config %q is a directory; give the config file inside it, such as mcp.json", path)
	}
	data, err = io.ReadAll(io.LimitReader(file, DefaultMaxConfigBytes+1))
	if err != nil {
		return nil, nil, nil, fmt.Errorf("config %q: %v", path, err)
	}
	read, err := ReadConfigEntries(bytes.NewReader(data), o)
	if err != nil {
		return data, nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(read.Plans) == 0 {
		if len(read.Skipped) > 0 {
			var why []string
			for _, s := range read.Skipped {
				why = append(why, s.Name+": "+s.Reason)
			}
			return data, nil, read.Skipped, fmt.Errorf("%s: no server mcpvet can probe (%s)", path, strings.Join(why, "; "))
		}
		return data, nil, nil, fmt.Errorf("%s lists no servers; add one under \"mcpServers\" (Claude Desktop, Cursor) or \"servers\" (VS Code)", path)
	}
	return data, read.Plans, read.Skipped, nil
}

// Label names the configs of s in messages and in the stored scan: the
// path of a given or only readable config, else "N client configs".
func (s *ConfigSet) Label() string {
	var ok []string
	for _, c := range s.Configs {
		if c.Err == nil {
			ok = append(ok, c.Found.Path)
		}
	}
	if len(ok) == 1 {
		return ok[0]
	}
	if s.Explicit || len(ok) == 0 {
		return s.Configs[0].Found.Path
	}
	return fmt.Sprintf("%d client configs", len(ok))
}

// Paths lists the paths of the configs of s.
func (s *ConfigSet) Paths() []string {
	var out []string
	for _, c := range s.Configs {
		out = append(out, c.Found.Path)
	}
	return out
}

// Entry returns the plan of the entry named name ("NAME", or
// "PROJECT#NAME" for a Claude Code project's entry) and the key of the
// plan probed for it. It reports false when no config of s has it.
func (s *ConfigSet) Entry(name string) (vocab.Plan, bool) {
	for _, c := range s.Configs {
		for _, pl := range c.Plans {
			if pl.Name == name || strings.HasSuffix(pl.Key, "#"+name) {
				return pl, true
			}
		}
	}
	return vocab.Plan{}, false
}

// EntryNames lists the names of the entries of s, for messages.
func (s *ConfigSet) EntryNames() []string {
	var out []string
	seen := map[string]bool{}
	for _, c := range s.Configs {
		for _, pl := range c.Plans {
			if !seen[pl.Name] {
				seen[pl.Name] = true
				out = append(out, pl.Name)
			}
		}
	}
	return out
}

// KeyLine returns the 1-based line of the first `"name":` member key in a
// JSON or JSONC document (or `[mcp_servers.name]` table of a TOML one),
// or 0.
func KeyLine(doc []byte, name string) int {
	if name == "" {
		return 0
	}
	for _, key := range [][]byte{jsonKey(name), []byte("mcp_servers." + name + "]"), []byte("mcp_servers.\"" + name + "\"]")} {
		for off := 0; off < len(doc); {
			i := bytes.Index(doc[off:], key)
			if i < 0 {
				break
			}
			at := off + i
			rest := bytes.TrimLeft(doc[at+len(key):], " \t\r\n")
			if key[0] != '"' || (len(rest) > 0 && rest[0] == ':') {
				return bytes.Count(doc[:at], []byte("\n")) + 1
			}
			off = at + len(key)
		}
	}
	return 0
}

func jsonKey(name string) []byte {
	var b bytes.Buffer
	b.WriteByte('"')
	for _, r := range name {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.Bytes()
}
