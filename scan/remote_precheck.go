package scan

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/url"
	"syscall"
	"time"

	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/sandbox"
	"github.com/mcpvet/mcpvet/vocab"
)

// precheckTimeout bounds the reachability check of a remote.
const precheckTimeout = 5 * time.Second

// unreachableRemote checks, before any MCP client is set up, whether a
// remote plan's host resolves and its port accepts a connection. It
// returns the error only when the answer is definite: the name does not
// resolve, or the connection is refused or has no route. A census meets
// hundreds of such remotes (dead hosts, localhost ports); each would
// otherwise cost the client's retries and protocol-version fallback,
// seconds of a probe slot, for the same unreachable status. A timeout, a
// proxy in the environment or anything else leaves the decision to the
// probe.
//
// It connects as the remote's transport would ([sandbox.DialRemote]): an
// untrusted plan never reaches a private address through it; such a plan
// is left to the launch, which refuses it as invalid_plan.
func unreachableRemote(ctx context.Context, plan *vocab.Plan, opts *sandbox.Options) error {
	if plan.Package != nil || plan.Command != "" || plan.URL == "" ||
		(plan.Transport != vocab.TransportStreamable && plan.Transport != vocab.TransportSSE) {
		return nil
	}
	u, err := url.Parse(plan.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return nil
	}
	if p, err := http.ProxyFromEnvironment(&http.Request{URL: u}); err != nil || p != nil {
		return nil // a proxy decides what is reachable
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	ctx, cancel := context.WithTimeout(ctx, precheckTimeout)
	defer cancel()
	if sandbox.CheckRemote(ctx, plan, opts) != nil {
		return nil // the launch refuses it, with the reason
	}
	c, err := sandbox.DialRemote(ctx, plan, opts, "tcp", net.JoinHostPort(u.Hostname(), port))
	if err == nil {
		c.Close()
		return nil
	}
	var dnsErr *net.DNSError
	switch {
	case errors.As(err, &dnsErr) && dnsErr.IsNotFound:
		return err
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ENETUNREACH), errors.Is(err, syscall.EHOSTUNREACH):
		return err
	}
	return nil
}

// unreachableResult is the result of a remote that [unreachableRemote]
// found unreachable: what the probe would record, without its wait.
func unreachableResult(plan *vocab.Plan, err error, start time.Time) *probe.Result {
	res := preLaunch(TargetOf(plan), vocab.StatusUnreachable, "the server could not be reached: "+err.Error(), err.Error(), start)
	res.Target.Sandbox = "remote"
	probe.RecordNotAlive(res)
	return res
}
