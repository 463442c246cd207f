// Command sandboxbench times real MCP servers from npm through the sandbox:
// the first Launch (npm install into an empty cache) against later ones
// (warm cache), and a full handshake plus tools/list per backend.
//
//	go run ./bench/sandboxbench -package @modelcontextprotocol/server-everything -version 2026.1.26
//
// It needs network for the first install; bench/sandbox.sh runs it.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvet/mcpvet/sandbox"
	"github.com/mcpvet/mcpvet/vocab"
)

func main() {
	sandbox.Main()
	os.Exit(run())
}

func run() int {
	pkg := flag.String("package", "@modelcontextprotocol/server-everything", "npm package")
	version := flag.String("version", "2026.1.26", "npm version")
	backends := flag.String("backends", "none,builtin,bwrap", "comma-separated backends")
	warm := flag.Int("warm", 5, "warm launches per backend")
	cache := flag.String("cache", "", "cache folder (default: a fresh temporary folder)")
	flag.Parse()
	dir := *cache
	if dir == "" {
		d, err := os.MkdirTemp("", "sandboxbench-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(d)
		dir = d
	}
	plan := &vocab.Plan{Transport: vocab.TransportStdio, Package: &vocab.Package{RegistryType: "npm", Identifier: *pkg, Version: *version}}
	first := true
	for _, backend := range splitComma(*backends) {
		opts := &sandbox.Options{Backend: backend, CacheDir: dir}
		var launchTotal, sessionTotal time.Duration
		n := 0
		for i := 0; i <= *warm; i++ {
			t0 := time.Now()
			s, err := sandbox.Launch(context.Background(), plan, opts)
			launch := time.Since(t0)
			if err != nil {
				fmt.Fprintf(os.Stderr, "%s: launch: %v\n", backend, err)
				return 1
			}
			t1 := time.Now()
			tools, err := session(s)
			sess := time.Since(t1)
			s.Close()
			if err != nil {
				fmt.Fprintf(os.Stderr, "%s: session: %v (%+v)\n", backend, err, s.Info(0))
				return 1
			}
			if first {
				fmt.Printf("cold launch (npm install into an empty cache): %v; handshake+tools/list %v (%d tools)\n", launch.Round(time.Millisecond), sess.Round(time.Millisecond), tools)
				first = false
				continue
			}
			launchTotal += launch
			sessionTotal += sess
			n++
		}
		if n > 0 {
			fmt.Printf("%-8s warm launch %8v  handshake+tools/list %8v  (mean of %d)\n", backend,
				(launchTotal / time.Duration(n)).Round(10*time.Microsecond), (sessionTotal / time.Duration(n)).Round(100*time.Microsecond), n)
		}
	}
	return 0
}

func session(s *sandbox.Server) (int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "sandboxbench", Version: "1"}, nil)
	cs, err := client.Connect(ctx, s.Transport(), nil)
	if err != nil {
		return 0, err
	}
	defer cs.Close()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		return 0, err
	}
	return len(res.Tools), nil
}

func splitComma(s string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ',' {
			if i > start {
				out = append(out, s[start:i])
			}
			start = i + 1
		}
	}
	return out
}
