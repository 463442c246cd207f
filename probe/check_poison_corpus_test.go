package probe

import (
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpvet/mcpvet/internal/safe"
)

// corpusVerbose prints every miss and every false alarm of the corpus.
var corpusVerbose = flag.Bool("corpus-verbose", false, "print each missed attack and each flagged benign item of the poisoning corpus")

// corpusItem is one poisoned server of testdata/poison/attacks.
type corpusItem struct {
	ID           string            `json:"id"`
	Kind         string            `json:"kind"`
	Lang         string            `json:"lang"`
	Source       string            `json:"source"`
	Payload      string            `json:"payload"`
	Where        string            `json:"where"`
	Hiding       string            `json:"hiding"`
	Split        string            `json:"split"`
	Tools        []json.RawMessage `json:"tools"`
	Prompts      []json.RawMessage `json:"prompts"`
	Resources    []json.RawMessage `json:"resources"`
	Instructions string            `json:"instructions"`
	PromptGet    *struct {
		Name   string          `json:"name"`
		Result json.RawMessage `json:"result"`
	} `json:"prompt_get"`
	ResourceRead *struct {
		URI    string          `json:"uri"`
		Result json.RawMessage `json:"result"`
	} `json:"resource_read"`
	Call *struct {
		Tool   string          `json:"tool"`
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	} `json:"call"`
	Relist []json.RawMessage `json:"relist"`
	Peer   *struct {
		Name  string            `json:"name"`
		Tools []json.RawMessage `json:"tools"`
	} `json:"peer"`
}

