package source

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcpvet/mcpvet/vocab"
)

// Launchers. Configs start most servers through a launcher that fetches
// the package on every start (`npx -y pkg`, `uvx pkg`, `docker run -i
// image`). In a sandbox without network the fetch hangs until the
// handshake deadline, so [Translate] turns such a command into a package
// plan: mcpvet installs the package itself (with network, for the install
// only) and runs it offline, as the client would run what the launcher
// fetched.

// A TranslateError says why a launcher command was not translated; the
// plan then runs as written.
type TranslateError struct {
	Launcher string
	Msg      string
}

func (e *TranslateError) Error() string { return e.Launcher + ": " + e.Msg }

// launchers are the commands that fetch and run a package, with the
// subcommand words that make them one ("npm exec") and their name.
var launchers = []struct {
	base string
	sub  []string
	name string
}{
	{"npx", nil, "npx"},
	{"bunx", nil, "bunx"},
	{"uvx", nil, "uvx"},
	{"npm", []string{"exec"}, "npm exec"},
	{"pnpm", []string{"dlx"}, "pnpm dlx"},
	{"yarn", []string{"dlx"}, "yarn dlx"},
	{"bun", []string{"x"}, "bunx"},
	{"uv", []string{"tool", "run"}, "uv tool run"},
	{"uv", []string{"x"}, "uvx"},
	{"pipx", []string{"run"}, "pipx run"},
	{"docker", []string{"run"}, "docker run"},
	{"podman", []string{"run"}, "podman run"},
}

// launcherOf names the launcher of command and args ("npx", "npm exec",
// "uv tool run", ...) and returns the arguments after it, or "".
func launcherOf(command string, args []string) (string, []string) {
	base := strings.TrimSuffix(filepath.Base(strings.ReplaceAll(command, "\\", "/")), ".cmd")
	base = strings.TrimSuffix(base, ".exe")
	if (base == "cmd" || base == "cmd.exe") && len(args) > 1 && (args[0] == "/c" || args[0] == "/C") {
		// Windows configs: "cmd" "/c" "npx" "-y" "pkg".
		return launcherOf(args[1], args[2:])
	}
	for _, l := range launchers {
		if l.base == base && len(args) >= len(l.sub) && slices.Equal(args[:len(l.sub)], l.sub) {
			return l.name, args[len(l.sub):]
		}
	}
	return "", nil
}

// Translate rewrites a stdio plan whose command is a launcher into a
// package plan and reports whether it did. The launcher and the command as
// written are kept in plan.Launcher and plan.Written. A launcher command
// that cannot be translated (an option mcpvet does not know) is left as
// written and the reason returned. Refused parts (docker volume mounts)
// are returned as notes.
func Translate(plan *vocab.Plan) (translated bool, notes []string, err error) {
	if plan.Transport != vocab.TransportStdio || plan.Command == "" || plan.Package != nil {
		return false, nil, nil
	}
	launcher, rest := launcherOf(plan.Command, plan.Args)
	if launcher == "" {
		return false, nil, nil
	}
	var pkg *vocab.Package
	var args []string
	switch launcher {
	case "npx", "npm exec", "pnpm dlx", "yarn dlx", "bunx":
		pkg, args, err = npmLauncher(launcher, rest)
	case "uvx", "uv tool run", "pipx run":
		pkg, args, err = pypiLauncher(launcher, rest)
	default:
		pkg, args, notes, err = dockerLauncher(launcher, rest, plan)
	}
	if err != nil {
		return false, nil, err
	}
	plan.Launcher = launcher
	plan.Written = append([]string{plan.Command}, plan.Args...)
	plan.Command, plan.Args, plan.Package = "", args, pkg
	if len(plan.Args) == 0 {
		plan.Args = nil
	}
	return true, notes, nil
}

// flagSpec lists a launcher's options: those that take a value, and those
// that don't. Anything else stops the translation.
type flagSpec struct {
	withValue map[string]bool
	plain     map[string]bool
}

