package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/mcpvet/mcpvet/vocab"
)

// errInstallTimeout is the cause of an install context that ran out of its
// own deadline, as opposed to the caller's.
var errInstallTimeout = errors.New("install deadline reached")

// installStopped says why an install was stopped: its own deadline, or
// the caller's context (a server deadline, an interrupt).
func installStopped(ctx context.Context, what string) string {
	if errors.Is(context.Cause(ctx), errInstallTimeout) {
		return what + ": timed out (the install deadline, --install-timeout, was reached); the installer's last output is the evidence"
	}
	return fmt.Sprintf("%s: stopped (%v)", what, context.Cause(ctx))
}

// Install installs the package of plan into the cache, under the install
// deadline of opts ([Options.InstallTimeout]), so that a later [Launch] of
// the plan finds it there and its server deadline covers the server only.
// Plans without a package need no install. Outcomes that belong to the
// package are a *[LaunchError], with the installer's last output as
// evidence.
func Install(ctx context.Context, plan *vocab.Plan, opts *Options) error {
	if plan == nil || plan.Package == nil || plan.Status != "" {
		return nil
	}
	o := opts.resolve()
	if isLocalHTTP(plan) {
		if le := localHTTPUnsupported(plan, &o); le != nil {
			return le
		}
	}
	_, err := install(ctx, plan.Package, &o, plan.Source)
	return err
}

// installMemo remembers successful installs for the life of the process,
// so that the plans of a scan that share a package install it once: the
// install pool's [Install] and the later [Launch] of each plan (OCI pulls
// included) do not repeat the work. Failures are not remembered.
var installMemo sync.Map // key string -> *entryPoint

func installMemoKey(pkg *vocab.Package, o *Options, source string) string {
	b, _ := json.Marshal(pkg)
	return o.CacheDir + "\x00" + source + "\x00" + string(b)
}

// installMemoGet returns a copy of a remembered entry point: callers
// append to its slices.
func installMemoGet(key string) (*entryPoint, bool) {
	v, ok := installMemo.Load(key)
	if !ok {
		return nil, false
	}
	ep := *v.(*entryPoint)
	ep.argv = slices.Clone(ep.argv)
	ep.readOnly = slices.Clone(ep.readOnly)
	ep.warnings = slices.Clone(ep.warnings)
	ep.env = maps.Clone(ep.env)
	return &ep, true
}
