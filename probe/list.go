package probe

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mcpvet/mcpvet/internal/jsonscan"
)

// limitGrace is how long a timed-out listing waits for the sandbox to
// report a limit that fired meanwhile (its monitor polls every 100 ms).
var limitGrace = 500 * time.Millisecond

// listKind describes one paginated list method.
type listKind struct {
	method     string
	capability string // capability that gates the method
	itemsKey   string // key of the items array in the result
	kind       string // subject kind of an item: tool, prompt, resource, template
	// add adds an item as kept (raw) to res; sent is its size as sent.
	add func(res *Result, raw json.RawMessage, sent int)
}

// sentSize is what an item's SentBytes holds: its size as sent when that
// is more than what was kept, else 0.
func sentSize(raw json.RawMessage, sent int) int {
	if sent > len(raw) {
		return sent
	}
	return 0
}

var listKinds = []listKind{
	{
		method: "tools/list", capability: "tools", itemsKey: "tools", kind: "tool",
		add: func(res *Result, raw json.RawMessage, sent int) {
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
				InputSchema: t.InputSchema, OutputSchema: t.OutputSchema, Annotations: t.Annotations, Raw: raw, SentBytes: sentSize(raw, sent)})
		},
	},
	{
		method: "prompts/list", capability: "prompts", itemsKey: "prompts", kind: "prompt",
		add: func(res *Result, raw json.RawMessage, sent int) {
			var p struct {
				Name        string          `json:"name"`
				Title       string          `json:"title"`
				Description string          `json:"description"`
				Arguments   json.RawMessage `json:"arguments"`
			}
			_ = json.Unmarshal(raw, &p)
			res.Prompts = append(res.Prompts, Prompt{Name: p.Name, Title: p.Title, Description: p.Description, Arguments: p.Arguments, Raw: raw, SentBytes: sentSize(raw, sent)})
		},
	},
	{
		method: "resources/list", capability: "resources", itemsKey: "resources", kind: "resource",
		add: func(res *Result, raw json.RawMessage, sent int) {
			var r struct {
				URI      string `json:"uri"`
				Name     string `json:"name"`
				MIMEType string `json:"mimeType"`
			}
			_ = json.Unmarshal(raw, &r)
			res.Resources = append(res.Resources, Resource{URI: r.URI, Name: r.Name, MIMEType: r.MIMEType, Raw: raw, SentBytes: sentSize(raw, sent)})
		},
	},
	{
		method: "resources/templates/list", capability: "resources", itemsKey: "resourceTemplates", kind: "template",
		add: func(res *Result, raw json.RawMessage, sent int) {
			var r struct {
				URITemplate string `json:"uriTemplate"`
				Name        string `json:"name"`
			}
			_ = json.Unmarshal(raw, &r)
			res.ResourceTemplates = append(res.ResourceTemplates, ResourceTemplate{URITemplate: r.URITemplate, Name: r.Name, Raw: raw, SentBytes: sentSize(raw, sent)})
		},
	},
}

// maxListKeptBytes bounds the raw item bytes kept per list method. It is
// the sandbox's message limit: one page as large as a server may send is
// kept whole, so padding a listing never hides an item from the checks.
const maxListKeptBytes = 16 << 20

// maxExtraMember bounds a member of a list result besides the items and
// nextCursor kept in the page handed to schema validation.
const maxExtraMember = 64 << 10

// listAll lists everything the server declared, page by page, and returns
// the pages for schema validation (with the items that were kept).
func listAll(ctx context.Context, s *session, res *Result, o Options) []Page {
	caps := map[string]json.RawMessage{}
	_ = json.Unmarshal(res.Liveness.Capabilities, &caps)
	var pages []Page
	for _, k := range listKinds {
		if c, ok := caps[k.capability]; !ok || string(c) == "null" {
			continue
		}
		ps, ok := listOne(ctx, s, res, o, k)
		pages = append(pages, ps...)
		if !ok || ctx.Err() != nil {
			break
		}
	}
	return pages
}

// listState is what one list method kept and counted across its pages.
type listState struct {
	items, kept, keptBytes int
	truncated              bool // items were dropped for the byte bound
	cut                    []cutItem
}

// cutItem is a kept item some of whose members [capItem] cut.
type cutItem struct {
	subject string
	cuts    []fieldCut
}

