package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/sys/unix"

	"github.com/mcpvet/mcpvet/vocab"
)

// A local HTTP server is a plan whose transport is HTTP (streamable-http
// or sse) but whose server runs here: a registry package (or a command)
// that listens on the port of its URL, typically http://localhost:PORT.
// That port belongs to the sandbox's own network namespace, not to the
// host: the server is installed and started in the sandbox like a stdio
// server, and mcpvet connects to it inside that namespace (a socket made
// after setns into it), never on the host, where something else may
// listen on the same port and would be probed and credited to the
// package.
func isLocalHTTP(plan *vocab.Plan) bool {
	return (plan.Transport == vocab.TransportStreamable || plan.Transport == vocab.TransportSSE) && (plan.Package != nil || plan.Command != "")
}

// localHTTPUnsupported says why a local HTTP server cannot be run here, or
// returns nil. The dial into the sandbox needs a network namespace of the
// sandbox's own (not --sandbox none, not --allow-network, not an OCI
// container, whose namespace belongs to its engine) and the privilege to
// enter it (root).
func localHTTPUnsupported(plan *vocab.Plan, o *Options) *LaunchError {
	// A URL that is not local to the sandbox is refused first, whatever
	// the sandbox: it is never dialled.
	if _, err := localHTTPAddr(plan.URL); err != nil {
		return launchErrorf(vocab.StatusInvalidPlan, "%v", err)
	}
	why := ""
	switch {
	case plan.Package != nil && plan.Package.RegistryType == "oci":
		why = "an OCI image runs in its container engine's network namespace, which mcpvet does not enter"
	case o.Backend == BackendNone:
		why = "--sandbox none gives the server no network namespace of its own"
	case o.AllowNetwork:
		why = "with --allow-network the server shares the host's network namespace"
	case os.Geteuid() != 0:
		why = "entering the sandbox's network namespace (setns) needs root"
	}
	if why == "" {
		return nil
	}
	name := plan.Command
	if plan.Package != nil {
		name = plan.Package.RegistryType + " package " + plan.Package.Identifier
	}
	return &LaunchError{Status: vocab.StatusRuntimeUnavailable,
		Detail: fmt.Sprintf("%s serves MCP over %s at %s inside its sandbox, but %s; mcpvet never connects to that address on the host (something else may listen there), so the server was not launched",
			name, plan.Transport, plan.URL, why)}
}

// localHTTPAddr is the host:port the server listens on, from its URL.
func localHTTPAddr(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("url %q: want an http URL of the port the server listens on", raw)
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	host := u.Hostname()
	if host == "" || host == "0.0.0.0" || strings.EqualFold(host, "localhost") {
		host = "127.0.0.1" // no name lookup on the namespace's thread
	}
	if ip := net.ParseIP(host); ip == nil || !(ip.IsLoopback() || ip.IsUnspecified()) {
		// The server runs in the sandbox: only an address of the sandbox
		// itself can be where it listens. Any other host is someone
		// else's, and is never dialled.
		return "", fmt.Errorf("url %q: a package's HTTP transport must name a local address (localhost, 127.0.0.1, [::1]) where the package listens in its sandbox, not host %q; nothing was launched or dialled", raw, host)
	}
	return net.JoinHostPort(host, port), nil
}

// localHTTPTransport is the [mcp.Transport] of a local HTTP server:
// Connect starts the process, waits (under ctx, the handshake deadline)
// for its port to accept inside the sandbox's network namespace, and
// connects the go-sdk HTTP client transport through that namespace.
type localHTTPTransport struct{ s *Server }

func (t *localHTTPTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	s := t.s
	addr, err := localHTTPAddr(s.plan.URL)
	if err != nil {
		return nil, err
	}
	if err := s.start(ctx); err != nil {
		return nil, err
	}
	s.mu.Lock()
	root := s.proc.cmd.Process.Pid
	s.mu.Unlock()
	ns, err := waitNetns(ctx, root, s.exitedCh)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.netns = ns // closed with the server
	s.mu.Unlock()
	dial := func(ctx context.Context, _, _ string) (net.Conn, error) { return dialInNetns(ctx, ns, addr) }
	// Wait for the port, polling: the server may take a while to listen.
	for {
		c, err := dial(ctx, "tcp", addr)
		if err == nil {
			c.Close()
			break
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("the server did not listen on %s inside its sandbox before the handshake deadline: %w", addr, err)
		case <-s.exitedCh:
			return nil, fmt.Errorf("the server exited before listening on %s: %w", addr, io.EOF)
		case <-time.After(50 * time.Millisecond):
		}
	}
	s.warn(fmt.Sprintf("HTTP server started in the sandbox and reached at %s inside its network namespace, never on the host", addr))
	client := &http.Client{Transport: &http.Transport{DialContext: dial, Proxy: nil, MaxIdleConnsPerHost: 4}}
	lim := s.opts.Limits
	if s.plan.Transport == vocab.TransportSSE {
		// The go-sdk binds the hanging GET to the context given to
		// Connect: detach it from ctx, which only bounds the handshake.
		connCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		conn, err := (&mcp.SSEClientTransport{Endpoint: s.plan.URL, HTTPClient: client, MaxEventSize: lim.MessageBytes}).Connect(connCtx)
		if err != nil {
			cancel()
			return nil, err
		}
		return &localHTTPConn{Connection: conn, s: s, cancel: cancel, client: client}, nil
	}
	conn, err := (&mcp.StreamableClientTransport{Endpoint: s.plan.URL, HTTPClient: client, MaxRetries: 2, MaxEventSize: lim.MessageBytes,
		DisableStandaloneSSE: true}).Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &localHTTPConn{Connection: conn, s: s, client: client}, nil
}

