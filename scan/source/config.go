package source

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpvet/mcpvet/vocab"
)

// DefaultMaxConfigBytes caps the size of a client config.
const DefaultMaxConfigBytes = 16 << 20

// ConfigOptions configure [ReadConfig].
type ConfigOptions struct {
	// File names the config in plan keys ("config:FILE#NAME") and sources
	// ("config:FILE"); "mcp.json" when empty.
	File string
	// Inputs are values for VS Code's ${input:ID} references, by ID.
	Inputs map[string]string
	// LookupEnv resolves ${env:NAME}, ${NAME} and ${NAME:-default}. When nil
	// they stay unresolved (the plan needs configuration): the user's own
	// environment, tokens included, is not handed to servers under test
	// unless the caller chooses to.
	LookupEnv func(name string) (string, bool)
	// Variables resolve ${NAME} references such as ${workspaceFolder} and
	// ${userHome}.
	Variables map[string]string
	// MaxBytes caps the config's size, DefaultMaxConfigBytes when 0.
	MaxBytes int64
	// Translate turns launcher commands (npx -y, uvx, docker run) into
	// package plans that mcpvet installs itself; see [Translate]. The CLI
	// sets it unless --no-translate is given.
	Translate bool
	// Dir is the folder the config belongs to: ${workspaceFolder}, and
	// where relative "cwd" and "envFile" paths start.
	Dir string
}

// A ConfigError is a client config that cannot be read: Path is the
// offending field ("servers.github"), Msg says what is wrong and what would
// work.
type ConfigError struct {
	Path string
	Msg  string
}

func (e *ConfigError) Error() string {
	if e.Path == "" {
		return "config: " + e.Msg
	}
	return "config " + e.Path + ": " + e.Msg
}

// ReadConfig reads an MCP client config and returns one plan per server, in
// file order. The format is detected:
//
//   - "mcpServers" (Claude Desktop's claude_desktop_config.json, Cursor's
//     mcp.json, Claude Code's .mcp.json): {name: {command, args, env}} or
//     {name: {url, headers, type}};
//   - "servers" and "inputs" (VS Code's mcp.json), or the same under "mcp"
//     (VS Code's settings.json): {name: {type: stdio|http|sse, command, args,
//     env, url, headers}}.
//
// Comments and trailing commas are allowed, as VS Code allows them.
// ${input:ID}, ${env:NAME}, ${NAME} and ${NAME:-default} references are
// resolved from opts; a reference left unresolved makes the plan
// needs_configuration, except a VS Code password input that is a whole
// environment variable's value, which becomes a secret the sandbox fills
// with a canary. Errors are [*ConfigError]s. opts may be nil.
func ReadConfig(r io.Reader, opts *ConfigOptions) ([]vocab.Plan, error) {
	var o ConfigOptions
	if opts != nil {
		o = *opts
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxConfigBytes
	}
	if o.File == "" {
		o.File = "mcp.json"
	}
	data, err := io.ReadAll(io.LimitReader(r, o.MaxBytes+1))
	if err != nil {
		return nil, &ConfigError{Msg: "reading: " + err.Error()}
	}
	if int64(len(data)) > o.MaxBytes {
		return nil, &ConfigError{Msg: fmt.Sprintf("larger than %d bytes; an MCP client config is a small JSON file", o.MaxBytes)}
	}
	read, err := parseConfig(data, &o)
	if err != nil {
		return nil, err
	}
	for _, sk := range read.Skipped {
		if sk.Err != nil {
			return nil, sk.Err
		}
	}
	return read.Plans, nil
}

// A SkippedEntry is a config entry that gives no plan: one its client does
// not run (disabled, or a Zed extension server, configured inside Zed),
// or one that cannot be read (Err says why, naming the field).
type SkippedEntry struct {
	// Name is the entry's name; Path its field path ("mcpServers.github").
	Name string `json:"name"`
	Path string `json:"path"`
	// Reason says in one line why the entry is not probed.
	Reason string `json:"reason"`
	// Err is the [*ConfigError] of an entry that cannot be read.
	Err error `json:"-"`
}

// A ConfigRead is what [ReadConfigEntries] read from one config.
type ConfigRead struct {
	// Plans are the runnable entries, in file order.
	Plans []vocab.Plan
	// Skipped are the entries skipped one by one, in file order.
	Skipped []SkippedEntry
}

