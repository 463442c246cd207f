package sandbox

import (
	"archive/zip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcpvet/mcpvet/vocab"
)

// Caps for MCPB bundles, which are untrusted zip files.
const (
	mcpbMaxDownload = 256 << 20 // the .mcpb file
	mcpbMaxTotal    = 1 << 30   // all files, uncompressed
	mcpbMaxEntries  = 20000
	mcpbMaxManifest = 1 << 20
)

// installMCPB fetches an MCP bundle (https URL, or a local file for plans
// that do not come from a registry), verifies its fileSha256, unpacks it
// into CACHE/mcpb/<sha256> and returns the command of its manifest's
// server.mcp_config.
func installMCPB(ctx context.Context, pkg *vocab.Package, o *Options, source string) (*entryPoint, error) {
	want := strings.ToLower(pkg.FileSHA256)
	if want != "" && !sha256Hex().MatchString(want) {
		return nil, launchErrorf(vocab.StatusInvalidPlan, "invalid fileSha256 %q", pkg.FileSHA256)
	}
	var warnings []string
	if want == "" {
		warnings = append(warnings, "mcpb bundle has no fileSha256: its integrity was not verified")
	}
	data, err := fetchBundle(ctx, pkg.Identifier, source)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(data)
	got := hex.EncodeToString(sum[:])
	if want != "" && got != want {
		return nil, &LaunchError{Status: vocab.StatusInstallFailed, Detail: "mcpb bundle digest mismatch", Evidence: fmt.Sprintf("fileSha256 %s, downloaded file %s", want, got)}
	}
	dir, err := cached(ctx, o, "mcpb", got, func(ctx context.Context, dir string) error {
		return unzipBundle(data, filepath.Join(dir, "bundle"))
	})
	if err != nil {
		return nil, err
	}
	ep, err := mcpbEntryPoint(filepath.Join(dir, "bundle"))
	if err != nil {
		return nil, err
	}
	ep.dir = dir
	ep.warnings = append(ep.warnings, warnings...)
	return ep, nil
}

// bundleClient downloads bundles; for an untrusted entry its dialer
// refuses private addresses (see [withPrivateGuard]).
var bundleClient = &http.Client{Transport: guardedTransport}

// fetchBundle reads the bundle from an https URL or a local path.
func fetchBundle(ctx context.Context, id, source string) ([]byte, error) {
	if strings.HasPrefix(id, "https://") || strings.HasPrefix(id, "http://") {
		if !validHTTPURL(id) {
			return nil, launchErrorf(vocab.StatusInvalidPlan, "invalid mcpb URL %q", id)
		}
		ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, id, nil)
		if err != nil {
			return nil, launchErrorf(vocab.StatusInvalidPlan, "invalid mcpb URL %q: %v", id, err)
		}
		resp, err := bundleClient.Do(req)
		if err != nil {
			return nil, &LaunchError{Status: vocab.StatusInstallFailed, Detail: "downloading mcpb bundle", Evidence: err.Error()}
		}
		defer resp.Body.Close()
		if resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusGone {
			return nil, launchErrorf(vocab.StatusPackageNotFound, "mcpb bundle %s: HTTP %d", id, resp.StatusCode)
		}
		if resp.StatusCode != http.StatusOK {
			return nil, launchErrorf(vocab.StatusInstallFailed, "mcpb bundle %s: HTTP %d", id, resp.StatusCode)
		}
		return readCapped(resp.Body, mcpbMaxDownload)
	}
	path := strings.TrimPrefix(id, "file://")
	if !filepath.IsAbs(path) {
		return nil, launchErrorf(vocab.StatusInvalidPlan, "mcpb identifier %q is neither an https URL nor an absolute path", id)
	}
	if source == "registry" {
		// A registry entry must not make mcpvet read the scanning host's
		// files.
		return nil, launchErrorf(vocab.StatusInvalidPlan, "registry mcpb identifier %q is a local path", id)
	}
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, launchErrorf(vocab.StatusPackageNotFound, "mcpb bundle %s does not exist", path)
		}
		return nil, launchErrorf(vocab.StatusInstallFailed, "opening mcpb bundle: %v", err)
	}
	defer f.Close()
	return readCapped(f, mcpbMaxDownload)
}

func readCapped(r io.Reader, max int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, &LaunchError{Status: vocab.StatusInstallFailed, Detail: "reading mcpb bundle", Evidence: err.Error()}
	}
	if int64(len(data)) > max {
		return nil, launchErrorf(vocab.StatusInstallFailed, "mcpb bundle is larger than %d bytes", max)
	}
	return data, nil
}

