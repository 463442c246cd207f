package probe

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// closeHeldTransport holds its connection's Close until release is
// closed (for at most a bound), and records whether it was.
type closeHeldTransport struct {
	inner    mcp.Transport
	release  chan struct{}
	released *bool
}

func (c closeHeldTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := c.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &closeHeldConn{Connection: conn, t: c}, nil
}

type closeHeldConn struct {
	mcp.Connection
	t closeHeldTransport
}

func (c *closeHeldConn) Close() error {
	select {
	case <-c.t.release:
		*c.t.released = true
	case <-time.After(10 * time.Second): // bounds the failing case only
	}
	return c.Connection.Close()
}

// TestClosingWhileTheSessionCloses: Options.Closing is called while the
// session is still closing (here its Close waits for the call), with the
// probes final (issue 25, probe cost: scan grades the answers there).
// Before, everything after the last answer waited for the close.
func TestClosingWhileTheSessionCloses(t *testing.T) {
	launch := batchFixture(t)
	first, _ := launch(context.Background())
	release, released := make(chan struct{}), false
	var seen []string
	res := Run(context.Background(), closeHeldTransport{inner: first, release: release, released: &released}, &Options{
		ProtocolVersion: "2025-11-25", Relaunch: launch,
		Closing: func(r *Result) {
			seen = probeLines(r)
			close(release)
		},
	})
	if !released {
		t.Error("Closing was not called while the session was closing")
	}
	if len(seen) == 0 {
		t.Fatal("Closing saw no probes")
	}
	if diff := cmp.Diff(seen, probeLines(res)); diff != "" {
		t.Errorf("probes (-seen by Closing +returned):\n%s", diff)
	}
}
