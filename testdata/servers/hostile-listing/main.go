// Command hostile-listing is an MCP stdio server, written without an SDK so
// that it controls every byte, that attacks the scanner through tools/list.
// It has one tool, "lookup" ({"q": string}, required), which crashes the
// process on invalid arguments: a defect the scanner must find.
//
//	-pad N       pad the lookup tool's description to N bytes (a listing
//	             between the scanner's kept bytes and the message limit)
//	-pad-extra N pad the result with an extra member of N bytes instead
//	-filler N    add N small filler tools (300000 make a 16 MiB listing)
//	-nest N      nest an array N levels deep in the lookup tool's inputSchema
//	             (7000000 make a 14 MiB listing; past 10,000 no JSON
//	             decoder of a client takes it)
//	-bomb KIND   on tools/list without a cursor: "memory" allocates until killed,
//	             "processes" forks until killed, "exit" exits with code 3
//
// The last argument may be a test marker; it is ignored.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

var (
	pad      = flag.Int("pad", 0, "pad the lookup description to this many bytes")
	padExtra = flag.Int("pad-extra", 0, "add an extra result member of this many bytes")
	filler   = flag.Int("filler", 0, "number of filler tools")
	nest     = flag.Int("nest", 0, "nest an array this deep in the lookup inputSchema")
	bomb     = flag.String("bomb", "", "memory, processes or exit on tools/list")
)

type request struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

func main() {
	flag.Parse()
	if len(os.Args) > 1 && os.Args[1] == "child-sleep" {
		time.Sleep(time.Minute)
		return
	}
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	out := bufio.NewWriterSize(os.Stdout, 1<<20)
	for {
		line, err := in.ReadBytes('\n')
		if err != nil {
			return
		}
		var req request
		if json.Unmarshal(line, &req) != nil || req.ID == nil {
			continue // notifications
		}
		switch req.Method {
		case "initialize":
			reply(out, req.ID, `{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"hostile-listing","version":"0.1.0"}}`)
		case "ping":
			reply(out, req.ID, `{}`)
		case "tools/list":
			if !strings.Contains(string(req.Params), `"cursor"`) {
				doBomb() // on the valid first request only
			}
			listTools(out, req.ID)
		case "tools/call":
			var p struct {
				Name      string         `json:"name"`
				Arguments map[string]any `json:"arguments"`
			}
			_ = json.Unmarshal(req.Params, &p)
			if p.Name != "lookup" {
				fail(out, req.ID, -32602, "unknown tool "+p.Name)
				continue
			}
			q, ok := p.Arguments["q"].(string)
			if !ok || len(p.Arguments) != 1 {
				// The defect: invalid input ends the process.
				fmt.Fprintln(os.Stderr, "panic: lookup: bad arguments")
				os.Exit(2)
			}
			text, _ := json.Marshal("value of " + q)
			reply(out, req.ID, `{"content":[{"type":"text","text":`+string(text)+`}]}`)
		default:
			fail(out, req.ID, -32601, "method not found: "+req.Method)
		}
	}
}

func doBomb() {
	switch *bomb {
	case "memory":
		var keep [][]byte
		for {
			b := make([]byte, 16<<20)
			for i := range b {
				b[i] = 1
			}
			keep = append(keep, b)
		}
	case "processes":
		self, _ := os.Executable()
		for {
			c := exec.Command(self, "child-sleep")
			if c.Start() != nil {
				time.Sleep(time.Millisecond)
			}
		}
	case "exit":
		fmt.Fprintln(os.Stderr, "fatal: out of cheese while listing tools")
		os.Exit(3)
	}
}

func listTools(out *bufio.Writer, id json.RawMessage) {
	desc := "Looks up the value stored under a key."
	if *pad > len(desc) {
		desc += " " + strings.Repeat("x", *pad-len(desc)-1)
	}
	d, _ := json.Marshal(desc)
	var b strings.Builder
	b.WriteString(`{"tools":[{"name":"lookup","description":`)
	b.Write(d)
	b.WriteString(`,"inputSchema":{"type":"object","properties":{"q":{"type":"string","description":"The key."}},"required":["q"],"additionalProperties":false`)
	if *nest > 0 {
		b.WriteString(`,"examples":`)
		b.WriteString(strings.Repeat("[", *nest))
		b.WriteString(strings.Repeat("]", *nest))
	}
	b.WriteString(`}}`)
	for i := 0; i < *filler; i++ {
		fmt.Fprintf(&b, `,{"name":"f%d","inputSchema":{"type":"object"}}`, i)
	}
	b.WriteString(`]`)
	if *padExtra > 0 {
		b.WriteString(`,"padding":"`)
		b.WriteString(strings.Repeat("y", *padExtra))
		b.WriteString(`"`)
	}
	b.WriteString(`}`)
	reply(out, id, b.String())
}

func reply(out *bufio.Writer, id json.RawMessage, result string) {
	fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":%s}`+"\n", id, result)
	out.Flush()
}

func fail(out *bufio.Writer, id json.RawMessage, code int, msg string) {
	m, _ := json.Marshal(msg)
	fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%s}}`+"\n", id, code, m)
	out.Flush()
}
