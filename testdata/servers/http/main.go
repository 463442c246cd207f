// Command http is an MCP server over HTTP: the streamable HTTP transport at
// /mcp by default, or with -sse only the legacy HTTP+SSE transport (GET /mcp
// opens the event stream). It listens on -addr (default 127.0.0.1:0, a free
// port) and prints "LISTENING http://ADDR/mcp" on stdout once listening. It
// serves two read-only tools of the wellbehaved project tracker.
//
// It stops on SIGINT or SIGTERM and, when stdin is a pipe (as under a
// sandbox), when stdin closes; with stdin from /dev/null it runs until
// signalled.
//
// Checked by internal/testfixture (TestHTTP); written for the sandbox and
// probe tests for streamable-http and sse targets.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type project struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Status string `json:"status"`
}

var projects = []project{
	{"prj_1", "Website Redesign", "active"},
	{"prj_2", "Billing Migration", "active"},
	{"prj_3", "Legacy Importer", "archived"},
}

type listOutput struct {
	Projects []project `json:"projects"`
}

type getInput struct {
	ProjectID string `json:"project_id" jsonschema:"project id as returned by list_projects, such as prj_1"`
}

func newServer() *mcp.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: "http", Version: "1.0.0"}, nil)
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true, DestructiveHint: new(false), IdempotentHint: true, OpenWorldHint: new(false)}
	mcp.AddTool(server, &mcp.Tool{
		Name: "list_projects", Title: "List projects", Annotations: readOnly,
		Description: "List the projects in the tracker with their id, name and status.",
	}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, listOutput, error) {
		return nil, listOutput{projects}, nil
	})
	mcp.AddTool(server, &mcp.Tool{
		Name: "get_project", Title: "Get a project", Annotations: readOnly,
		Description: "Get one project by id.",
	}, func(_ context.Context, _ *mcp.CallToolRequest, in getInput) (*mcp.CallToolResult, project, error) {
		for _, p := range projects {
			if p.ID == in.ProjectID {
				return nil, p, nil
			}
		}
		return nil, project{}, fmt.Errorf("unknown project %q: call list_projects to see valid ids", in.ProjectID)
	})
	return server
}

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on")
	sse := flag.Bool("sse", false, "serve the legacy HTTP+SSE transport instead of streamable HTTP")
	stdioOnly := flag.Bool("stdio-only", false, "never listen: wait on stdin like a server that serves HTTP only when an environment variable says so (git-mcp-server without MCP_TRANSPORT_TYPE=http)")
	flag.Parse()
	if flag.NArg() > 0 {
		// Like a CLI given the registry's positional "port 8089": it
		// exits before listening.
		fmt.Fprintln(os.Stderr, "error: too many arguments")
		os.Exit(1)
	}
	if *stdioOnly {
		fmt.Fprintln(os.Stderr, "serving MCP on stdio (set the transport to http to listen)")
		io.Copy(io.Discard, os.Stdin)
		return
	}
	if err := run(*addr, *sse); err != nil {
		fmt.Fprintln(os.Stderr, "http:", err)
		os.Exit(1)
	}
}

func run(addr string, sse bool) error {
	server := newServer()
	getServer := func(*http.Request) *mcp.Server { return server }
	var handler http.Handler = mcp.NewStreamableHTTPHandler(getServer, nil)
	if sse {
		handler = mcp.NewSSEHandler(getServer, nil)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", handler)

	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	fmt.Printf("LISTENING http://%s/mcp\n", ln.Addr())

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if fi, err := os.Stdin.Stat(); err == nil && fi.Mode()&os.ModeNamedPipe != 0 {
		go func() {
			_, _ = io.Copy(io.Discard, os.Stdin)
			stop()
		}()
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if srv.Shutdown(shutdownCtx) != nil {
		srv.Close() // open SSE streams do not end on their own
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
