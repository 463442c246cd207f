package sandbox

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvet/mcpvet/internal/jsonscan"
)

// stdoutNoiseBytes is how much non-protocol stdout [Info.StdoutNoise] keeps.
const stdoutNoiseBytes = 512

// stdioTransport is the [mcp.Transport] of a stdio server: Connect starts
// the process.
type stdioTransport struct{ s *Server }

// Connect starts the server process and returns its connection. It may be
// called once per [Server].
func (t *stdioTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	if err := t.s.start(ctx); err != nil {
		return nil, err
	}
	return &stdioConn{s: t.s}, nil
}

// stdioConn is an [mcp.Connection] over the server's stdin and stdout:
// newline-delimited JSON-RPC. Read, Write and Close may be called
// concurrently; Close escalates to killing the process tree.
type stdioConn struct{ s *Server }

func (c *stdioConn) SessionID() string { return "" }

// Read returns the next message from stdout. Lines that are not JSON-RPC are
// recorded as noise and skipped. It returns io.EOF once stdout is closed or
// the connection is.
func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	s := c.s
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case m, ok := <-s.msgs:
		if !ok {
			return nil, io.EOF
		}
		return m, nil
	case <-s.connClosed:
		return nil, io.EOF
	}
}

// Write sends msg as one line on stdin. Writes are serialized; a write
// blocked by a server that does not read stdin ends when ctx is done or
// the connection closes.
func (c *stdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	s := c.s
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encoding message: %w", err)
	}
	data = append(data, '\n')
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	select {
	case <-s.connClosed:
		return mcp.ErrConnectionClosed
	default:
	}
	stop := context.AfterFunc(ctx, func() { _ = s.stdin.SetWriteDeadline(time.Now()) })
	_, err = s.stdin.Write(data)
	if !stop() {
		// The deadline may have been set; clear it for the next write.
		_ = s.stdin.SetWriteDeadline(time.Time{})
		if err != nil && ctx.Err() != nil {
			return ctx.Err()
		}
	}
	if err != nil {
		if errors.Is(err, os.ErrClosed) {
			return mcp.ErrConnectionClosed
		}
		return fmt.Errorf("writing to server stdin: %w", err)
	}
	return nil
}

// Close shuts the server down (see [Server.Close] for the escalation) but
// keeps what [Server.Info] reports. It is idempotent.
func (c *stdioConn) Close() error {
	c.s.terminate()
	return nil
}

// readStdout splits stdout into lines and decodes them, enforcing the
// message and total size limits. It owns s.msgs and closes it when done.
func (s *Server) readStdout(r io.Reader) {
	defer close(s.msgs)
	lim := s.opts.Limits
	br := bufio.NewReaderSize(r, 64<<10)
	var total int64
	var line []byte
	// A line longer than the reader's buffer is gathered as copies of
	// its pieces and joined once at its exact size: growing one slice
	// by append leaves tens of MiB of discarded buffers behind for a 16
	// MiB line (issue 22 item 9).
	var pieces [][]byte
	var piecesLen int
	for {
		chunk, err := br.ReadSlice('\n')
		total += int64(len(chunk))
		if total > 0 {
			s.stdoutSeen.Store(true)
		}
		if lim.StdoutBytes > 0 && total > lim.StdoutBytes {
			s.limitKill(LimitStdoutBytes)
			return
		}
		body := piecesLen + len(chunk)
		if len(chunk) > 0 && chunk[len(chunk)-1] == '\n' {
			body--
		}
		if lim.MessageBytes > 0 && body > lim.MessageBytes {
			s.limitKill(LimitMessageSize)
			return
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			pieces = append(pieces, bytes.Clone(chunk))
			piecesLen += len(chunk)
			continue
		}
		if pieces == nil {
			line = append(line, chunk...)
		} else {
			line = make([]byte, 0, piecesLen+len(chunk))
			for _, p := range pieces {
				line = append(line, p...)
			}
			line = append(line, chunk...)
			pieces, piecesLen = nil, 0
		}
		if !s.handleLine(line) {
			return
		}
		line = reuseLine(line)
		if err != nil {
			return
		}
	}
}

// maxReusedLine is the largest line buffer the reader keeps between lines.
const maxReusedLine = 1 << 20

// reuseLine empties line for the next one, keeping its buffer unless it
// grew past maxReusedLine: a huge buffer is not kept after one big
// message.
func reuseLine(line []byte) []byte {
	if cap(line) > maxReusedLine {
		return nil
	}
	return line[:0]
}

// handleLine decodes one stdout line and queues its messages. It returns
// false when the connection is closed.
func (s *Server) handleLine(line []byte) bool {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return true
	}
	var msgs []jsonrpc.Message
	if line[0] == '[' {
		// A JSON-RPC batch (allowed by the 2025-03-26 revision).
		var raws []json.RawMessage
		if json.Unmarshal(line, &raws) == nil && len(raws) > 0 {
			for _, raw := range raws {
				m, err := jsonrpc.DecodeMessage(raw)
				if err != nil {
					msgs = nil
					break
				}
				msgs = append(msgs, m)
			}
		}
	} else if m := decodeLarge(line); m != nil {
		msgs = append(msgs, m)
	} else if m, err := jsonrpc.DecodeMessage(line); err == nil {
		msgs = append(msgs, m)
	}
	if len(msgs) == 0 {
		if jsonscan.Depth(line, jsonscan.MaxDepth) > jsonscan.MaxDepth {
			// A message no JSON decoder of a client takes (Go's and the
			// SDK's stop at 10,000 levels): the message depth limit,
			// not stdout noise (issue 22 item 9).
			s.limitKill(LimitMessageDepth)
			return false
		}
		s.addNoise(line)
		return true
	}
	for _, m := range msgs {
		select {
		case s.msgs <- m:
		case <-s.connClosed:
			return false
		}
	}
	return true
}

// largeLine is the size from which a response is decoded in place by
// decodeLarge. Lines this large are never reused by readStdout
// (maxReusedLine), so the response may keep a slice of the line.
const largeLine = maxReusedLine + 1

// decodeLarge decodes a response line of at least largeLine bytes whose
// bulk is its result without copying the result: the line with the result
// replaced by 0 goes through jsonrpc.DecodeMessage (so the SDK's rules for
// the version, id and error hold), and the result is the line's own bytes.
// It returns nil for anything else, which the caller decodes as usual: a
// 16 MiB listing is then held once instead of once per decoder buffer
// (issue 22 item 9).
func decodeLarge(line []byte) jsonrpc.Message {
	if len(line) < largeLine || line[0] != '{' || !json.Valid(line) {
		return nil
	}
	var from, to, results int
	if jsonscan.Spans(line, func(key string, a, b int) bool {
		if key == "result" {
			results++
			from, to = a, b
		}
		return true
	}) != nil || results != 1 || len(line)-(to-from) > 64<<10 {
		return nil
	}
	small := make([]byte, 0, len(line)-(to-from)+1)
	small = append(small, line[:from]...)
	small = append(small, '0')
	small = append(small, line[to:]...)
	m, err := jsonrpc.DecodeMessage(small)
	if err != nil {
		return nil
	}
	r, ok := m.(*jsonrpc.Response)
	if !ok || r.Error != nil {
		return nil
	}
	r.Result = line[from:to:to]
	return r
}

func (s *Server) addNoise(line []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	room := stdoutNoiseBytes - len(s.noise)
	if room <= 0 {
		return
	}
	if len(s.noise) > 0 {
		s.noise = append(s.noise, '\n')
		room--
	}
	s.noise = append(s.noise, line[:min(room, len(line))]...)
}