// unzipBundle extracts data into dir, refusing entries that would land
// outside it (zip slip), symlinks, devices, and archives past the caps. The
// sizes in the zip headers are not trusted: bytes are counted as written.
func unzipBundle(data []byte, dir string) error {
	zr, err := zip.NewReader(strings.NewReader(string(data)), int64(len(data)))
	if err != nil {
		return launchErrorf(vocab.StatusInstallFailed, "mcpb bundle is not a zip file: %v", err)
	}
	if len(zr.File) > mcpbMaxEntries {
		return launchErrorf(vocab.StatusInstallFailed, "mcpb bundle has %d entries (max %d)", len(zr.File), mcpbMaxEntries)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var total int64
	for _, zf := range zr.File {
		name := strings.ReplaceAll(zf.Name, "\\", "/")
		clean := filepath.Clean(filepath.FromSlash(name))
		if name == "" || strings.HasPrefix(name, "/") || clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) || filepath.IsAbs(clean) || strings.ContainsRune(name, 0) {
			return launchErrorf(vocab.StatusInstallFailed, "mcpb bundle entry %q escapes the bundle", zf.Name)
		}
		target := filepath.Join(dir, clean)
		mode := zf.Mode()
		switch {
		case mode.IsDir():
			if err := os.MkdirAll(target, 0o755); err != nil {
				return err
			}
			continue
		case !mode.IsRegular():
			return launchErrorf(vocab.StatusInstallFailed, "mcpb bundle entry %q is not a regular file (%v)", zf.Name, mode.Type())
		}
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		perm := os.FileMode(0o644)
		if mode&0o111 != 0 {
			perm = 0o755
		}
		rc, err := zf.Open()
		if err != nil {
			return launchErrorf(vocab.StatusInstallFailed, "reading mcpb bundle entry %q: %v", zf.Name, err)
		}
		out, err := os.OpenFile(target, os.O_CREATE|os.O_EXCL|os.O_WRONLY, perm)
		if err != nil {
			rc.Close()
			return launchErrorf(vocab.StatusInstallFailed, "extracting mcpb bundle entry %q: %v", zf.Name, err)
		}
		n, err := io.Copy(out, io.LimitReader(rc, mcpbMaxTotal-total+1))
		rc.Close()
		if cerr := out.Close(); err == nil {
			err = cerr
		}
		total += n
		if total > mcpbMaxTotal {
			return launchErrorf(vocab.StatusInstallFailed, "mcpb bundle expands beyond %d bytes", int64(mcpbMaxTotal))
		}
		if err != nil {
			return launchErrorf(vocab.StatusInstallFailed, "extracting mcpb bundle entry %q: %v", zf.Name, err)
		}
	}
	return nil
}

// mcpbManifest is the part of manifest.json mcpvet needs.
type mcpbManifest struct {
	Server struct {
		Type       string         `json:"type"`
		EntryPoint string         `json:"entry_point"`
		MCPConfig  *mcpbMCPConfig `json:"mcp_config"`
	} `json:"server"`
	UserConfig map[string]struct {
		Default  any  `json:"default"`
		Required bool `json:"required"`
	} `json:"user_config"`
}

type mcpbMCPConfig struct {
	Command           string                    `json:"command"`
	Args              []string                  `json:"args"`
	Env               map[string]string         `json:"env"`
	PlatformOverrides map[string]*mcpbMCPConfig `json:"platform_overrides"`
}

var mcpbVar = lazyRegexp(`\$\{([^}]*)\}`)

// mcpbEntryPoint reads manifest.json and resolves its command. Variables:
// ${__dirname} is the bundle folder, ${HOME} the sandbox HOME, ${/} and
// ${pathSeparator} "/", ${user_config.X} the option's default; an option
// without a default needs configuration.
func mcpbEntryPoint(bundle string) (*entryPoint, error) {
	m, err := readMCPBManifest(bundle)
	if err != nil {
		return nil, err
	}
	cfg, err := m.linuxConfig()
	if err != nil {
		return nil, err
	}
	var missing []string
	expand := func(s string) string {
		return mcpbVar().ReplaceAllStringFunc(s, func(v string) string {
			val, ok := m.variable(v[2:len(v)-1], bundle)
			if !ok {
				missing = append(missing, v[2:len(v)-1])
			}
			return val
		})
	}
	argv := []string{expand(cfg.Command)}
	for _, a := range cfg.Args {
		argv = append(argv, expand(a))
	}
	env := map[string]string{}
	for k, v := range cfg.Env {
		env[k] = expand(v)
	}
	if len(missing) > 0 {
		return nil, &LaunchError{Status: vocab.StatusNeedsConfiguration, Detail: "mcpb bundle needs configuration: " + strings.Join(missing, ", ")}
	}
	if err := checkMCPBCommand(argv[0], cfg.Command, bundle); err != nil {
		return nil, err
	}
	return &entryPoint{argv: argv, env: env}, nil
}