// ReadConfigEntries reads a client config like [ReadConfig], but an entry
// that cannot be read is skipped with its reason instead of failing the
// file: a file is unreadable only when its syntax or its shape is.
func ReadConfigEntries(r io.Reader, opts *ConfigOptions) (*ConfigRead, error) {
	var o ConfigOptions
	if opts != nil {
		o = *opts
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxConfigBytes
	}
	if o.File == "" {
		o.File = "mcp.json"
	}
	data, err := io.ReadAll(io.LimitReader(r, o.MaxBytes+1))
	if err != nil {
		return nil, &ConfigError{Msg: "reading: " + err.Error()}
	}
	if int64(len(data)) > o.MaxBytes {
		return nil, &ConfigError{Msg: fmt.Sprintf("larger than %d bytes; an MCP client config is a small JSON file", o.MaxBytes)}
	}
	return parseConfig(data, &o)
}

type configInput struct {
	Type     string `json:"type"`
	ID       string `json:"id"`
	Password bool   `json:"password"`
	Default  string `json:"default"`
}

type configReader struct {
	opts   *ConfigOptions
	inputs map[string]configInput
}

// parseConfig reads the plans of a config of at most MaxBytes.
func parseConfig(data []byte, o *ConfigOptions) (*ConfigRead, error) {
	top, err := configTop(data, o.File)
	if err != nil {
		return nil, err
	}
	cr := &configReader{opts: o, inputs: map[string]configInput{}}
	groups, err := cr.serverGroups(top)
	if err != nil {
		return nil, err
	}
	return cr.plans(groups)
}

// configTop decodes a config (JSON with comments, or TOML when file ends in
// .toml) and returns the members of its top-level object.
func configTop(data []byte, file string) ([]member, error) {
	data = bytes.TrimPrefix(data, utf8BOM)
	clean := stripJSONC(data)
	if strings.HasSuffix(strings.ToLower(file), ".toml") {
		// Codex CLI's config.toml: [mcp_servers.NAME] tables.
		j, err := tomlToJSON(data)
		if err != nil {
			return nil, &ConfigError{Msg: err.Error()}
		}
		clean = j
	}
	if !json.Valid(clean) {
		var v any
		err := json.Unmarshal(clean, &v)
		return nil, &ConfigError{Msg: syntaxError(data, err)}
	}
	top, err := objectMembers(clean)
	if err != nil {
		return nil, &ConfigError{Msg: fmt.Sprintf(`want a JSON object with "mcpServers" (Claude Desktop, Cursor) or "servers" (VS Code), got %s`, describeJSON(clean))}
	}
	return top, nil
}

// A serverGroup is one object of named servers in a config.
type serverGroup struct {
	path    string // field path in messages
	scope   string // key prefix, "" for the top level
	dir     string // default working directory
	members []member
}

// serverGroups collects the config's server objects in file order and
// reads its VS Code inputs on the way.
func (cr *configReader) serverGroups(top []member) ([]serverGroup, error) {
	var groups []serverGroup
	found := false
	for _, m := range top {
		var more []serverGroup
		var err error
		switch m.Key {
		case "mcpServers", "servers", "context_servers", "mcp_servers":
			// Claude Desktop, Cursor, Claude Code, Gemini CLI, Windsurf;
			// VS Code; Zed; Codex CLI.
			found = true
			more, err = namedServers(m.Key, m.Value)
		case "projects":
			more, err = projectServers(m.Value)
			found = found || len(more) > 0
		case "inputs":
			err = cr.readInputs("inputs", m.Value)
		case "mcp":
			var hasServers bool
			more, hasServers, err = cr.settingsServers(m.Value)
			found = found || hasServers
		}
		if err != nil {
			return nil, err
		}
		groups = append(groups, more...)
	}
	if !found {
		return nil, &ConfigError{Msg: `no "mcpServers" (Claude Desktop, Cursor, Claude Code, Gemini CLI, Windsurf), "servers" (VS Code), "context_servers" (Zed) or [mcp_servers] (Codex CLI); this does not look like an MCP client config`}
	}
	return groups, nil
}

// namedServers returns the group of servers at path; none when raw is null.
func namedServers(path string, raw json.RawMessage) ([]serverGroup, error) {
	if isNull(raw) {
		return nil, nil
	}
	ms, err := objectMembers(raw)
	if err != nil {
		return nil, notServersError(path, raw)
	}
	return []serverGroup{{path: path, members: ms}}, nil
}

