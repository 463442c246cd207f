// Command goserver is the small go-sdk server whose error responses
// testdata/errors records as "gosdk-*". It has one tool with a required,
// bounded, enumerated and patterned argument, and one runtime failure
// (city "Atlantis").
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type WeatherIn struct {
	City  string `json:"city" jsonschema:"city name"`
	Units string `json:"units,omitempty" jsonschema:"metric or imperial"`
	Days  int    `json:"days,omitempty"`
	Zip   string `json:"zip,omitempty"`
}

func main() {
	s := mcp.NewServer(&mcp.Implementation{Name: "weather", Version: "0.1.0"}, nil)
	t := &mcp.Tool{Name: "get_forecast", Description: "forecast", InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string","maxLength":40},"units":{"type":"string","enum":["metric","imperial"]},"days":{"type":"integer","minimum":1,"maximum":7},"zip":{"type":"string","pattern":"^[0-9]{5}$"}},"required":["city"],"additionalProperties":false}`)}
	mcp.AddTool(s, t, func(ctx context.Context, req *mcp.CallToolRequest, in WeatherIn) (*mcp.CallToolResult, any, error) {
		if in.City == "Atlantis" {
			return nil, nil, fmt.Errorf("unknown city %q", in.City)
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "sunny"}}}, nil, nil
	})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}
