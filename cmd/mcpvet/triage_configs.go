package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"golang.org/x/sys/unix"

	"github.com/mcpvet/mcpvet/internal/safe"
	"github.com/mcpvet/mcpvet/results"
	"github.com/mcpvet/mcpvet/scan/source"
	"github.com/mcpvet/mcpvet/vocab"
)

// triageConfig is one client config of a triage.
type triageConfig struct {
	found source.FoundConfig
	data  []byte
	plans []vocab.Plan
	err   error // a discovered config that could not be read
}

// triageSet is the configs of one triage and the servers to probe: a
// server named in several configs (or twice in one) is probed once.
type triageSet struct {
	explicit bool
	configs  []*triageConfig
	unique   []vocab.Plan
	// probed maps each entry's plan key to the key of the plan probed.
	probed map[string]string
}

// workspaceOf returns ${workspaceFolder} for a config file: the folder
// holding .vscode/, .cursor/, ... for a workspace config, else the
// config's own folder.
func workspaceOf(path string) string {
	dir := filepath.Dir(path)
	switch filepath.Base(dir) {
	case ".vscode", ".cursor", ".gemini", ".zed", ".codex":
		return filepath.Dir(dir)
	}
	return dir
}

// loadTriageConfigs reads the given config, or discovers the machine's.
func loadTriageConfigs(config string, copts *source.ConfigOptions, stderr io.Writer, quiet bool) (*triageSet, error) {
	set := &triageSet{explicit: config != "", probed: map[string]string{}}
	var found []source.FoundConfig
	if config != "" {
		abs, err := filepath.Abs(config)
		if err != nil {
			return nil, usagef("config %q: %v", config, err)
		}
		found = []source.FoundConfig{{Path: config, WorkspaceFolder: workspaceOf(abs)}}
	} else {
		wd, _ := os.Getwd()
		found = source.Discover(source.HostDiscoverEnv(runtime.GOOS, wd))
		if len(found) == 0 {
			return nil, usagef("no MCP client config found on this machine (looked for Claude Desktop, Claude Code, VS Code, Cursor, Windsurf, Gemini CLI, Codex CLI and Zed configs, and .mcp.json and .vscode/mcp.json here); give a config file: mcpvet triage PATH")
		}
	}
	seen := map[string]string{}
	for _, fc := range found {
		o := *copts
		o.Variables = map[string]string{}
		maps.Copy(o.Variables, copts.Variables)
		if fc.WorkspaceFolder != "" {
			o.Variables["workspaceFolder"] = fc.WorkspaceFolder
			o.Variables["workspaceFolderBasename"] = filepath.Base(fc.WorkspaceFolder)
			o.Dir = fc.WorkspaceFolder
		}
		tc := &triageConfig{found: fc}
		data, plans, err := readTriageConfig(fc.Path, &o)
		if err != nil {
			if set.explicit {
				return nil, err
			}
			// A settings.json without servers, or one that does not
			// parse: note it and go on with the others.
			tc.err = err
			if !quiet && !strings.Contains(err.Error(), "lists no servers") && !strings.Contains(err.Error(), "does not look like an MCP client config") {
				fmt.Fprintf(stderr, "mcpvet: skipping %s\n", safe.Line(err.Error()))
			}
		}
		tc.data, tc.plans = data, plans
		set.configs = append(set.configs, tc)
		for _, pl := range plans {
			id := planIdentity(pl)
			if key, dup := seen[id]; dup {
				set.probed[pl.Key] = key
				continue
			}
			seen[id] = pl.Key
			set.probed[pl.Key] = pl.Key
			set.unique = append(set.unique, pl)
		}
	}
	return set, nil
}

// planIdentity is what makes two config entries the same server: the same
// thing run the same way, whatever the entry is called.
func planIdentity(pl vocab.Plan) string {
	pl.Key, pl.Name, pl.Source, pl.Notes = "", "", "", nil
	b, _ := json.Marshal(pl)
	return string(b)
}