func notServersError(path string, raw json.RawMessage) error {
	return &ConfigError{Path: path, Msg: fmt.Sprintf("want an object of named servers, got %s", describeJSON(raw))}
}

// projectServers returns the per-project servers of Claude Code's
// ~/.claude.json ({"projects": {DIR: {"mcpServers": ...}}}), which run in
// the project's folder. Projects without servers have no group.
func projectServers(raw json.RawMessage) ([]serverGroup, error) {
	projects, err := objectMembers(raw)
	if err != nil {
		return nil, nil // Codex has [projects."/path"] trust tables
	}
	var groups []serverGroup
	for _, pm := range projects {
		fields, err := objectMembers(pm.Value)
		if err != nil {
			continue
		}
		for _, f := range fields {
			if f.Key != "mcpServers" || isNull(f.Value) {
				continue
			}
			path := "projects." + pm.Key + ".mcpServers"
			ms, err := objectMembers(f.Value)
			if err != nil {
				return nil, notServersError(path, f.Value)
			}
			if len(ms) > 0 {
				groups = append(groups, serverGroup{path: path, scope: pm.Key, dir: pm.Key, members: ms})
			}
		}
	}
	return groups, nil
}

// settingsServers reads VS Code's settings.json form, {"mcp": {"servers":
// ..., "inputs": ...}}. found reports a "servers" member.
func (cr *configReader) settingsServers(raw json.RawMessage) (groups []serverGroup, found bool, err error) {
	inner, err := objectMembers(raw)
	if err != nil {
		return nil, false, nil
	}
	for _, im := range inner {
		var more []serverGroup
		switch im.Key {
		case "servers":
			found = true
			more, err = namedServers("mcp.servers", im.Value)
		case "inputs":
			err = cr.readInputs("mcp.inputs", im.Value)
		}
		if err != nil {
			return nil, found, err
		}
		groups = append(groups, more...)
	}
	return groups, found, nil
}

// plans reads the servers of groups in order, skipping those their client
// does not run. Names must be unique within a scope.
func (cr *configReader) plans(groups []serverGroup) (*ConfigRead, error) {
	read := &ConfigRead{}
	seen := map[string]string{}
	for _, g := range groups {
		for _, m := range g.members {
			path := g.path + "." + m.Key
			bad := func(err error) {
				read.Skipped = append(read.Skipped, SkippedEntry{Name: m.Key, Path: path, Reason: err.Error(), Err: err})
			}
			if m.Key == "" {
				bad(&ConfigError{Path: path, Msg: "a server has an empty name; give it one"})
				continue
			}
			id := g.scope + "\x00" + m.Key
			if prev, dup := seen[id]; dup {
				bad(&ConfigError{Path: path, Msg: fmt.Sprintf("the name is used twice (also %s); rename one", prev)})
				continue
			}
			seen[id] = path
			if why := skipServer(m.Value); why != "" {
				read.Skipped = append(read.Skipped, SkippedEntry{Name: m.Key, Path: path, Reason: why})
				continue
			}
			pl, err := cr.server(path, m.Key, m.Value)
			if err != nil {
				bad(err)
				continue
			}
			if g.scope != "" {
				pl.Key = "config:" + cr.opts.File + "#" + g.scope + "#" + m.Key
				if pl.Dir == "" {
					pl.Dir = g.dir
				}
			}
			read.Plans = append(read.Plans, pl)
		}
	}
	return read, nil
}

func (cr *configReader) readInputs(path string, raw json.RawMessage) error {
	if isNull(raw) {
		return nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return &ConfigError{Path: path, Msg: fmt.Sprintf(`want an array of inputs like {"type": "promptString", "id": "token", "password": true}, got %s`, describeJSON(raw))}
	}
	for i, item := range items {
		p := fmt.Sprintf("%s[%d]", path, i)
		var in configInput
		if !isObject(item) {
			return &ConfigError{Path: p, Msg: fmt.Sprintf(`want an object like {"type": "promptString", "id": "token"}, got %s`, describeJSON(item))}
		}
		if err := json.Unmarshal(item, &in); err != nil {
			return &ConfigError{Path: p, Msg: fmt.Sprintf(`%v; "id" and "type" are strings, "password" is true or false`, jsonTypeError(err))}
		}
		if in.ID == "" {
			return &ConfigError{Path: p, Msg: `"id" is missing; an input needs one to be referenced as ${input:ID}`}
		}
		cr.inputs[in.ID] = in
	}
	return nil
}