func set(names ...string) map[string]bool {
	m := map[string]bool{}
	for _, n := range names {
		m[n] = true
	}
	return m
}

// scanFlags walks the options before the package; it returns the options
// given (name to value) and the index of the package argument.
func scanFlags(launcher string, args []string, spec flagSpec) (map[string]string, int, error) {
	given := map[string]string{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			if i+1 >= len(args) {
				break
			}
			return given, i + 1, nil
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			return given, i, nil
		}
		name, val, hasVal := strings.Cut(a, "=")
		switch {
		case spec.plain[name] && !hasVal:
			given[name] = ""
		case spec.withValue[name] && hasVal:
			given[name] = val
		case spec.withValue[name]:
			if i+1 >= len(args) {
				return nil, 0, &TranslateError{launcher, fmt.Sprintf("option %s needs a value", name)}
			}
			i++
			given[name] = args[i]
		default:
			return nil, 0, &TranslateError{launcher, fmt.Sprintf("option %q is not one mcpvet can reproduce; the command runs as written (pass --allow-network if it must fetch)", a)}
		}
	}
	return nil, 0, &TranslateError{launcher, "no package named"}
}

var npmFlags = flagSpec{
	withValue: set("--package", "-p", "--registry", "--cache", "--userconfig"),
	plain:     set("-y", "--yes", "-q", "--quiet", "--silent", "-s", "--prefer-offline", "--prefer-online", "--no-install", "--bun"),
}

func npmLauncher(launcher string, args []string) (*vocab.Package, []string, error) {
	given, at, err := scanFlags(launcher, args, npmFlags)
	if err != nil {
		return nil, nil, err
	}
	for _, k := range []string{"--package", "-p", "--cache", "--userconfig"} {
		if _, ok := given[k]; ok {
			return nil, nil, &TranslateError{launcher, fmt.Sprintf("option %s names a package other than the command; the command runs as written", k)}
		}
	}
	spec := args[at]
	rest := args[at+1:]
	if len(rest) > 0 && rest[0] == "--" {
		rest = rest[1:]
	}
	name, ver := spec, ""
	if i := strings.LastIndex(spec, "@"); i > 0 {
		name, ver = spec[:i], spec[i+1:]
	}
	if strings.ContainsAny(name, ":/\\") && !strings.HasPrefix(name, "@") || strings.HasPrefix(name, ".") {
		return nil, nil, &TranslateError{launcher, fmt.Sprintf("%q is not a registry package (a path, URL or git spec); the command runs as written", spec)}
	}
	if ver == "latest" {
		ver = ""
	}
	pkg := &vocab.Package{RegistryType: RegistryNPM, Identifier: name, Version: ver, RuntimeHint: "npx"}
	if r, ok := given["--registry"]; ok {
		pkg.RegistryBaseURL = r
	}
	return pkg, rest, nil
}

var pypiFlags = flagSpec{
	withValue: set("--from", "--python", "-p", "--index-url", "-i", "--with", "-w", "--spec"),
	plain:     set("-q", "--quiet", "--isolated", "--no-cache", "--offline", "-n", "--verbose", "-v"),
}

