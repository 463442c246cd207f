package sandbox

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/mcpvet/mcpvet/vocab"
)

// defaultPath is the PATH servers get when the host has none.
const defaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// canaryPrefix starts every canary value, so that a leak found anywhere
// (tool output, stderr, an HTTP request) is recognisable.
const canaryPrefix = "mcpvet-canary-"

// newCanary returns a fresh canary value, unique per call.
func newCanary() string {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(fmt.Sprintf("reading random bytes: %v", err)) // crypto/rand never fails on Linux
	}
	return canaryPrefix + hex.EncodeToString(b[:])
}

// validEnvName reports whether name can be an environment variable name:
// non-empty, without '=' or NUL.
func validEnvName(name string) bool {
	return name != "" && !strings.ContainsAny(name, "=\x00")
}

// buildEnv returns the server's environment and the canaries it holds. The
// process gets ONLY PATH, HOME, LANG, then the package's own variables (an
// mcpb manifest's env), then the plan's Env, then canaries for
// plan.Secrets not set by either, then the user's overrides. Nothing else
// from mcpvet's own environment leaks in.
func buildEnv(plan *vocab.Plan, pkgEnv, user map[string]string, home string) ([]string, map[string]string, error) {
	env := map[string]string{
		"PATH": os.Getenv("PATH"),
		"HOME": home,
		"LANG": os.Getenv("LANG"),
	}
	if env["PATH"] == "" {
		env["PATH"] = defaultPath
	}
	if env["LANG"] == "" {
		env["LANG"] = "C.UTF-8"
	}
	for k, v := range pkgEnv {
		if validEnvName(k) && !strings.ContainsRune(v, 0) {
			env[k] = v
		}
	}
	for k, v := range plan.Env {
		if !validEnvName(k) || strings.ContainsRune(v, 0) {
			return nil, nil, launchErrorf(vocab.StatusInvalidPlan, "invalid environment variable %q", k)
		}
		env[k] = v
	}
	canaries := map[string]string{}
	for _, k := range plan.Secrets {
		if strings.HasPrefix(k, vocab.SecretHeaderPrefix) {
			continue // a header, filled in by the remote transport
		}
		if !validEnvName(k) {
			return nil, nil, launchErrorf(vocab.StatusInvalidPlan, "invalid secret name %q", k)
		}
		if _, set := plan.Env[k]; set {
			continue
		}
		if _, set := user[k]; set {
			continue
		}
		c := newCanary()
		env[k] = c
		canaries[k] = c
	}
	for k, v := range user {
		if !validEnvName(k) || strings.ContainsRune(v, 0) {
			return nil, nil, fmt.Errorf("building environment: invalid override %q", k)
		}
		env[k] = v
	}
	list := make([]string, 0, len(env))
	for k, v := range env {
		list = append(list, k+"="+v)
	}
	slices.Sort(list)
	return list, canaries, nil
}

// lookEnv returns the value of key in an environment list.
func lookEnv(env []string, key string) string {
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok && k == key {
			return v
		}
	}
	return ""
}