// jsonTypeError shortens an *json.UnmarshalTypeError for messages.
func jsonTypeError(err error) string {
	if te, ok := err.(*json.UnmarshalTypeError); ok && te.Field != "" {
		return fmt.Sprintf("%q is %s, not %s", te.Field, te.Value, te.Type)
	}
	return err.Error()
}

// transport names accepted in configs.
var configTransports = map[string]string{
	"stdio":           vocab.TransportStdio,
	"http":            vocab.TransportStreamable,
	"streamable-http": vocab.TransportStreamable,
	"streamableHttp":  vocab.TransportStreamable,
	"sse":             vocab.TransportSSE,
}

// planState collects unresolved references and secrets of one config server.
type planState struct {
	missing []string
	secrets []string
	hints   []string // the flags that would resolve the references
}

// serverFields are the members of one server's object.
type serverFields []member

// get returns the first non-null value of key, or nil.
func (fs serverFields) get(key string) json.RawMessage {
	for _, f := range fs {
		if f.Key == key && !isNull(f.Value) {
			return f.Value
		}
	}
	return nil
}

// server reads the server name at path into a plan.
func (cr *configReader) server(path, name string, raw json.RawMessage) (vocab.Plan, error) {
	members, err := objectMembers(raw)
	if err != nil {
		return vocab.Plan{}, &ConfigError{Path: path, Msg: fmt.Sprintf(`want an object like {"command": "npx", "args": [...]} or {"url": "https://..."}, got %s`, describeJSON(raw))}
	}
	fields := serverFields(members)
	pl := vocab.Plan{
		Key:    "config:" + cr.opts.File + "#" + name,
		Name:   name,
		Source: "config:" + cr.opts.File,
	}
	// "type" is read before Zed's command object is unfolded: a "type"
	// inside that object is not the server's.
	typ, err := configTransport(path, fields.get("type"))
	if err != nil {
		return pl, err
	}
	fields = unfoldZedCommand(fields)
	ep, err := readEndpoint(path, fields, typ)
	if err != nil {
		return pl, err
	}
	pl.Transport = ep.transport

	var st planState
	if ep.transport == vocab.TransportStdio {
		err = cr.stdioServer(&pl, &st, path, fields, ep.command)
	} else {
		err = cr.remoteServer(&pl, &st, path, fields, ep)
	}
	if err != nil {
		return pl, err
	}
	st.apply(&pl)
	if cr.opts.Translate {
		translateInPlace(&pl)
	}
	return pl, nil
}

// configTransport reads a "type" field: a transport name of
// configTransports, or "" when raw is nil.
func configTransport(path string, raw json.RawMessage) (string, error) {
	if raw == nil {
		return "", nil
	}
	s, err := stringField(path, "type", raw, "use stdio, http or sse")
	if err != nil {
		return "", err
	}
	t, ok := configTransports[s]
	if !ok {
		return "", &ConfigError{Path: path, Msg: fmt.Sprintf(`"type": %s is not a transport; use stdio, http or sse`, quoteValue(raw))}
	}
	return t, nil
}

// unfoldZedCommand turns Zed's older form, "command": {"path", "args",
// "env"}, into the usual "command", "args" and "env" fields. Those of the
// object come after the server's own, so the server's win.
func unfoldZedCommand(fields serverFields) serverFields {
	c := fields.get("command")
	if !isObject(c) {
		return fields
	}
	inner, _ := objectMembers(c)
	for _, f := range inner {
		key := f.Key
		if key == "path" {
			key = "command"
		}
		fields = append(fields, member{Key: key, Value: f.Value})
	}
	return slices.DeleteFunc(fields, func(m member) bool { return m.Key == "command" && isObject(m.Value) })
}

// An endpoint is how a config server is reached: its transport, and the
// command or URL as written (nil when absent).
type endpoint struct {
	transport string
	command   *string
	url       *string
	urlKey    string          // the field url came from
	rawURL    json.RawMessage // url's JSON, for messages
}

