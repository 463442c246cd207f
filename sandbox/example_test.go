package sandbox_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvet/mcpvet/sandbox"
	"github.com/mcpvet/mcpvet/vocab"
)

// Launching a remote server: the transport is the go-sdk's streamable HTTP
// client, with the legacy SSE fallback and the plan's headers.
func ExampleLaunch() {
	server := mcp.NewServer(&mcp.Implementation{Name: "weather", Version: "1.0.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "forecast", Description: "Tomorrow's weather."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "sunny"}}}, nil, nil
		})
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	defer hs.Close()

	ctx := context.Background()
	plan := &vocab.Plan{Name: "weather", Transport: vocab.TransportStreamable, URL: hs.URL,
		Headers: map[string]string{"Authorization": "Bearer example"}}
	srv, err := sandbox.Launch(ctx, plan, nil)
	if err != nil {
		fmt.Println("launch:", err)
		return
	}
	defer srv.Close()
	client := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "1"}, nil)
	session, err := client.Connect(ctx, srv.Transport(), nil)
	if err != nil {
		fmt.Println("connect:", err)
		return
	}
	defer session.Close()
	tools, err := session.ListTools(ctx, nil)
	if err != nil {
		fmt.Println("tools/list:", err)
		return
	}
	fmt.Println(tools.Tools[0].Name, srv.Info(0).Warnings)
	// Output: forecast [transport: streamable-http]
}

// Pre-launch outcomes are *LaunchError values; anything else is an
// infrastructure failure.
func ExampleLaunchError() {
	plan := &vocab.Plan{Name: "github", Transport: vocab.TransportStdio,
		Package: &vocab.Package{RegistryType: "npm", Identifier: "--registry=http://evil.example", Version: "1.0.0"}}
	_, err := sandbox.Launch(context.Background(), plan, &sandbox.Options{Backend: sandbox.BackendNone})
	var le *sandbox.LaunchError
	if errors.As(err, &le) {
		fmt.Println(le.Status, "-", le.Detail)
	}
	// Output: invalid_plan - invalid npm package name "--registry=http://evil.example"
}
