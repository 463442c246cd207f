package source_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"

	"github.com/mcpvet/mcpvet/scan/source"
)

func ExampleCrawl() {
	// A stand-in registry with two pages.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Query().Get("cursor") {
		case "":
			fmt.Fprint(w, `{"servers":[{"server":{"name":"io.example/a","version":"1.0.0"}}],"metadata":{"nextCursor":"p2","count":1}}`)
		case "p2":
			fmt.Fprint(w, `{"servers":[{"server":{"name":"io.example/b","version":"0.3.0"}}],"metadata":{"count":1}}`)
		}
	}))
	defer srv.Close()

	for e, err := range source.Crawl(context.Background(), &source.CrawlOptions{BaseURL: srv.URL}) {
		if err != nil {
			log.Fatal(err) // entries printed so far are kept
		}
		fmt.Println(e.ID())
	}
	// Output:
	// io.example/a@1.0.0
	// io.example/b@0.3.0
}

func ExamplePlans() {
	snapshot := `[
	  {"server": {"name": "io.example/weather", "version": "1.2.0",
	    "packages": [{"registryType": "npm", "identifier": "@example/weather-mcp", "version": "1.2.0",
	      "transport": {"type": "stdio"},
	      "environmentVariables": [
	        {"name": "WEATHER_API_KEY", "isRequired": true, "isSecret": true},
	        {"name": "UNITS", "default": "metric"}]}],
	    "remotes": [{"type": "streamable-http", "url": "https://weather.example.com/mcp",
	      "headers": [{"name": "X-Tenant", "isRequired": true}]}]},
	   "_meta": {"io.modelcontextprotocol.registry/official": {"status": "active", "isLatest": true}}},
	  {"server": {"name": "io.example/weather", "version": "1.1.0"},
	   "_meta": {"io.modelcontextprotocol.registry/official": {"status": "active", "isLatest": false}}}
	]`
	entries, err := source.ReadSnapshot(strings.NewReader(snapshot))
	if err != nil {
		log.Fatal(err)
	}
	plans, stats := source.Plans(entries, nil)
	for _, p := range plans {
		fmt.Println(p.Key, p.Transport, p.Env, p.Secrets)
		if p.Status != "" {
			fmt.Println("  ", p.Status+":", p.StatusDetail)
		}
	}
	fmt.Printf("kept %d of %d, %d not latest, %d plans, %d need configuration\n",
		stats.Kept, stats.Total, stats.SkippedNotLatest, stats.Plans, stats.NeedsConfiguration)
	// Output:
	// registry:io.example/weather@1.2.0#package:0 stdio map[UNITS:metric] [WEATHER_API_KEY]
	// registry:io.example/weather@1.2.0#remote:0 streamable-http map[] []
	//    needs_configuration: required inputs without a value: header X-Tenant
	// kept 1 of 2, 1 not latest, 2 plans, 1 need configuration
}

func ExampleReadConfig() {
	config := `{
	  "mcpServers": {
	    "filesystem": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]},
	    "remote": {"url": "https://mcp.example.com/mcp", "headers": {"Authorization": "Bearer ${env:TOKEN}"}}
	  }
	}`
	plans, err := source.ReadConfig(strings.NewReader(config), &source.ConfigOptions{File: "claude_desktop_config.json"})
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range plans {
		if p.Transport == "stdio" {
			fmt.Println(p.Key, p.Command, p.Args)
		} else {
			fmt.Println(p.Key, p.Transport, p.URL, p.Status, p.StatusDetail)
		}
	}
	// Output:
	// config:claude_desktop_config.json#filesystem npx [-y @modelcontextprotocol/server-filesystem /tmp]
	// config:claude_desktop_config.json#remote streamable-http https://mcp.example.com/mcp needs_configuration unresolved references: ${env:TOKEN} in headers.Authorization; give --pass-env TOKEN
}

func ExampleWriteSnapshot() {
	entries, err := source.ReadSnapshot(strings.NewReader(`{"server":{"name":"io.example/a","version":"1"}}`))
	if err != nil {
		log.Fatal(err)
	}
	if err := source.WriteSnapshot(os.Stdout, entries); err != nil {
		log.Fatal(err)
	}
	// Output:
	// [
	//   {
	//     "server": {
	//       "name": "io.example/a",
	//       "version": "1"
	//     }
	//   }
	// ]
}

func ExampleShard() {
	_, err := source.Shard(nil, 4, 4)
	fmt.Println(err)
	// Output:
	// shard 4 of 4: want 0 <= shard < count and count >= 1
}