// readEndpoint reads "command" and the URL fields; typ is the "type"
// field's transport, inferred from them when "".
func readEndpoint(path string, fields serverFields, typ string) (endpoint, error) {
	ep := endpoint{transport: typ, urlKey: "url", rawURL: fields.get("url")}
	var err error
	ep.command, err = optString(path, "command", fields.get("command"), `give the program to run, e.g. "npx"`)
	if err != nil {
		return ep, err
	}
	for _, k := range []string{"serverUrl", "httpUrl"} {
		// Windsurf's serverUrl; Gemini CLI's httpUrl (streamable HTTP).
		if ep.rawURL == nil && fields.get(k) != nil {
			ep.urlKey, ep.rawURL = k, fields.get(k)
		}
	}
	ep.url, err = optString(path, ep.urlKey, ep.rawURL, `give the server's address, e.g. "https://example.com/mcp"`)
	if err != nil {
		return ep, err
	}
	if ep.transport == "" {
		ep.transport, err = inferTransport(path, ep.command, ep.url)
	}
	return ep, err
}

// inferTransport picks the transport of a server without "type": stdio
// for a command, streamable HTTP or SSE for a URL.
func inferTransport(path string, command, u *string) (string, error) {
	switch {
	case command != nil && u != nil:
		return "", &ConfigError{Path: path, Msg: `has both "command" and "url"; keep "command" for a local server or "url" for a remote one, or set "type"`}
	case command != nil:
		return vocab.TransportStdio, nil
	case u != nil:
		// Cursor and Claude pick SSE for URLs that name it.
		if strings.HasSuffix(strings.TrimRight(*u, "/"), "/sse") {
			return vocab.TransportSSE, nil
		}
		return vocab.TransportStreamable, nil
	default:
		return "", &ConfigError{Path: path, Msg: `no "command" or "url"; set "command" to run a local server or "url" to reach a remote one`}
	}
}

// stdioServer fills the command, arguments, folder and environment of a
// local server. The steps run in this order so that unresolved references
// and secrets are listed in it.
func (cr *configReader) stdioServer(pl *vocab.Plan, st *planState, path string, fields serverFields, command *string) error {
	if command == nil || strings.TrimSpace(*command) == "" {
		return &ConfigError{Path: path, Msg: `"command" is missing or empty; a stdio server needs the program to run, e.g. "npx"`}
	}
	pl.Command, _ = cr.expand(*command, "command", st, false)
	args, err := stringList(path, "args", fields.get("args"))
	if err != nil {
		return err
	}
	for i, a := range args {
		v, _ := cr.expand(a, fmt.Sprintf("args[%d]", i), st, false)
		pl.Args = append(pl.Args, v)
	}
	env, err := cr.declaredEnv(path, fields, st)
	if err != nil {
		return err
	}
	if raw := fields.get("cwd"); raw != nil {
		if pl.Dir, err = cr.workDir(path, raw, st); err != nil {
			return err
		}
	}
	env, err = cr.forwardedEnv(path, fields.get("env_vars"), env, st)
	if err != nil {
		return err
	}
	pl.Env = cr.resolveValues(env, "env.", "", st)
	return nil
}

// declaredEnv returns the variables of "env", after those of VS Code's
// "envFile" so that "env" wins.
func (cr *configReader) declaredEnv(path string, fields serverFields, st *planState) ([]keyValue, error) {
	env, err := stringMap(path, "env", fields.get("env"))
	if err != nil {
		return nil, err
	}
	if raw := fields.get("envFile"); raw != nil {
		fileEnv, err := cr.envFile(path, raw, st)
		if err != nil {
			return nil, err
		}
		env = append(fileEnv, env...)
	}
	return env, nil
}

// workDir reads "cwd": relative folders start at [ConfigOptions.Dir].
func (cr *configReader) workDir(path string, raw json.RawMessage, st *planState) (string, error) {
	dir, err := stringField(path, "cwd", raw, `give the folder the server starts in, e.g. "${workspaceFolder}"`)
	if err != nil {
		return "", err
	}
	dir, _ = cr.expand(dir, "cwd", st, false)
	if dir != "" && !filepath.IsAbs(dir) && cr.opts.Dir != "" {
		dir = filepath.Join(cr.opts.Dir, dir)
	}
	return dir, nil
}