// localHTTPConn closes the HTTP session, then shuts the process down.
type localHTTPConn struct {
	mcp.Connection
	s      *Server
	cancel context.CancelFunc // ends the SSE stream, if any
	client *http.Client
}

func (c *localHTTPConn) Close() error {
	err := c.Connection.Close()
	if c.cancel != nil {
		c.cancel()
	}
	c.client.CloseIdleConnections()
	c.s.terminate()
	return err
}

// drainStdout keeps a local HTTP server's stdout (free-form logs: its
// protocol is on the socket) flowing into the stderr tail.
func (s *Server) drainStdout(r io.Reader) {
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			s.stderr.Write(buf[:n])
		}
		if err != nil {
			return
		}
	}
}

// waitNetns finds the network namespace of the sandbox rooted at pid and
// returns an open file of it: the namespace of the deepest process of the
// tree (the server itself, under bwrap's helpers) whose namespace is not
// mcpvet's. The file is opened at once and held, so the namespace cannot
// be confused with another if the process exits and its pid is reused.
// The tree is polled for until ctx ends or the sandbox exits.
func waitNetns(ctx context.Context, root int, exited <-chan struct{}) (*os.File, error) {
	var own unix.Stat_t
	if err := unix.Stat("/proc/self/ns/net", &own); err != nil {
		return nil, fmt.Errorf("reading mcpvet's network namespace: %w", err)
	}
	for {
		tree := procTree(root)
		for i := len(tree) - 1; i >= 0; i-- {
			f, err := os.Open(filepath.Join("/proc", strconv.Itoa(tree[i]), "ns", "net"))
			if err != nil {
				continue
			}
			var st unix.Stat_t
			if unix.Fstat(int(f.Fd()), &st) == nil && (st.Ino != own.Ino || st.Dev != own.Dev) {
				return f, nil
			}
			f.Close()
		}
		select {
		case <-ctx.Done():
			return nil, errors.New("the sandbox has no network namespace of its own")
		case <-exited:
			return nil, fmt.Errorf("the server exited before its network namespace could be found: %w", io.EOF)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// procTree lists pid and its descendants, breadth first, from
// /proc/PID/task/TID/children.
func procTree(pid int) []int {
	out := []int{pid}
	for i := 0; i < len(out) && len(out) < 4096; i++ {
		tasks, _ := os.ReadDir(filepath.Join("/proc", strconv.Itoa(out[i]), "task"))
		for _, t := range tasks {
			data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(out[i]), "task", t.Name(), "children"))
			if err != nil {
				continue
			}
			for f := range bytes.FieldsSeq(data) {
				if c, err := strconv.Atoi(string(f)); err == nil {
					out = append(out, c)
				}
			}
		}
	}
	return out
}

// dialInNetns connects to addr from inside the network namespace ns. The
// socket is created on an OS thread moved into that namespace; a socket
// keeps its namespace for life, so the connection then works from any
// goroutine. The thread is moved back to mcpvet's namespace before it is
// unlocked. It is not simply discarded: a child process started with
// Pdeathsig from that thread (the exec of any sandbox) would be killed
// when the thread ends. Only if moving back fails is the thread discarded
// (the goroutine ends locked), so that no goroutine ever runs in the
// sandbox's namespace.
func dialInNetns(ctx context.Context, ns *os.File, addr string) (net.Conn, error) {
	type result struct {
		c   net.Conn
		err error
	}
	// The dial may outlive this call (a context that ends first): it gets
	// a descriptor of the namespace of its own, which the caller's Close
	// of ns can neither take away nor hand to another file meanwhile.
	nsfd, err := unix.FcntlInt(ns.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("entering the sandbox's network namespace: %w", err)
	}
	ch := make(chan result, 1)
	go func() {
		defer unix.Close(nsfd)
		runtime.LockOSThread()
		home, err := os.Open("/proc/thread-self/ns/net")
		if err != nil {
			runtime.UnlockOSThread()
			ch <- result{nil, fmt.Errorf("reading mcpvet's network namespace: %w", err)}
			return
		}
		defer home.Close()
		if err := unix.Setns(nsfd, unix.CLONE_NEWNET); err != nil {
			runtime.UnlockOSThread()
			ch <- result{nil, fmt.Errorf("entering the sandbox's network namespace: %w", err)}
			return
		}
		var d net.Dialer
		c, err := d.DialContext(ctx, "tcp", addr)
		if unix.Setns(int(home.Fd()), unix.CLONE_NEWNET) == nil {
			runtime.UnlockOSThread()
		}
		ch <- result{c, err}
	}()
	select {
	case r := <-ch:
		return r.c, r.err
	case <-ctx.Done():
		go func() {
			if r := <-ch; r.c != nil {
				r.c.Close()
			}
		}()
		return nil, ctx.Err()
	}
}