// label names the configs in messages and in the stored scan.
func (s *triageSet) label() string {
	var ok []string
	for _, c := range s.configs {
		if c.err == nil {
			ok = append(ok, c.found.Path)
		}
	}
	if len(ok) == 1 || s.explicit {
		return s.configs[0].found.Path
	}
	return fmt.Sprintf("%d client configs", len(ok))
}

func (s *triageSet) paths() []string {
	var out []string
	for _, c := range s.configs {
		out = append(out, c.found.Path)
	}
	return out
}

// expand reports every config entry, each with the run of the plan probed
// for it, in config order, with its line in its config.
func (s *triageSet) expand(t *results.Triage) {
	byKey := map[string]results.TriageServer{}
	for _, srv := range t.Servers {
		byKey[srv.Key] = srv
	}
	var servers []results.TriageServer
	multi := 0
	for _, c := range s.configs {
		if len(c.plans) > 0 {
			multi++
		}
	}
	for _, c := range s.configs {
		for _, pl := range c.plans {
			srv, ok := byKey[s.probed[pl.Key]]
			if !ok {
				continue
			}
			srv.Key, srv.Name = pl.Key, pl.Name
			srv.Line = configKeyLine(c.data, pl.Name)
			if multi > 1 {
				srv.Config = c.found.Path
			}
			servers = append(servers, srv)
		}
	}
	t.Servers = servers
	t.Recount()
}

// writeConfigList prints the configs found and their servers.
func writeConfigList(w io.Writer, s *triageSet) error {
	var b bytes.Buffer
	for _, c := range s.configs {
		head := safe.Line(c.found.Path)
		if c.found.Client != "" {
			head = fmt.Sprintf("%s (%s): %s", c.found.Client, c.found.Scope, head)
		}
		fmt.Fprintln(&b, head)
		if c.err != nil {
			fmt.Fprintf(&b, "  no servers read: %s\n", safe.Line(c.err.Error()))
			continue
		}
		tw := tabwriter.NewWriter(&b, 0, 8, 2, ' ', 0)
		for _, pl := range c.plans {
			fmt.Fprintf(tw, "  %s\t%s\n", safe.Line(pl.Name), safe.Line(describePlan(pl)))
		}
		tw.Flush()
	}
	_, err := w.Write(b.Bytes())
	return err
}

// describePlan says in one line what a plan runs.
func describePlan(pl vocab.Plan) string {
	var parts []string
	switch {
	case pl.URL != "":
		parts = append(parts, pl.Transport, pl.URL)
	case pl.Launcher != "" && pl.Package != nil:
		v := pl.Package.Version
		if v == "" {
			v = "latest"
		}
		parts = append(parts, fmt.Sprintf("%s %s@%s (installed by mcpvet)", pl.Launcher, pl.Package.Identifier, v))
		parts = append(parts, pl.Args...)
	default:
		parts = append(parts, pl.Command)
		parts = append(parts, pl.Args...)
	}
	if pl.Dir != "" {
		parts = append(parts, "(in "+pl.Dir+")")
	}
	if pl.Status != "" {
		parts = append(parts, "["+string(pl.Status)+": "+pl.StatusDetail+"]")
	}
	return strings.Join(parts, " ")
}

// terminalWidth returns the width reports should fit: $COLUMNS, else the
// terminal's when w is one, else 0 (no limit).
func terminalWidth(w io.Writer) int {
	if c, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && c > 0 {
		return c
	}
	if f, ok := w.(*os.File); ok {
		if ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ); err == nil && ws.Col > 0 {
			return int(ws.Col)
		}
	}
	return 0
}

// registerEnumCompletion makes shell completion offer values for flag.
func registerEnumCompletion(cmd *cobra.Command, flag string, values ...string) {
	_ = cmd.RegisterFlagCompletionFunc(flag, func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return values, cobra.ShellCompDirectiveNoFileComp
	})
}
