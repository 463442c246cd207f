package probe

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestSamplingUndeclared: a server that, during an exercised call, asks
// mcpvet (sampling declared without tools or context) to sample with
// tools, toolChoice and includeContext thisServer: one finding each; the
// request is still answered.
func TestSamplingUndeclared(t *testing.T) {
	sample := `{"jsonrpc":"2.0","id":"s1","method":"sampling/createMessage","params":{"maxTokens":50,"includeContext":"thisServer",
	 "messages":[{"role":"user","content":{"type":"text","text":"Summarise."}}],
	 "tools":[{"name":"lookup","inputSchema":{"type":"object"}}],"toolChoice":{"mode":"auto"}}}`
	srv := &scriptServer{script: map[string][]string{
		"initialize": {initAnswer(`{"tools":{}}`)},
		"ping":       result(`{}`),
		"tools/list": result(readerTool),
		"tools/call": {sample, `30ms|{"jsonrpc":"2.0","id":$ID,"result":{"content":[{"type":"text","text":"ok"}]}}`},
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res := Run(ctx, srv, &Options{CallTimeout: 2 * time.Second, Exercise: true, Inject: &InjectOptions{Disabled: true}})
	const p = "sampling/undeclared_feature_used server sampling/createMessage/params/"
	want := []string{p + "includeContext", p + "toolChoice", p + "tools"}
	if diff := cmp.Diff(want, findingKeys(res, CodeSamplingUndeclared)); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
}

// TestSamplingConformant: a go-sdk server that samples during an
// exercised call without tools and with includeContext none: no finding,
// one sampling reply.
func TestSamplingConformant(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "samples", Version: "1"}, nil)
	sampled := make(chan error, 1)
	mcp.AddTool(server, &mcp.Tool{Name: "reader", Description: "Reads, then summarises.", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: new(bool)}},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			//lint:ignore SA1019 sampling is what this fixture tests.
			_, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{MaxTokens: 50, IncludeContext: "none",
				Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "Summarise."}}}})
			sampled <- err
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil, nil
		})
	res := runExercised(t, server, "2025-11-25")
	select {
	case err := <-sampled:
		if err != nil {
			t.Fatalf("the server's sampling failed: %v", err)
		}
	default:
		t.Fatalf("the tool was not called: exercised %+v", res.Exercised)
	}
	if got := findingKeys(res, CodeSamplingUndeclared, CodeMessageSchemaViolation); len(got) != 0 {
		t.Errorf("findings on a conformant sampling request: %v", got)
	}
	if !repliedOnce(res, "sampling/createMessage") {
		t.Errorf("client replies %+v, want one sampling/createMessage", res.Client.Replies)
	}
}