func pypiLauncher(launcher string, args []string) (*vocab.Package, []string, error) {
	given, at, err := scanFlags(launcher, args, pypiFlags)
	if err != nil {
		return nil, nil, err
	}
	if _, ok := given["--with"]; ok {
		return nil, nil, &TranslateError{launcher, "option --with adds packages mcpvet does not install; the command runs as written"}
	}
	spec := args[at]
	rest := args[at+1:]
	if from, ok := given["--from"]; ok {
		spec = from
	} else if from, ok := given["--spec"]; ok {
		spec = from
	}
	name, ver := spec, ""
	for _, sep := range []string{"==", "@"} {
		if i := strings.Index(spec, sep); i > 0 {
			name, ver = spec[:i], spec[i+len(sep):]
			break
		}
	}
	if name == "" || strings.ContainsAny(name, ":/\\[<>~!=@") || strings.HasPrefix(name, ".") {
		return nil, nil, &TranslateError{launcher, fmt.Sprintf("%q is not a plain PyPI package (a path, URL or extras); the command runs as written", spec)}
	}
	if ver == "latest" {
		ver = ""
	}
	pkg := &vocab.Package{RegistryType: RegistryPyPI, Identifier: name, Version: ver, RuntimeHint: "uvx"}
	if idx, ok := given["--index-url"]; ok {
		pkg.RegistryBaseURL = idx
	} else if idx, ok := given["-i"]; ok {
		pkg.RegistryBaseURL = idx
	}
	return pkg, rest, nil
}

var dockerFlags = flagSpec{
	withValue: set("-e", "--env", "-v", "--volume", "--mount", "--name", "--network", "--net", "-w", "--workdir",
		"--platform", "--pull", "--env-file", "-u", "--user", "--entrypoint", "--label", "-l"),
	plain: set("-i", "--interactive", "--rm", "-t", "--tty", "-it", "-ti", "--init", "-d", "--detach", "--read-only"),
}

func dockerLauncher(launcher string, args []string, plan *vocab.Plan) (*vocab.Package, []string, []string, error) {
	var notes []string
	env := map[string]string{}
	var image string
	var rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") {
			image, rest = a, args[i+1:]
			break
		}
		name, val, hasVal := strings.Cut(a, "=")
		switch {
		case dockerFlags.plain[name] && !hasVal:
			if name == "-d" || name == "--detach" {
				return nil, nil, nil, &TranslateError{launcher, "a detached container does not talk over stdio"}
			}
			continue
		case dockerFlags.withValue[name]:
			if !hasVal {
				if i+1 >= len(args) {
					return nil, nil, nil, &TranslateError{launcher, fmt.Sprintf("option %s needs a value", name)}
				}
				i++
				val = args[i]
			}
		default:
			return nil, nil, nil, &TranslateError{launcher, fmt.Sprintf("option %q is not one mcpvet can reproduce; the command runs as written", a)}
		}
		switch name {
		case "-e", "--env":
			k, v, ok := strings.Cut(val, "=")
			if !ok {
				// -e NAME passes the variable from the config's env.
				v, ok = plan.Env[k]
				if !ok {
					if isSecret(plan, k) {
						continue
					}
					v = ""
				}
			}
			env[k] = v
		case "-v", "--volume", "--mount":
			notes = append(notes, fmt.Sprintf("volume mount %q refused: the container sees no host folder; probe a server that needs one with its files exposed instead", val))
		case "--env-file":
			notes = append(notes, fmt.Sprintf("--env-file %q not read: give its variables with --env", val))
		}
	}
	if image == "" {
		return nil, nil, nil, &TranslateError{launcher, "no image named"}
	}
	// Only variables named with -e reach the container, as with docker.
	plan.Env = nil
	if len(env) > 0 {
		plan.Env = env
	}
	var secrets []string
	for _, s := range plan.Secrets {
		if _, named := env[s]; !named && containsEnvFlag(args, s) {
			secrets = append(secrets, s)
		}
	}
	plan.Secrets = secrets
	return &vocab.Package{RegistryType: RegistryOCI, Identifier: image, RuntimeHint: "docker"}, rest, notes, nil
}

func isSecret(plan *vocab.Plan, name string) bool {
	return slices.Contains(plan.Secrets, name)
}

// containsEnvFlag reports whether args pass the variable name with -e.
func containsEnvFlag(args []string, name string) bool {
	for i, a := range args {
		if (a == "-e" || a == "--env") && i+1 < len(args) && args[i+1] == name {
			return true
		}
		if a == "-e="+name || a == "--env="+name {
			return true
		}
	}
	return false
}
