package source

import (
	"os"
	"path/filepath"
)

// Client names of [FoundConfig.Client].
const (
	ClientClaudeDesktop = "Claude Desktop"
	ClientClaudeCode    = "Claude Code"
	ClientVSCode        = "VS Code"
	ClientCursor        = "Cursor"
	ClientWindsurf      = "Windsurf"
	ClientGemini        = "Gemini CLI"
	ClientCodex         = "Codex CLI"
	ClientZed           = "Zed"
)

// DiscoverEnv is where [Discover] looks: the user's folders as the clients
// compute them. Tests set every field; [HostDiscoverEnv] reads the host's.
type DiscoverEnv struct {
	// GOOS is linux, darwin or windows.
	GOOS string
	Home string
	// XDGConfigHome is $XDG_CONFIG_HOME (Linux; default ~/.config).
	XDGConfigHome string
	// AppData is %APPDATA% (Windows; default ~\AppData\Roaming).
	AppData string
	// CodexHome is $CODEX_HOME (default ~/.codex).
	CodexHome string
	// Dir is the project folder whose workspace configs (.mcp.json,
	// .vscode/mcp.json, ...) are included; "" for none.
	Dir string
}

// HostDiscoverEnv returns the discovery environment of this machine, with
// dir as the project folder.
func HostDiscoverEnv(goos, dir string) DiscoverEnv {
	home, _ := os.UserHomeDir()
	return DiscoverEnv{GOOS: goos, Home: home, XDGConfigHome: os.Getenv("XDG_CONFIG_HOME"), AppData: os.Getenv("APPDATA"),
		CodexHome: os.Getenv("CODEX_HOME"), Dir: dir}
}

// A FoundConfig is a client config file that exists.
type FoundConfig struct {
	Client string `json:"client"`
	// Scope is "user" or "project".
	Scope string `json:"scope"`
	Path  string `json:"path"`
	// WorkspaceFolder is ${workspaceFolder} for the config's servers: the
	// project folder of a project config, "" for a user one.
	WorkspaceFolder string `json:"workspaceFolder,omitempty"`
}

// Discover lists the MCP client configs that exist in env, user configs
// first (Claude Desktop, Claude Code, VS Code, Cursor, Windsurf, Gemini
// CLI, Codex CLI, Zed), then the project's. Each path is listed once.
func Discover(env DiscoverEnv) []FoundConfig {
	home := env.Home
	// The per-OS application data folder.
	var appSupport string
	switch env.GOOS {
	case "darwin":
		appSupport = filepath.Join(home, "Library", "Application Support")
	case "windows":
		appSupport = env.AppData
		if appSupport == "" {
			appSupport = filepath.Join(home, "AppData", "Roaming")
		}
	default:
		appSupport = env.XDGConfigHome
		if appSupport == "" {
			appSupport = filepath.Join(home, ".config")
		}
	}
	zedDir := filepath.Join(home, ".config", "zed")
	switch {
	case env.GOOS == "windows":
		zedDir = filepath.Join(appSupport, "Zed")
	case env.GOOS != "darwin" && env.XDGConfigHome != "":
		zedDir = filepath.Join(env.XDGConfigHome, "zed")
	}
	codexHome := env.CodexHome
	if codexHome == "" {
		codexHome = filepath.Join(home, ".codex")
	}
	type cand struct{ client, path string }
	user := []cand{
		{ClientClaudeDesktop, filepath.Join(appSupport, "Claude", "claude_desktop_config.json")},
		{ClientClaudeCode, filepath.Join(home, ".claude.json")},
	}
	for _, code := range []string{"Code", "Code - Insiders", "VSCodium"} {
		user = append(user,
			cand{ClientVSCode, filepath.Join(appSupport, code, "User", "mcp.json")},
			cand{ClientVSCode, filepath.Join(appSupport, code, "User", "settings.json")})
	}
	user = append(user,
		cand{ClientCursor, filepath.Join(home, ".cursor", "mcp.json")},
		cand{ClientWindsurf, filepath.Join(home, ".codeium", "windsurf", "mcp_config.json")},
		cand{ClientGemini, filepath.Join(home, ".gemini", "settings.json")},
		cand{ClientCodex, filepath.Join(codexHome, "config.toml")},
		cand{ClientZed, filepath.Join(zedDir, "settings.json")},
	)
	var project []cand
	if env.Dir != "" {
		d := env.Dir
		project = []cand{
			{ClientClaudeCode, filepath.Join(d, ".mcp.json")},
			{ClientVSCode, filepath.Join(d, ".vscode", "mcp.json")},
			{ClientVSCode, filepath.Join(d, ".vscode", "settings.json")},
			{ClientCursor, filepath.Join(d, ".cursor", "mcp.json")},
			{ClientGemini, filepath.Join(d, ".gemini", "settings.json")},
			{ClientCodex, filepath.Join(d, ".codex", "config.toml")},
			{ClientZed, filepath.Join(d, ".zed", "settings.json")},
		}
	}
	var out []FoundConfig
	seen := map[string]bool{}
	add := func(c cand, scope, ws string) {
		if home == "" && scope == "user" {
			return
		}
		fi, err := os.Stat(c.path)
		if err != nil || !fi.Mode().IsRegular() || seen[c.path] {
			return
		}
		seen[c.path] = true
		out = append(out, FoundConfig{Client: c.client, Scope: scope, Path: c.path, WorkspaceFolder: ws})
	}
	for _, c := range user {
		add(c, "user", "")
	}
	for _, c := range project {
		add(c, "project", env.Dir)
	}
	return out
}
