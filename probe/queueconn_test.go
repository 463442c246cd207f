package probe

import (
	"context"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// queueConn is the reading half of the fake connections of the probe
// tests: the fake server queues its messages on in, Read hands them to the
// client, and Close ends both. Each fake embeds it and adds Write.
type queueConn struct {
	in   chan jsonrpc.Message
	once sync.Once
	done chan struct{}
}

func newQueueConn(size int) queueConn {
	return queueConn{in: make(chan jsonrpc.Message, size), done: make(chan struct{})}
}

func (c *queueConn) SessionID() string { return "" }

func (c *queueConn) Close() error {
	c.once.Do(func() { close(c.done) })
	return nil
}

func (c *queueConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case m := <-c.in:
		return m, nil
	case <-c.done:
		return nil, mcp.ErrConnectionClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