// listOne follows the pages of one list method. Pages are requested as raw
// calls, so the SDK never decodes a listing into typed values (a 16 MiB
// page of 300,000 tools would cost hundreds of MB), and each page is
// streamed: every item is counted, the first MaxItems (within
// maxListKeptBytes) are kept. It reports false when the server is gone.
func listOne(ctx context.Context, s *session, res *Result, o Options, k listKind) ([]Page, bool) {
	var pages []Page
	seen := map[string]bool{}
	cursor := ""
	st := &listState{}
	defer func() {
		if st.items > st.kept && st.kept >= o.MaxItems {
			res.Findings = append(res.Findings, NewFinding(CodePageCap, "server", k.method, fmt.Sprint(st.items),
				"%s returned %d items; the scanner kept and checked the first %d", k.method, st.items, st.kept))
		}
		if st.truncated {
			res.Findings = append(res.Findings, NewFinding(CodeListTruncated, "server", k.method, fmt.Sprint(st.items),
				"%s returned %d items in more than %d bytes; the scanner kept the first %d and judges the server as if the rest were broken",
				k.method, st.items, maxListKeptBytes, st.kept))
		}
		for _, c := range st.cut {
			for _, f := range c.cuts {
				res.Findings = append(res.Findings, NewFinding(CodeItemTruncated, c.subject, "/"+f.member, fmt.Sprint(f.sent),
					"%s's %s is %d bytes of JSON; the scanner kept at most %d and judges the rest as broken (no agent can use it: a client loads all of it into the model's context)",
					c.subject, f.member, f.sent, MaxItemField))
			}
		}
	}()
	for page := 0; ; page++ {
		if page >= o.MaxPages {
			res.Findings = append(res.Findings, NewFinding(CodePageCap, "server", k.method, fmt.Sprint(page),
				"%s still returned a nextCursor after %d pages; the scanner stopped there", k.method, page))
			return pages, true
		}
		conn := s.rec.currentConn()
		if conn == nil || conn.isDead() {
			noteDeath(res, o, k.method, k.method)
			return pages, false
		}
		params := json.RawMessage(`{}`)
		if cursor != "" {
			params, _ = json.Marshal(map[string]string{"cursor": cursor})
		}
		if p, err := conn.withMeta(params, res.Liveness.ProtocolVersion); err == nil {
			params = p
		}
		cctx, cancel := context.WithTimeout(ctx, o.CallTimeout)
		result, werr, err := conn.rawCall(cctx, k.method, params)
		timedOut := cctx.Err() != nil
		cancel()
		switch {
		case err != nil && ctx.Err() != nil:
			return pages, true
		case err != nil && timedOut:
			// A limit the sandbox enforced while the listing was in
			// flight is what ended it, even when the call timed out
			// first (a slowly growing allocation): the limit, not a
			// timeout (issue 22 item 10).
			if o.Process != nil {
				if pi := o.Process(limitGrace); pi.LimitExceeded != "" {
					noteDeath(res, o, k.method, k.method)
					return pages, false
				}
			}
			res.Findings = append(res.Findings, NewFinding(CodeListTimeout, "server", k.method, "",
				"%s got no answer within %s", k.method, o.CallTimeout))
			return pages, true
		case err != nil:
			// No answer and the connection is gone: the server died on
			// this (valid) request.
			noteDeath(res, o, k.method, k.method)
			return pages, false
		case werr != nil:
			res.Findings = append(res.Findings, NewFinding(CodeListFailed, "server", k.method, werr.Message,
				"%s failed with JSON-RPC error %d although the server declared the %q capability; answer it or stop declaring it",
				k.method, werr.Code, k.capability))
			return pages, true
		}
		before := listedCount(res, k.method)
		pg, next, ok := scanPage(result, k, res, o, st)
		if !ok {
			pages = append(pages, Page{Method: k.method, Result: result})
			res.Findings = append(res.Findings, NewFinding(CodeMalformedResult, "server", k.method, string(result),
				"%s must return an object with a %q array", k.method, k.itemsKey))
			return pages, true
		}
		pages = append(pages, Page{Method: k.method, Result: pg})
		if next == nil {
			return pages, true
		}
		var nc string
		if json.Unmarshal(next, &nc) != nil {
			res.Findings = append(res.Findings, NewFinding(CodeMalformedResult, "server", k.method+"/nextCursor", string(next),
				"nextCursor must be a string"))
			return pages, true
		}
		if nc == "" {
			return pages, true
		}
		if seen[nc] || nc == cursor {
			// The page that repeats a cursor typically repeats the items of
			// the page it came from too: one defect, one finding. Its items
			// already listed are dropped, so the name checks do not report
			// them again as duplicates.
			dropped := dropRepeated(res, k.method, before)
			msg := "%s returned the cursor %q a second time; each page needs a new cursor and the last page none"
			if dropped > 0 {
				msg += fmt.Sprintf(" (the repeating page listed %d items again; they are counted once)", dropped)
			}
			res.Findings = append(res.Findings, NewFinding(CodeCursorLoop, "server", k.method+"/nextCursor", nc, msg, k.method, nc))
			return pages, true
		}
		seen[nc] = true
		cursor = nc
	}
}

