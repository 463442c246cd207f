package scan

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/mcpvet/mcpvet/internal/safe"
	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/sandbox"
	"github.com/mcpvet/mcpvet/vocab"
)

// IndexMCPRegistry names the MCP registry among a scan's indexes.
const IndexMCPRegistry = sandbox.IndexMCPRepo

// conditionTimeout bounds each check of [CheckConditions].
const conditionTimeout = 5 * time.Second

// DNSReferenceNames are the names whose resolution tells whether DNS
// resolves public names here: hosts every connected machine resolves,
// none of them the npm registry (a machine behind an npm proxy resolves
// that one and nothing else).
var DNSReferenceNames = []string{"github.com", "pypi.org", "registry.modelcontextprotocol.io", "api.nuget.org"}

// ConditionOptions configure [CheckConditions]; nil or zero fields mean
// this machine's real resolver, indexes, engine and PATH.
type ConditionOptions struct {
	// Resolve looks a host name up; nil uses net.DefaultResolver.
	Resolve func(ctx context.Context, host string) error
	// DNSNames are the reference names; nil means [DNSReferenceNames].
	DNSNames []string
	// Indexes are the registries and indexes to ask; nil means
	// [sandbox.Indexes].
	Indexes []vocab.IndexCondition
	// Client asks the indexes; nil uses a client with a 5 s timeout.
	Client *http.Client
	// Engine finds the container engine; nil uses
	// [sandbox.ContainerEngine].
	Engine func(ctx context.Context) (path, why string)
	// Runtimes finds the runtimes; nil uses [sandbox.FindRuntimes].
	Runtimes func() []vocab.RuntimeCondition
	// Sandbox and Network are the scan's settings, recorded as they are.
	Sandbox string
	Network bool
	// Now is the clock; nil is time.Now.
	Now func() time.Time
}

// CheckConditions checks what this machine can reach and run, all checks
// at once, each within 5 s: whether public names resolve, which indexes
// answer, the container engine, the runtimes on PATH. It never fails: a
// check that cannot be made is recorded as failed.
func CheckConditions(ctx context.Context, o *ConditionOptions) vocab.Conditions {
	if o == nil {
		o = &ConditionOptions{}
	}
	now := time.Now
	if o.Now != nil {
		now = o.Now
	}
	c := vocab.Conditions{CheckedAt: now().UTC().Format(time.RFC3339), Sandbox: o.Sandbox, Network: o.Network}
	if c.Sandbox == "" {
		c.Sandbox = "auto"
	}
	resolve := o.Resolve
	if resolve == nil {
		resolve = func(ctx context.Context, host string) error {
			_, err := net.DefaultResolver.LookupHost(ctx, host)
			return err
		}
	}
	names := o.DNSNames
	if names == nil {
		names = DNSReferenceNames
	}
	c.Indexes = o.Indexes
	if c.Indexes == nil {
		c.Indexes = sandbox.Indexes()
	}
	c.Indexes = append([]vocab.IndexCondition(nil), c.Indexes...)
	client := o.Client
	if client == nil {
		client = &http.Client{Timeout: conditionTimeout,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	ctx, cancel := context.WithTimeout(ctx, 3*conditionTimeout)
	defer cancel()

	var mu sync.Mutex
	var wg sync.WaitGroup
	dnsErr := map[string]string{}
	for _, n := range names {
		wg.Go(func() {
			rctx, cancel := context.WithTimeout(ctx, conditionTimeout)
			defer cancel()
			err := resolve(rctx, n)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				dnsErr[n] = err.Error()
			} else {
				dnsErr[n] = ""
			}
		})
	}
	for i := range c.Indexes {
		wg.Go(func() {
			ix := &c.Indexes[i]
			ix.Answered, ix.Detail = askIndex(ctx, client, ix.URL)
		})
	}
	wg.Go(func() {
		engine := o.Engine
		if engine == nil {
			engine = sandbox.ContainerEngine
		}
		ectx, cancel := context.WithTimeout(ctx, 2*conditionTimeout)
		defer cancel()
		p, why := engine(ectx)
		mu.Lock()
		defer mu.Unlock()
		c.ContainerEngine = p
		if p == "" && why != "" {
			c.ContainerEngine = ""
		}
	})
	wg.Wait()
	if o.Runtimes != nil {
		c.Runtimes = o.Runtimes()
	} else {
		c.Runtimes = sandbox.FindRuntimes()
	}
	var firstErr string
	for _, n := range names {
		if e := dnsErr[n]; e == "" {
			c.DNS.Resolved = append(c.DNS.Resolved, n)
		} else {
			c.DNS.Failed = append(c.DNS.Failed, n)
			if firstErr == "" {
				firstErr = e
			}
		}
	}
	c.DNS.PublicNames = len(c.DNS.Resolved) > 0
	if !c.DNS.PublicNames {
		c.DNS.Detail = safe.Truncate(firstErr, 200, safe.Ellipsis)
	}
	return c
}

// askIndex reports whether url answers HTTP at all.
func askIndex(ctx context.Context, client *http.Client, url string) (bool, string) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return false, err.Error()
	}
	resp, err := client.Do(req)
	if err != nil {
		return false, safe.Truncate(err.Error(), 200, safe.Ellipsis)
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	return true, "HTTP " + resp.Status
}

// attributeEnvironment marks a result whose failure this machine's
// conditions explain: a remote whose name did not resolve where DNS
// resolves no public name. It reports whether it marked res. (Failures
// whose own text says the machine is at fault, such as an index that
// could not be reached, are recognised by [scoring.EnvironmentCause]
// without conditions.)
func attributeEnvironment(res *probe.Result, c *vocab.Conditions) bool {
	l := &res.Liveness
	if c == nil || l.HandshakeCompleted || l.Environment != "" || c.DNS.PublicNames {
		return false
	}
	text := l.Detail + " " + l.Evidence
	if l.Status == vocab.StatusUnreachable && strings.Contains(text, "no such host") {
		l.Environment = "DNS resolves no public name here (" + strings.Join(c.DNS.Failed, ", ") + " did not resolve)"
		return true
	}
	return false
}

// withConditions adds the run conditions to a scan's options JSON object
// under "runConditions".
func withConditions(opts json.RawMessage, c *vocab.Conditions) json.RawMessage {
	m := map[string]json.RawMessage{}
	if len(opts) > 0 {
		if err := json.Unmarshal(opts, &m); err != nil {
			return opts
		}
	}
	b, err := json.Marshal(c)
	if err != nil {
		return opts
	}
	m["runConditions"] = b
	out, err := json.Marshal(m)
	if err != nil {
		return opts
	}
	return out
}
