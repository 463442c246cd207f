// Command garbage is an MCP stdio server that answers with things that are
// not valid MCP, deterministically, one output line per input line. The mode
// is chosen with FIXTURE_GARBAGE:
//
//   - "shape" (the default): each request gets a well-formed JSON-RPC
//     response with its own id whose result is the string "not an object",
//     so initialize (or server/discover) returns the wrong result shape.
//     Notifications get no answer.
//   - "json": each line gets valid JSON that is not JSON-RPC.
//   - "bytes": each line gets the same 48 pseudo-random bytes, which are
//     neither JSON nor UTF-8.
//
// Checked by internal/testfixture (TestGarbage); written for the probe tests
// that classify a run as protocol_error.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
)

func main() {
	mode := os.Getenv("FIXTURE_GARBAGE")
	switch mode {
	case "":
		mode = "shape"
	case "shape", "json", "bytes":
	default:
		fmt.Fprintf(os.Stderr, "garbage: FIXTURE_GARBAGE=%q: want shape, json or bytes\n", mode)
		os.Exit(2)
	}

	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 64<<10), 4<<20)
	out := bufio.NewWriter(os.Stdout)
	for in.Scan() {
		switch mode {
		case "shape":
			var req struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			if json.Unmarshal(in.Bytes(), &req) != nil || len(req.ID) == 0 || req.Method == "" {
				continue
			}
			fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":"not an object"}`+"\n", req.ID)
		case "json":
			fmt.Fprintln(out, `{"status":"ready","message":"this is JSON but not JSON-RPC"}`)
		case "bytes":
			out.Write(noise())
		}
		if out.Flush() != nil {
			os.Exit(1)
		}
	}
}

// noise returns the same 48 bytes on every call: a 0xFF lead byte (never
// valid JSON or UTF-8) and bytes from a fixed-seed generator, never a newline.
func noise() []byte {
	r := rand.New(rand.NewPCG(1, 2))
	b := []byte{0xFF}
	for len(b) < 48 {
		if c := byte(r.UintN(256)); c != '\n' {
			b = append(b, c)
		}
	}
	return append(b, '\n')
}