// scanPage streams one list result: it counts every item, adds the ones
// within the caps to res, and returns the page to validate (the result
// itself when everything was kept, else the same object with the kept
// items only and small extra members) and the raw nextCursor (nil when
// absent or null). ok is false when the result is not an object with an
// items array.
func scanPage(result json.RawMessage, k listKind, res *Result, o Options, st *listState) (page json.RawMessage, next json.RawMessage, ok bool) {
	// The page is walked in place (jsonscan): a 16 MiB page is not copied
	// into a decoder's buffer, and an item is copied only when kept
	// (issue 22 item 9). json.Valid allocates nothing.
	if !json.Valid(result) {
		return nil, nil, false
	}
	var kept []json.RawMessage
	extra := map[string]json.RawMessage{}
	reduced, sawItems, bad := false, false, false
	err := jsonscan.Members(result, func(key string, v []byte) bool {
		if key != k.itemsKey || sawItems {
			switch {
			case key == "nextCursor":
				if string(v) != "null" {
					next = bytes.Clone(v)
				}
				extra[key] = bytes.Clone(v)
			case key == k.itemsKey: // a repeated key: ignored, as JSON decoders disagree on it
				reduced = true
			case len(v) <= maxExtraMember:
				extra[key] = bytes.Clone(v)
			default:
				reduced = true
			}
			return true
		}
		sawItems = true
		if string(v) == "null" {
			return true // no items
		}
		err := jsonscan.Elements(v, func(raw []byte) bool {
			st.items++
			sent := len(raw)
			var cuts []fieldCut
			if st.kept < o.MaxItems {
				raw, cuts = capItem(raw)
			}
			switch {
			case st.kept >= o.MaxItems:
				reduced = true
			case st.keptBytes+len(raw) > maxListKeptBytes:
				st.truncated, reduced = true, true
			default:
				if cuts != nil {
					reduced = true
					st.cut = append(st.cut, cutItem{subject: itemSubject(raw, k, st.items-1), cuts: cuts})
				} else {
					raw = bytes.Clone(raw)
				}
				k.add(res, raw, sent)
				kept = append(kept, raw)
				st.kept++
				st.keptBytes += len(raw)
			}
			return true
		})
		bad = err != nil
		return !bad
	})
	if err != nil || bad || !sawItems {
		return nil, nil, false
	}
	if !reduced {
		return result, next, true
	}
	items, _ := json.Marshal(kept)
	extra[k.itemsKey] = items
	page, _ = json.Marshal(extra)
	return page, next, true
}

// itemSubject names a listed item in findings (tool:NAME, resource:URI,
// or kind:#INDEX without a name).
func itemSubject(raw json.RawMessage, k listKind, index int) string {
	var id struct {
		Name        string `json:"name"`
		URI         string `json:"uri"`
		URITemplate string `json:"uriTemplate"`
	}
	_ = json.Unmarshal(raw, &id)
	switch k.kind {
	case "resource":
		return subjectOf(k.kind, id.URI, index)
	case "template":
		return subjectOf(k.kind, id.URITemplate, index)
	}
	return subjectOf(k.kind, id.Name, index)
}

// listedCount is how many items of the list method res holds.
func listedCount(res *Result, method string) int {
	switch method {
	case "tools/list":
		return len(res.Tools)
	case "prompts/list":
		return len(res.Prompts)
	case "resources/list":
		return len(res.Resources)
	case "resources/templates/list":
		return len(res.ResourceTemplates)
	}
	return 0
}

// dropRepeated removes the items of the list method added from index from
// on whose identity (name, or URI for resources) an earlier item already
// has, and returns how many it removed.
func dropRepeated(res *Result, method string, from int) int {
	switch method {
	case "tools/list":
		return dropRepeatedOf(&res.Tools, from, func(t Tool) string { return t.Name })
	case "prompts/list":
		return dropRepeatedOf(&res.Prompts, from, func(p Prompt) string { return p.Name })
	case "resources/list":
		return dropRepeatedOf(&res.Resources, from, func(r Resource) string { return r.URI })
	case "resources/templates/list":
		return dropRepeatedOf(&res.ResourceTemplates, from, func(r ResourceTemplate) string { return r.URITemplate })
	}
	return 0
}

func dropRepeatedOf[T any](items *[]T, from int, id func(T) string) int {
	all := *items
	if from < 0 || from > len(all) {
		return 0
	}
	earlier := map[string]bool{}
	for _, it := range all[:from] {
		earlier[id(it)] = true
	}
	kept := all[:from]
	for _, it := range all[from:] {
		if !earlier[id(it)] {
			kept = append(kept, it)
		}
	}
	*items = kept
	return len(all) - len(kept)
}