// readMCPBManifest reads and decodes a bundle's manifest.json.
func readMCPBManifest(bundle string) (*mcpbManifest, error) {
	f, err := os.Open(filepath.Join(bundle, "manifest.json"))
	if err != nil {
		return nil, launchErrorf(vocab.StatusInstallFailed, "mcpb bundle has no manifest.json")
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, mcpbMaxManifest))
	if err != nil {
		return nil, launchErrorf(vocab.StatusInstallFailed, "reading manifest.json: %v", err)
	}
	var m mcpbManifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, launchErrorf(vocab.StatusInstallFailed, "decoding manifest.json: %v", err)
	}
	return &m, nil
}

// linuxConfig returns the manifest's mcp_config, derived from the server
// type and entry point when there is none, with its linux override
// applied.
func (m *mcpbManifest) linuxConfig() (*mcpbMCPConfig, error) {
	cfg := m.Server.MCPConfig
	if cfg == nil {
		// No mcp_config: derive it from the type and entry point.
		cfg = &mcpbMCPConfig{Args: []string{"${__dirname}/" + m.Server.EntryPoint}}
		switch m.Server.Type {
		case "node":
			cfg.Command = "node"
		case "python":
			cfg.Command = "python3"
		case "binary":
			cfg = &mcpbMCPConfig{Command: "${__dirname}/" + m.Server.EntryPoint}
		default:
			return nil, launchErrorf(vocab.StatusInstallFailed, "manifest.json: unknown server type %q and no mcp_config", m.Server.Type)
		}
	}
	if o := cfg.PlatformOverrides["linux"]; o != nil {
		cfg = cfg.override(o)
	}
	if cfg.Command == "" {
		return nil, launchErrorf(vocab.StatusInstallFailed, "manifest.json: mcp_config has no command")
	}
	return cfg, nil
}

// override returns a copy of cfg with o's command, args and env over its
// own; env is merged key by key.
func (cfg *mcpbMCPConfig) override(o *mcpbMCPConfig) *mcpbMCPConfig {
	merged := *cfg
	if o.Command != "" {
		merged.Command = o.Command
	}
	if o.Args != nil {
		merged.Args = o.Args
	}
	for k, v := range o.Env {
		if merged.Env == nil {
			merged.Env = map[string]string{}
		}
		merged.Env[k] = v
	}
	return &merged
}

// variable returns the value of the manifest variable ${name} in bundle,
// false when it is unknown or a user_config option without a default.
func (m *mcpbManifest) variable(name, bundle string) (string, bool) {
	switch {
	case name == "__dirname":
		return bundle, true
	case name == "HOME":
		return sandboxHome, true
	case name == "/" || name == "pathSeparator":
		return "/", true
	case strings.HasPrefix(name, "user_config."):
		opt, ok := m.UserConfig[strings.TrimPrefix(name, "user_config.")]
		if ok && opt.Default != nil {
			return mcpbDefault(opt.Default), true
		}
	}
	return "", false
}

// mcpbDefault formats a user_config default: a list as its items joined
// by commas.
func mcpbDefault(d any) string {
	switch d := d.(type) {
	case string:
		return d
	case []any:
		var parts []string
		for _, p := range d {
			parts = append(parts, fmt.Sprint(p))
		}
		return strings.Join(parts, ",")
	default:
		return fmt.Sprint(d)
	}
}

// checkMCPBCommand refuses a bundle's command (cmd, expanded from the
// manifest's command) that is a path outside the bundle, or a runtime
// that is not on PATH.
func checkMCPBCommand(cmd, manifestCmd, bundle string) error {
	if filepath.IsAbs(cmd) {
		rel, err := filepath.Rel(bundle, cmd)
		if err != nil || strings.HasPrefix(rel, "..") {
			return launchErrorf(vocab.StatusInstallFailed, "manifest.json: command %q is outside the bundle", manifestCmd)
		}
		return nil
	}
	_, err := requireTool(cmd, cmd)
	return err
}