// forwardedEnv appends Codex's "env_vars" to env. Codex forwards these from
// the user's environment: mcpvet only what --pass-env allows, and a canary
// for the others.
func (cr *configReader) forwardedEnv(path string, raw json.RawMessage, env []keyValue, st *planState) ([]keyValue, error) {
	names, err := stringList(path, "env_vars", raw)
	if err != nil {
		return nil, err
	}
	for _, name := range names {
		if v, ok := cr.lookupRef("env:" + name); ok {
			env = append(env, keyValue{name, v})
		} else {
			st.addSecret(name)
		}
	}
	return env, nil
}

// remoteServer fills the URL and headers of a streamable HTTP or SSE
// server.
func (cr *configReader) remoteServer(pl *vocab.Plan, st *planState, path string, fields serverFields, ep endpoint) error {
	if ep.url == nil || strings.TrimSpace(*ep.url) == "" {
		return &ConfigError{Path: path, Msg: fmt.Sprintf(`"url" is missing or empty; a %s server needs its address, e.g. "https://example.com/mcp"`, ep.transport)}
	}
	pl.URL, _ = cr.expand(*ep.url, ep.urlKey, st, false)
	if err := checkURL(path, ep.urlKey, pl.URL, ep.rawURL); err != nil {
		return err
	}
	headers, err := cr.headers(path, fields, st)
	if err != nil {
		return err
	}
	pl.Headers = cr.resolveValues(headers, "headers.", vocab.SecretHeaderPrefix, st)
	return nil
}

// checkURL rejects an expanded URL that is not http or https. One with an
// unresolved reference is left for the plan's status to report.
func checkURL(path, key, expanded string, raw json.RawMessage) error {
	if strings.Contains(expanded, "${") {
		return nil
	}
	pu, err := url.Parse(expanded)
	if err != nil || (pu.Scheme != "http" && pu.Scheme != "https") || pu.Host == "" {
		return &ConfigError{Path: path, Msg: fmt.Sprintf(`%q: %s is not an http or https URL; use e.g. "https://example.com/mcp"`, key, quoteValue(raw))}
	}
	return nil
}

// headers returns "headers", then Codex's "http_headers" and the
// Authorization header of its "bearer_token_env_var".
func (cr *configReader) headers(path string, fields serverFields, st *planState) ([]keyValue, error) {
	headers, err := stringMap(path, "headers", fields.get("headers"))
	if err != nil {
		return nil, err
	}
	more, err := stringMap(path, "http_headers", fields.get("http_headers"))
	if err != nil {
		return nil, err
	}
	headers = append(headers, more...)
	raw := fields.get("bearer_token_env_var")
	if raw == nil {
		return headers, nil
	}
	name, err := stringField(path, "bearer_token_env_var", raw, "give an environment variable name")
	if err != nil {
		return nil, err
	}
	if v, ok := cr.lookupRef("env:" + name); ok {
		headers = append(headers, keyValue{"Authorization", "Bearer " + v})
	} else {
		st.addSecret(vocab.SecretHeaderPrefix + "Authorization")
	}
	return headers, nil
}

// resolveValues expands the values of kvs, named field+key in messages,
// into a map that is nil when empty. A value that is a whole password input
// becomes the secret secretPrefix+key instead.
func (cr *configReader) resolveValues(kvs []keyValue, field, secretPrefix string, st *planState) map[string]string {
	var out map[string]string
	for _, kv := range kvs {
		v, secret := cr.expand(kv.value, field+kv.key, st, true)
		if secret {
			st.addSecret(secretPrefix + kv.key)
			continue
		}
		if out == nil {
			out = map[string]string{}
		}
		out[kv.key] = v
	}
	return out
}

// apply records st's secrets in pl, and its unresolved references as the
// needs_configuration status.
func (st *planState) apply(pl *vocab.Plan) {
	pl.Secrets = st.secrets
	if len(st.missing) == 0 {
		return
	}
	pl.Status = vocab.StatusNeedsConfiguration
	pl.StatusDetail = "unresolved references: " + strings.Join(st.missing, ", ")
	if len(st.hints) > 0 {
		pl.StatusDetail += "; give " + strings.Join(st.hints, " ")
	}
}

// translateInPlace applies [Translate] to pl; a launcher it cannot
// translate becomes a note, and pl runs as written.
func translateInPlace(pl *vocab.Plan) {
	_, notes, err := Translate(pl)
	var te *TranslateError
	if errors.As(err, &te) {
		notes = append(notes, te.Error())
	}
	pl.Notes = append(pl.Notes, notes...)
}

