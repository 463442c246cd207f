package probe

import (
	"context"
	"errors"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

type jsonrpcMessage = jsonrpc.Message

var errClosed = errors.New("closed")

var closeOnce sync.Mutex

func (c *silentConn) Write(context.Context, jsonrpc.Message) error { return nil }
func (c *silentConn) SessionID() string                            { return "" }
func (c *silentConn) Close() error {
	closeOnce.Lock()
	defer closeOnce.Unlock()
	select {
	case <-c.done:
	default:
		close(c.done)
	}
	return nil
}
