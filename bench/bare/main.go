// Command bare is the floor for the probe benchmark: the go-sdk client's
// handshake plus one tools/list against a stdio server, with nothing else.
//
//	go run ./bench/bare -- node server.js
//
// With -replay FILE (a `mcpvet probe --json` result), it then sends the
// probe's injected requests again (tools/call, prompts/get,
// resources/read, tools/list with a cursor; at most 16 in flight, as the
// probe's batch does) and waits for every answer: the least any client
// pays for those answers, with no sandbox, check, grading or storage.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	replay := flag.String("replay", "", "a probe --json result whose injected requests are sent again after tools/list")
	flag.Parse()
	args := flag.Args()
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "usage: bare [-replay probe.json] -- COMMAND [ARGS...]")
		os.Exit(2)
	}
	var requests []request
	if *replay != "" {
		var err error
		if requests, err = readProbes(*replay); err != nil {
			fmt.Fprintln(os.Stderr, "replay:", err)
			os.Exit(2)
		}
	}
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "bare", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{
		Command: exec.Command(args[0], args[1:]...),
		// The floor should not include the SDK's default 5 s wait for
		// the server to exit after stdin closes.
		TerminateDuration: 100 * time.Millisecond,
	}, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "connect:", err)
		os.Exit(1)
	}
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tools/list:", err)
		os.Exit(1)
	}
	listed := time.Since(start)
	sent := send(ctx, cs, requests)
	replayed := time.Since(start)
	_ = cs.Close()
	fmt.Printf("%d tools; listed after %v, %d requests replayed after %v, closed after %v\n", len(res.Tools),
		listed.Round(time.Millisecond), sent, replayed.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
}

// request is one injected request of a probe result.
type request struct {
	Method string          `json:"method"`
	Sent   json.RawMessage `json:"sent"`
}

func readProbes(path string) ([]request, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r struct {
		Probes []request `json:"probes"`
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, err
	}
	return r.Probes, nil
}

// send sends the requests of a known method, at most 16 at a time, and
// returns how many it sent; answers and errors are not looked at.
func send(ctx context.Context, cs *mcp.ClientSession, requests []request) int {
	sem := make(chan struct{}, 16)
	var wg sync.WaitGroup
	n := 0
	for _, r := range requests {
		var call func() error
		switch r.Method {
		case "tools/call":
			call = bind(ctx, r.Sent, cs.CallTool)
		case "prompts/get":
			call = bind(ctx, r.Sent, cs.GetPrompt)
		case "resources/read":
			call = bind(ctx, r.Sent, cs.ReadResource)
		case "tools/list":
			call = bind(ctx, r.Sent, cs.ListTools)
		}
		if call == nil {
			continue
		}
		n++
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			_ = call()
		})
	}
	wg.Wait()
	return n
}

// bind decodes raw as the params of method and returns the call, or nil
// when raw does not decode.
func bind[P, R any](ctx context.Context, raw json.RawMessage, method func(context.Context, *P) (R, error)) func() error {
	var p P
	if json.Unmarshal(raw, &p) != nil {
		return nil
	}
	return func() error { _, err := method(ctx, &p); return err }
}