func (st *planState) addSecret(name string) {
	if !slices.Contains(st.secrets, name) {
		st.secrets = append(st.secrets, name)
	}
}

// expand resolves ${...} references in s. field names s in messages.
// wholeSecret allows a value that is exactly one unresolved password input
// reference to become a secret (environment variables and headers): then
// expand reports secret and the sandbox's canary stands in for the value.
func (cr *configReader) expand(s, field string, st *planState, wholeSecret bool) (value string, secret bool) {
	if !strings.Contains(s, "${") {
		return s, false
	}
	var b strings.Builder
	rest := s
	for {
		i := strings.Index(rest, "${")
		if i < 0 {
			b.WriteString(rest)
			break
		}
		j := strings.IndexByte(rest[i:], '}')
		if j < 0 {
			b.WriteString(rest)
			break
		}
		expr := rest[i+2 : i+j]
		b.WriteString(rest[:i])
		if v, ok := cr.lookupRef(expr); ok {
			b.WriteString(v)
		} else {
			ref := rest[i : i+j+1]
			if id, isInput := strings.CutPrefix(expr, "input:"); isInput && wholeSecret && ref == s && cr.inputs[id].Password {
				return "", true
			}
			label := ref + " in " + field
			if !slices.Contains(st.missing, label) {
				st.missing = append(st.missing, label)
			}
			if h := refHint(expr); h != "" && !slices.Contains(st.hints, h) {
				st.hints = append(st.hints, h)
			}
			b.WriteString(ref)
		}
		rest = rest[i+j+1:]
	}
	return b.String(), false
}

// lookupRef resolves the inside of one ${...}.
func (cr *configReader) lookupRef(expr string) (string, bool) {
	o := cr.opts
	lookupEnv := func(name string) (string, bool) {
		if o.LookupEnv == nil || name == "" {
			return "", false
		}
		return o.LookupEnv(name)
	}
	if id, ok := strings.CutPrefix(expr, "input:"); ok {
		if v, ok := o.Inputs[id]; ok {
			return v, true
		}
		if in, ok := cr.inputs[id]; ok && in.Default != "" && !in.Password {
			return in.Default, true
		}
		return "", false
	}
	if name, ok := strings.CutPrefix(expr, "env:"); ok {
		return lookupEnv(name)
	}
	if name, def, ok := strings.Cut(expr, ":-"); ok {
		if v, ok := lookupEnv(name); ok && v != "" {
			return v, true
		}
		return def, true
	}
	if strings.Contains(expr, ":") {
		// ${config:...}, ${command:...} and the like need the client.
		return "", false
	}
	if v, ok := o.Variables[expr]; ok {
		return v, true
	}
	return lookupEnv(expr)
}

// quoteValue shows a raw JSON value in a message, on one line.
func quoteValue(raw json.RawMessage) string {
	return excerpt(bytes.TrimSpace(raw), 60)
}

func stringField(path, key string, raw json.RawMessage, hint string) (string, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", &ConfigError{Path: path, Msg: fmt.Sprintf("%q: %s is not a string; %s", key, quoteValue(raw), hint)}
	}
	return s, nil
}

func optString(path, key string, raw json.RawMessage, hint string) (*string, error) {
	if raw == nil {
		return nil, nil
	}
	s, err := stringField(path, key, raw, hint)
	if err != nil {
		return nil, err
	}
	return &s, nil
}

// asStringHint suggests the quoted form of a number or boolean.
func asStringHint(raw json.RawMessage) string {
	t := bytes.TrimSpace(raw)
	if len(t) > 0 && (t[0] == '-' || (t[0] >= '0' && t[0] <= '9') || t[0] == 't' || t[0] == 'f') {
		return "write it as " + strconv.Quote(string(t))
	}
	return "use a string"
}

func stringList(path, key string, raw json.RawMessage) ([]string, error) {
	if raw == nil {
		return nil, nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, &ConfigError{Path: path, Msg: fmt.Sprintf(`%q: %s is not a list; use a list of strings like ["-y", "some-package"]`, key, quoteValue(raw))}
	}
	out := make([]string, 0, len(items))
	for i, it := range items {
		var s string
		if err := json.Unmarshal(it, &s); err != nil {
			return nil, &ConfigError{Path: path, Msg: fmt.Sprintf(`"%s[%d]": %s is not a string; %s`, key, i, quoteValue(it), asStringHint(it))}
		}
		out = append(out, s)
	}
	return out, nil
}

