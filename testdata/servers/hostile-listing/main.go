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
//	             "processes" forks until killed, "exit" exits with code 3,
//	             "slow-memory" maps 4 MiB every 25 ms up to -slow-to MiB
//	             without answering, and allocates until killed once the
//	             client gives up on the request (notifications/cancelled) or
//	             after 10 s: a slowly growing bomb that crosses the memory
//	             limit only after the listing timed out
//	             "child-memory" starts a child that maps memory until killed,
//	             waits for it, and answers the listing 2 s later: the
//	             server itself survives the memory limit
//	-bomb-on cursor  bomb on tools/list with a cursor (the scanner's
//	             never-issued cursor) instead of the first listing
//	-bomb-on call    bomb on the first tools/call instead (after the
//	             handshake and the listings were answered)
//	-start-memory N  map and touch N MiB before reading stdin: under a
//	             smaller memory limit the process always dies at start,
//	             with an out-of-memory sign on stderr
//	-slow-to N   the MiB "slow-memory" holds before the client gives up
//	-crash-unknown  tools/call naming an unknown tool ends the process
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
	"syscall"
	"time"
)

var (
	pad      = flag.Int("pad", 0, "pad the lookup description to this many bytes")
	padExtra = flag.Int("pad-extra", 0, "add an extra result member of this many bytes")
	filler   = flag.Int("filler", 0, "number of filler tools")
	nest     = flag.Int("nest", 0, "nest an array this deep in the lookup inputSchema")
	bomb     = flag.String("bomb", "", "memory, processes, exit, slow-memory or child-memory on tools/list")
	bombOn   = flag.String("bomb-on", "first", "first, cursor or call: which request sets the bomb off")
	startMiB = flag.Int("start-memory", 0, "MiB to map and touch before reading stdin")
	slowTo   = flag.Int("slow-to", 96, "MiB slow-memory holds until the client gives up")
	crashUnk = flag.Bool("crash-unknown", false, "exit on tools/call naming an unknown tool")
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
	if len(os.Args) > 1 && os.Args[1] == "child-memory" {
		for held := 0; ; {
			held = mapMiB(16, held)
		}
	}
	if *startMiB > 0 {
		mapMiB(*startMiB, 0)
	}
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	out := bufio.NewWriterSize(os.Stdout, 1<<20)
	gaveUp := make(chan struct{})
	for {
		line, err := in.ReadBytes('\n')
		if err != nil {
			return
		}
		var req request
		if json.Unmarshal(line, &req) != nil {
			continue
		}
		if req.ID == nil {
			if req.Method == "notifications/cancelled" {
				select {
				case <-gaveUp:
				default:
					close(gaveUp)
				}
			}
			continue // notifications
		}
		switch req.Method {
		case "initialize":
			reply(out, req.ID, `{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"hostile-listing","version":"0.1.0"}}`)
		case "ping":
			reply(out, req.ID, `{}`)
		case "tools/list":
			if *bombOn != "call" && strings.Contains(string(req.Params), `"cursor"`) == (*bombOn == "cursor") {
				if *bomb == "slow-memory" {
					go slowBomb(gaveUp)
					continue // never answered
				}
				doBomb()
			}
			listTools(out, req.ID)
		case "tools/call":
			if *bombOn == "call" {
				doBomb()
			}
			var p struct {
				Name      string         `json:"name"`
				Arguments map[string]any `json:"arguments"`
			}
			_ = json.Unmarshal(req.Params, &p)
			if p.Name != "lookup" {
				if *crashUnk {
					fmt.Fprintln(os.Stderr, "panic: no tool "+p.Name)
					os.Exit(2)
				}
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
		held := 0
		for {
			held = mapMiB(16, held)
		}
	case "processes":
		self, _ := os.Executable()
		for {
			c := exec.Command(self, "child-sleep")
			if c.Start() != nil {
				time.Sleep(time.Millisecond)
			}
		}
	case "child-memory":
		self, _ := os.Executable()
		c := exec.Command(self, "child-memory")
		c.Stderr = os.Stderr
		err := c.Run()
		fmt.Fprintf(os.Stderr, "hostile-listing: the child ended (%v); the server goes on\n", err)
		time.Sleep(2 * time.Second)
	case "exit":
		fmt.Fprintln(os.Stderr, "fatal: out of cheese while listing tools")
		os.Exit(3)
	}
}

// slowBomb maps 4 MiB every 25 ms up to -slow-to MiB, then holds until
// the client gives up on the request (or 10 s pass) and maps memory until
// killed: the crossing lands right after the client gave up.
func slowBomb(gaveUp <-chan struct{}) {
	held := 0
	deadline := time.After(10 * time.Second)
hold:
	for {
		if held < *slowTo {
			held = mapMiB(4, held)
		}
		select {
		case <-gaveUp:
			break hold
		case <-deadline:
			break hold
		case <-time.After(25 * time.Millisecond):
		}
	}
	for {
		held = mapMiB(16, held)
	}
}

// mapMiB maps mib MiB more (held are mapped already) with MAP_POPULATE, so
// the kernel charges every page at once (page faults one by one are slow
// in some virtual machines: a bomb must reach its limit in well under a
// second). Under RLIMIT_DATA the mapping is refused, as malloc's would be,
// and the program ends as the Go runtime does when it runs out of memory.
func mapMiB(mib, held int) int {
	if _, err := syscall.Mmap(-1, 0, mib<<20, syscall.PROT_READ|syscall.PROT_WRITE,
		syscall.MAP_ANON|syscall.MAP_PRIVATE|syscall.MAP_POPULATE); err != nil {
		fmt.Fprintf(os.Stderr, "fatal error: out of memory: mmap %d MiB after %d MiB: %v\n", mib, held, err)
		os.Exit(2)
	}
	return held + mib
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