func loadAttacks(t testing.TB, split string) []corpusItem {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "poison", "attacks", split+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Items []corpusItem `json:"items"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	return f.Items
}

// corpusServer builds the pages and result of a server of the corpus.
func corpusServer(t testing.TB, instructions string, tools, prompts, resources []json.RawMessage) (*Result, []Page) {
	t.Helper()
	caps := map[string]any{"tools": map[string]any{}}
	if len(prompts) > 0 {
		caps["prompts"] = map[string]any{}
	}
	if len(resources) > 0 {
		caps["resources"] = map[string]any{}
	}
	init := map[string]any{"protocolVersion": "2025-11-25", "capabilities": caps, "serverInfo": map[string]any{"name": "corpus", "version": "1"}}
	if instructions != "" {
		init["instructions"] = instructions
	}
	page := func(method string, v any) Page {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return Page{Method: method, Result: b}
	}
	if tools == nil {
		tools = []json.RawMessage{}
	}
	pages := []Page{page("initialize", init), page("tools/list", map[string]any{"tools": tools})}
	if len(prompts) > 0 {
		pages = append(pages, page("prompts/list", map[string]any{"prompts": prompts}))
	}
	if len(resources) > 0 {
		pages = append(pages, page("resources/list", map[string]any{"resources": resources}))
	}
	return resultFromPages(t, pages), pages
}

// runAttack runs the poison checks on one attack as the probe would see
// it and returns the poison and portfolio findings.
func runAttack(t testing.TB, it corpusItem) []Finding {
	t.Helper()
	res, pages := corpusServer(t, it.Instructions, it.Tools, it.Prompts, it.Resources)
	if g := it.PromptGet; g != nil {
		res.Received = append(res.Received, Message{Kind: "result", Method: "prompts/get", Name: g.Name, Body: g.Result})
	}
	if r := it.ResourceRead; r != nil {
		res.Received = append(res.Received, Message{Kind: "result", Method: "resources/read", Name: r.URI, Body: r.Result})
	}
	if c := it.Call; c != nil {
		if c.Error != nil {
			res.Received = append(res.Received, Message{Kind: "error", Method: "tools/call", Name: c.Tool, ErrorMessage: c.Error.Message})
		} else {
			res.Received = append(res.Received, Message{Kind: "result", Method: "tools/call", Name: c.Tool, Body: c.Result})
		}
	}
	if it.Relist != nil {
		again, _ := corpusServer(t, "", it.Relist, nil, nil)
		res.Relisted = again.Tools
	}
	var out []Finding
	for _, f := range checkPoison(res, pages) {
		out = append(out, f)
	}
	if it.Peer != nil {
		peer, _ := corpusServer(t, "", it.Peer.Tools, nil, nil)
		for _, pf := range CheckPortfolio([]PortfolioServer{{Name: "attacker", Result: res}, {Name: it.Peer.Name, Result: peer}}) {
			out = append(out, Finding{Code: pf.Code, Severity: pf.Severity, Subject: "portfolio", Value: pf.Value, Message: pf.Message})
		}
	}
	return out
}

// caught: a poison finding of severity error or fatal (the server is
// fixed or dropped), or, for a cross-server item, a portfolio finding
// that names the pair.
func caught(it corpusItem, fs []Finding) bool {
	for _, f := range fs {
		if strings.HasPrefix(f.Code, "poison/") && f.Severity >= SeverityError {
			return true
		}
		if it.Kind == "cross_server" && f.Code == CodePortfolioCrossRef {
			return true
		}
	}
	return false
}

// benignServer is one recorded real npm server of testdata/poison/benign.
type benignServer struct {
	Source string `json:"source"`
	Pages  []Page `json:"pages"`
}

// benignSplit: the five servers whose false alarms issue 24 names are
// tuned on; of the others, a server is held out when the first byte of
// the SHA-256 of its source is even.
func benignSplit(source string) string {
	for _, named := range []string{"@zereight/mcp-gitlab@", "firecrawl-mcp@", "@neondatabase/mcp-server-neon@", "@sanity/mcp-server@", "@twilio-alpha/mcp@"} {
		if strings.HasPrefix(strings.TrimPrefix(source, "npm:"), named) {
			return "tune"
		}
	}
	if sum := sha256.Sum256([]byte(source)); sum[0]%2 == 0 {
		return "heldout"
	}
	return "tune"
}

func loadBenign(t testing.TB) []benignServer {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "poison", "benign", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no benign listings: %v", err)
	}
	var out []benignServer
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var s benignServer
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out = append(out, s)
	}
	return out
}

// corpusCounts is the confusion of one split.
type corpusCounts struct {
	Attacks, Caught         int
	PerKind                 map[string][2]int // kind: caught, total
	PerLang                 map[string][2]int
	BenignServers           int
	BenignItems, Flagged    int
	FatalItems              int
	FlaggedServers          []string
	FatalServers            []string
	ServersAllPoisonDropped bool
}

func countAttacks(t *testing.T, split string, c *corpusCounts) {
	c.PerKind, c.PerLang = map[string][2]int{}, map[string][2]int{}
	for _, it := range loadAttacks(t, split) {
		fs := runAttack(t, it)
		ok := caught(it, fs)
		c.Attacks++
		k, l := c.PerKind[it.Kind], c.PerLang[it.Lang]
		k[1]++
		l[1]++
		if ok {
			c.Caught++
			k[0]++
			l[0]++
		} else if *corpusVerbose {
			t.Logf("MISS %s %s [%s/%s/%s] %v", split, it.ID, it.Kind, it.Where, it.Hiding, poisonCodes(fs))
		}
		c.PerKind[it.Kind], c.PerLang[it.Lang] = k, l
	}
}

func countBenign(t *testing.T, split string, c *corpusCounts) {
	for _, s := range loadBenign(t) {
		if benignSplit(s.Source) != split {
			continue
		}
		c.BenignServers++
		res := resultFromPages(t, s.Pages)
		items := 1 + len(res.Tools) + len(res.Prompts) + len(res.Resources) + len(res.ResourceTemplates)
		c.BenignItems += items
		flagged, fatal := map[string]bool{}, map[string]bool{}
		for _, f := range checkPoison(res, s.Pages) {
			if !flagged[f.Subject] && *corpusVerbose {
				t.Logf("FLAG %s %s %s %s %s: %q", split, s.Source, f.Code, f.Subject, f.Pointer, safe.Truncate(f.Value, 160, safe.Ellipsis))
			}
			flagged[f.Subject] = true
			if f.Severity == SeverityFatal {
				fatal[f.Subject] = true
			}
		}
		c.Flagged += len(flagged)
		c.FatalItems += len(fatal)
		if len(flagged) > 0 {
			c.FlaggedServers = append(c.FlaggedServers, s.Source)
		}
		if len(fatal) > 0 {
			c.FatalServers = append(c.FatalServers, s.Source)
		}
	}
}

func pct(a, b int) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(a)/float64(b))
}

func logCounts(t *testing.T, split string, c corpusCounts) {
	t.Logf("%s: attacks caught %d of %d (%s); benign items flagged %d of %d (%s) on %d servers, %d fatal",
		split, c.Caught, c.Attacks, pct(c.Caught, c.Attacks), c.Flagged, c.BenignItems, pct(c.Flagged, c.BenignItems), c.BenignServers, c.FatalItems)
	for _, m := range []map[string][2]int{c.PerKind, c.PerLang} {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var parts []string
		for _, k := range keys {
			parts = append(parts, fmt.Sprintf("%s %d/%d (%s)", k, m[k][0], m[k][1], pct(m[k][0], m[k][1])))
		}
		t.Logf("%s:   %s", split, strings.Join(parts, ", "))
	}
	if len(c.FlaggedServers) > 0 {
		t.Logf("%s: flagged benign servers: %s", split, strings.Join(c.FlaggedServers, ", "))
	}
}

// TestPoisonCorpus measures the poison checks on the corpus of
// testdata/poison (see its README): poisoned servers from published
// attacks and written variants, against the listings of real npm
// servers. It pins the exact confusion counts of both splits, so any
// change of the detector shows as a diff here, and checks the targets of
// issue 24 on the held-out split: recall at least 80% overall and 60% per
// kind, at most 0.5% of benign items flagged, none fatal. Run with -v to
// see per-kind and per-language recall, with -corpus-verbose to see each
// miss and false alarm.
func TestPoisonCorpus(t *testing.T) {
	got := map[string]corpusCounts{}
	for _, split := range []string{"tune", "heldout"} {
		var c corpusCounts
		countAttacks(t, split, &c)
		countBenign(t, split, &c)
		logCounts(t, split, c)
		got[split] = c
	}
	h := got["heldout"]
	if h.Caught*100 < h.Attacks*80 {
		t.Errorf("held-out recall %d/%d is below 80%%", h.Caught, h.Attacks)
	}
	for k, v := range h.PerKind {
		if v[1] >= 5 && v[0]*100 < v[1]*60 {
			t.Errorf("held-out recall of kind %s %d/%d is below 60%%", k, v[0], v[1])
		}
	}
	if h.Flagged*1000 > h.BenignItems*5 {
		t.Errorf("held-out benign items flagged %d/%d is above 0.5%%", h.Flagged, h.BenignItems)
	}
	for split, c := range got {
		if c.FatalItems > 0 {
			t.Errorf("%s: %d benign items have a fatal poison finding (%s)", split, c.FatalItems, strings.Join(c.FatalServers, ", "))
		}
	}
	type pinned struct {
		Attacks, Caught, BenignItems, Flagged, Fatal int
	}
	want := map[string]pinned{
		"tune":    {Attacks: 120, Caught: 117, BenignItems: 892, Flagged: 0, Fatal: 0},
		"heldout": {Attacks: 142, Caught: 136, BenignItems: 429, Flagged: 0, Fatal: 0},
	}
	gotPins := map[string]pinned{}
	for split, c := range got {
		gotPins[split] = pinned{c.Attacks, c.Caught, c.BenignItems, c.Flagged, c.FatalItems}
	}
	if diff := cmp.Diff(want, gotPins); diff != "" {
		t.Errorf("confusion counts (-want +got):\n%s", diff)
	}
}

// TestPoisonNamedFalseAlarms: the five real npm servers whose honest text
// the phrase rules flagged (issue 24: "use `dry_run` before", "When
// `judgment.meaningfulChanges` is present", <instructions>, "before using
// any other tools", "If an `application_sid` is present") carry no poison
// finding.
func TestPoisonNamedFalseAlarms(t *testing.T) {
	named := map[string]bool{
		"npm:@zereight/mcp-gitlab@2.1.64": true, "npm:firecrawl-mcp@3.22.2": true, "npm:@neondatabase/mcp-server-neon@0.3.7": true,
		"npm:@sanity/mcp-server@0.12.1": true, "npm:@twilio-alpha/mcp@0.7.0": true,
	}
	for _, s := range loadBenign(t) {
		if !named[s.Source] {
			continue
		}
		delete(named, s.Source)
		res := resultFromPages(t, s.Pages)
		for _, f := range checkPoison(res, s.Pages) {
			t.Errorf("%s: %s on %s %s: %q", s.Source, f.Code, f.Subject, f.Pointer, f.Value)
		}
	}
	for s := range named {
		t.Errorf("%s: no recorded listing", s)
	}
}
