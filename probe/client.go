package probe

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvet/mcpvet/internal/version"
)

// The client side of a probe. mcpvet declares the roots, sampling and
// elicitation capabilities, because servers offer some tools only to
// clients that have them (server-everything registers get-roots-list,
// trigger-sampling-request and trigger-elicitation-request only then), and
// answers every server-to-client request with a fixed, well-formed reply:
// no roots, a sampling refusal in fixed text, a declined elicitation. No
// model and no user is ever in the loop.

// SamplingReply is the fixed text mcpvet answers sampling/createMessage
// with.
const SamplingReply = "mcpvet does not run a model; this is a fixed reply to sampling/createMessage"

// ClientSide records what mcpvet declared as a client and how it answered
// the server's requests.
type ClientSide struct {
	// Capabilities is the client capabilities object mcpvet declared.
	Capabilities json.RawMessage `json:"capabilities"`
	// Replies are the server-to-client requests answered, by method.
	Replies []Reply `json:"replies"`
}

// Reply counts the server-to-client requests of one method and says what
// they were answered with.
type Reply struct {
	Method string `json:"method"`
	Count  int    `json:"count"`
	Reply  string `json:"reply"`
}

// declaredCapabilities is what every probe declares. Roots without
// listChanged: the list never changes.
func declaredCapabilities() *mcp.ClientCapabilities {
	return &mcp.ClientCapabilities{
		RootsV2:     &mcp.RootCapabilities{},
		Sampling:    &mcp.SamplingCapabilities{},
		Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}},
	}
}

// clientLog counts the server-to-client requests mcpvet answered. It is
// safe for concurrent use: the go-sdk runs handlers on its own goroutines.
type clientLog struct {
	mu     sync.Mutex
	counts map[string]int
}

func (l *clientLog) note(method string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.counts == nil {
		l.counts = map[string]int{}
	}
	l.counts[method]++
}

var replyText = map[string]string{
	"roots/list":             "an empty roots list",
	"sampling/createMessage": "assistant text: " + SamplingReply,
	"elicitation/create":     `{"action":"decline"}`,
}

// side returns the record for a result.
func (l *clientLog) side(caps *mcp.ClientCapabilities) *ClientSide {
	cs := &ClientSide{Replies: []Reply{}}
	cs.Capabilities, _ = json.Marshal(caps)
	l.mu.Lock()
	defer l.mu.Unlock()
	for m, n := range l.counts {
		cs.Replies = append(cs.Replies, Reply{Method: m, Count: n, Reply: replyText[m]})
	}
	slices.SortFunc(cs.Replies, func(a, b Reply) int { return strings.Compare(a.Method, b.Method) })
	return cs
}

// newClient returns the go-sdk client of one probe session.
func newClient(log *clientLog) *mcp.Client {
	opts := &mcp.ClientOptions{
		Capabilities: declaredCapabilities(),
		//lint:ignore SA1019 sampling is declared on purpose: servers offer tools only to clients with it.
		CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			log.note("sampling/createMessage")
			return &mcp.CreateMessageResult{Model: "mcpvet-fixed-reply", Role: "assistant", StopReason: "endTurn",
				Content: &mcp.TextContent{Text: SamplingReply}}, nil
		},
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			log.note("elicitation/create")
			return &mcp.ElicitResult{Action: "decline"}, nil
		},
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "mcpvet", Version: version.Version}, opts)
	// roots/list is answered by the go-sdk from the client's (empty) root
	// set; count it through the receiving middleware.
	c.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "roots/list" {
				log.note(method)
			}
			return next(ctx, method, req)
		}
	})
	return c
}