type keyValue struct{ key, value string }

func stringMap(path, key string, raw json.RawMessage) ([]keyValue, error) {
	if raw == nil {
		return nil, nil
	}
	ms, err := objectMembers(raw)
	if err != nil {
		return nil, &ConfigError{Path: path, Msg: fmt.Sprintf(`%q: %s is not an object; use {"NAME": "value"}`, key, quoteValue(raw))}
	}
	out := make([]keyValue, 0, len(ms))
	for _, m := range ms {
		var s string
		if err := json.Unmarshal(m.Value, &s); err != nil {
			return nil, &ConfigError{Path: path, Msg: fmt.Sprintf(`"%s.%s": %s is not a string; %s`, key, m.Key, quoteValue(m.Value), asStringHint(m.Value))}
		}
		out = append(out, keyValue{m.Key, s})
	}
	return out, nil
}

// skipServer says why a config entry is one its client does not run, or
// returns "": disabled ("disabled": true, "enabled": false), or a Zed
// extension server ("source": "extension", or the form an extension's
// README asks for, {"settings": {...}} without a command or URL), which
// Zed configures and starts itself and mcpvet cannot run outside it.
func skipServer(raw json.RawMessage) string {
	fields, err := objectMembers(raw)
	if err != nil {
		return ""
	}
	settings, runnable := false, false
	for _, f := range fields {
		v := strings.TrimSpace(string(f.Value))
		switch {
		case f.Key == "disabled" && v == "true", f.Key == "enabled" && v == "false":
			return "disabled in the config; its client does not start it"
		case f.Key == "source" && v == `"extension"`:
			return "a Zed extension server: its extension starts it inside Zed; probe the package it runs instead"
		case f.Key == "settings":
			settings = true
		case f.Key == "command" || f.Key == "url" || f.Key == "serverUrl" || f.Key == "httpUrl":
			runnable = true
		}
	}
	if settings && !runnable {
		return "a Zed extension server (settings, no command): its extension starts it inside Zed; probe the package it runs instead"
	}
	return ""
}

// maxEnvFileBytes caps a VS Code envFile.
const maxEnvFileBytes = 1 << 20

// envFile reads a VS Code "envFile": KEY=VALUE lines, # comments, optional
// quotes and "export ". A missing file leaves the plan needing
// configuration, as VS Code fails to start the server.
func (cr *configReader) envFile(path string, raw json.RawMessage, st *planState) ([]keyValue, error) {
	name, err := stringField(path, "envFile", raw, `give the path of a file of KEY=VALUE lines, e.g. "${workspaceFolder}/.env"`)
	if err != nil {
		return nil, err
	}
	name, _ = cr.expand(name, "envFile", st, false)
	if strings.Contains(name, "${") {
		return nil, nil
	}
	if !filepath.IsAbs(name) && cr.opts.Dir != "" {
		name = filepath.Join(cr.opts.Dir, name)
	}
	f, err := os.Open(name)
	if err != nil {
		st.missing = append(st.missing, fmt.Sprintf("envFile %s (%v)", name, errors.Unwrap(err)))
		return nil, nil
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxEnvFileBytes))
	if err != nil {
		return nil, &ConfigError{Path: path, Msg: fmt.Sprintf("envFile %s: %v", name, err)}
	}
	var out []keyValue
	for line := range strings.SplitSeq(string(data), "\n") {
		line = strings.TrimSpace(strings.TrimSuffix(line, "\r"))
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		line = strings.TrimPrefix(line, "export ")
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
			v = v[1 : len(v)-1]
		}
		out = append(out, keyValue{k, v})
	}
	return out, nil
}

// refHint names the flag that resolves the reference ${expr}, or "".
func refHint(expr string) string {
	if id, ok := strings.CutPrefix(expr, "input:"); ok {
		return "--input " + id + "=VALUE"
	}
	name, _, _ := strings.Cut(strings.TrimPrefix(expr, "env:"), ":-")
	if name == "" || strings.Contains(name, ":") {
		return ""
	}
	// ${workspaceFolder} and the other client variables are not
	// environment variables; ${NAME} in upper case is (Claude Code).
	if strings.HasPrefix(expr, "env:") || strings.ToUpper(name) == name {
		return "--pass-env " + name
	}
	return ""
}
