package probe

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// listKind describes one paginated list method.
type listKind struct {
	method     string
	capability string // capability that gates the method
	itemsKey   string // key of the items array in the result
	call       func(ctx context.Context, cs *mcp.ClientSession, cursor string) error
	add        func(res *Result, raw json.RawMessage)
}

var listKinds = []listKind{
	{
		method: "tools/list", capability: "tools", itemsKey: "tools",
		call: func(ctx context.Context, cs *mcp.ClientSession, c string) error {
			_, err := cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: c})
			return err
		},
		add: func(res *Result, raw json.RawMessage) {
			var t struct {
				Name         string          `json:"name"`
				Title        string          `json:"title"`
				Description  string          `json:"description"`
				InputSchema  json.RawMessage `json:"inputSchema"`
				OutputSchema json.RawMessage `json:"outputSchema"`
				Annotations  json.RawMessage `json:"annotations"`
			}
			_ = json.Unmarshal(raw, &t)
			res.Tools = append(res.Tools, Tool{Name: t.Name, Title: t.Title, Description: t.Description,
				InputSchema: t.InputSchema, OutputSchema: t.OutputSchema, Annotations: t.Annotations, Raw: raw})
		},
	},
	{
		method: "prompts/list", capability: "prompts", itemsKey: "prompts",
		call: func(ctx context.Context, cs *mcp.ClientSession, c string) error {
			_, err := cs.ListPrompts(ctx, &mcp.ListPromptsParams{Cursor: c})
			return err
		},
		add: func(res *Result, raw json.RawMessage) {
			var p struct {
				Name        string          `json:"name"`
				Title       string          `json:"title"`
				Description string          `json:"description"`
				Arguments   json.RawMessage `json:"arguments"`
			}
			_ = json.Unmarshal(raw, &p)
			res.Prompts = append(res.Prompts, Prompt{Name: p.Name, Title: p.Title, Description: p.Description, Arguments: p.Arguments, Raw: raw})
		},
	},
	{
		method: "resources/list", capability: "resources", itemsKey: "resources",
		call: func(ctx context.Context, cs *mcp.ClientSession, c string) error {
			_, err := cs.ListResources(ctx, &mcp.ListResourcesParams{Cursor: c})
			return err
		},
		add: func(res *Result, raw json.RawMessage) {
			var r struct {
				URI      string `json:"uri"`
				Name     string `json:"name"`
				MIMEType string `json:"mimeType"`
			}
			_ = json.Unmarshal(raw, &r)
			res.Resources = append(res.Resources, Resource{URI: r.URI, Name: r.Name, MIMEType: r.MIMEType, Raw: raw})
		},
	},
	{
		method: "resources/templates/list", capability: "resources", itemsKey: "resourceTemplates",
		call: func(ctx context.Context, cs *mcp.ClientSession, c string) error {
			_, err := cs.ListResourceTemplates(ctx, &mcp.ListResourceTemplatesParams{Cursor: c})
			return err
		},
		add: func(res *Result, raw json.RawMessage) {
			var r struct {
				URITemplate string `json:"uriTemplate"`
				Name        string `json:"name"`
			}
			_ = json.Unmarshal(raw, &r)
			res.ResourceTemplates = append(res.ResourceTemplates, ResourceTemplate{URITemplate: r.URITemplate, Name: r.Name, Raw: raw})
		},
	},
}

// listAll lists everything the server declared, page by page, and returns
// the raw pages for schema validation.
func listAll(ctx context.Context, s *session, res *Result, o Options) []Page {
	caps := map[string]json.RawMessage{}
	_ = json.Unmarshal(res.Liveness.Capabilities, &caps)
	var pages []Page
	for _, k := range listKinds {
		if c, ok := caps[k.capability]; !ok || string(c) == "null" {
			continue
		}
		pages = append(pages, listOne(ctx, s, res, o, k)...)
		if ctx.Err() != nil {
			break
		}
	}
	return pages
}

func listOne(ctx context.Context, s *session, res *Result, o Options, k listKind) []Page {
	var pages []Page
	seen := map[string]bool{}
	cursor := ""
	items := 0
	for page := 0; ; page++ {
		if page >= o.MaxPages {
			res.Findings = append(res.Findings, NewFinding(CodePageCap, "server", k.method, fmt.Sprint(page),
				"%s still returned a nextCursor after %d pages; the scanner stopped there", k.method, page))
			return pages
		}
		cctx, cancel := context.WithTimeout(ctx, o.CallTimeout)
		err := k.call(cctx, s.cs, cursor)
		timedOut := cctx.Err() != nil
		cancel()
		ex, answered := s.rec.last(k.method)
		if answered && ex.Seq != s.rec.lastSeq(k.method) {
			answered = false
		}
		switch {
		case err != nil && timedOut && ctx.Err() == nil:
			res.Findings = append(res.Findings, NewFinding(CodeListTimeout, "server", k.method, "",
				"%s got no answer within %s", k.method, o.CallTimeout))
			return pages
		case err != nil && ex.err != nil && answered:
			res.Findings = append(res.Findings, NewFinding(CodeListFailed, "server", k.method, ex.err.Message,
				"%s failed with JSON-RPC error %d although the server declared the %q capability; answer it or stop declaring it",
				k.method, ex.err.Code, k.capability))
			return pages
		case !answered || ex.result == nil:
			if err != nil && ctx.Err() == nil {
				res.Findings = append(res.Findings, NewFinding(CodeListFailed, "server", k.method, err.Error(),
					"%s failed: %v", k.method, err))
			}
			return pages
		}
		pages = append(pages, Page{Method: k.method, Result: ex.result})
		var body map[string]json.RawMessage
		var list []json.RawMessage
		if json.Unmarshal(ex.result, &body) != nil || json.Unmarshal(body[k.itemsKey], &list) != nil || body[k.itemsKey] == nil {
			res.Findings = append(res.Findings, NewFinding(CodeMalformedResult, "server", k.method, string(ex.result),
				"%s must return an object with a %q array", k.method, k.itemsKey))
			return pages
		}
		for _, raw := range list {
			if items >= o.MaxItems {
				res.Findings = append(res.Findings, NewFinding(CodePageCap, "server", k.method, fmt.Sprint(items),
					"%s returned more than %d items; the scanner kept the first %d", k.method, o.MaxItems, o.MaxItems))
				return pages
			}
			k.add(res, raw)
			items++
		}
		var next string
		if nc, ok := body["nextCursor"]; ok && string(nc) != "null" {
			if json.Unmarshal(nc, &next) != nil {
				res.Findings = append(res.Findings, NewFinding(CodeMalformedResult, "server", k.method+"/nextCursor", string(nc),
					"nextCursor must be a string"))
				return pages
			}
		}
		if next == "" {
			return pages
		}
		if seen[next] || next == cursor {
			res.Findings = append(res.Findings, NewFinding(CodeCursorLoop, "server", k.method+"/nextCursor", next,
				"%s returned the cursor %q a second time; each page needs a new cursor and the last page none", k.method, next))
			return pages
		}
		seen[next] = true
		cursor = next
	}
}

// sortFindings orders findings by subject, code and pointer, so results
// compare equal across runs.
func sortFindings(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if a.Subject != b.Subject {
			return a.Subject < b.Subject
		}
		if a.Code != b.Code {
			return a.Code < b.Code
		}
		return a.Pointer < b.Pointer
	})
}
