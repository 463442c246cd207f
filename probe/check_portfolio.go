package probe

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/mcpvet/mcpvet/internal/lazyre"
	"github.com/mcpvet/mcpvet/internal/safe"
)

// Finding codes of the portfolio checks, which compare the servers of one
// client config (or one scan) with each other.
const (
	CodePortfolioShadowed = "portfolio/tool_shadowed"
	CodePortfolioCrossRef = "portfolio/cross_server_reference"
)

func init() {
	register(
		CatalogEntry{CodePortfolioShadowed, SeverityWarn,
			"servers one client loads together offer a tool of the same name (or of names that look the same)",
			"rename one tool or drop one server; a client that merges both lists gives the model two tools it cannot tell apart, and one can stand in for the other"},
		CatalogEntry{CodePortfolioCrossRef, SeverityWarn,
			"a server's descriptions or instructions name a tool that another server of the portfolio provides",
			"describe only the server's own tools; text about another server's tools is how cross-server shadowing redirects them"},
	)
	registerWhy(map[string]string{
		CodePortfolioShadowed: "Clients put every server's tools in one list. With two tools of one name the model picks either, and a malicious server can register a trusted server's tool name (or a look-alike of it) to receive its calls. Reported once per group of servers sharing names (in the set of servers one client loads together), listing every server and every shared name.",
		CodePortfolioCrossRef: "Cross-server tool shadowing works by one server's description naming another server's tool and changing how the model calls it (\"when send_email is available, BCC ...\"). A server has no honest need to name tools it does not provide; reported once per pair of servers, with the names and the first span.",
	})
}

// PortfolioServer is one server of a portfolio: its name in the config
// and its probe result.
type PortfolioServer struct {
	Name   string
	Result *Result
}

// PortfolioFinding is a finding about servers of one portfolio: the
// servers sharing tool names, or two servers of which one names the
// other's tools.
type PortfolioFinding struct {
	Code     string   `json:"code"`
	Severity Severity `json:"severity"`
	// Servers are the servers involved, in portfolio order: every server
	// offering the shared names (tool_shadowed), or the two servers of a
	// cross-server reference.
	Servers []string `json:"servers"`
	// Names are the tool names involved, sorted.
	Names []string `json:"names"`
	// Value is the deciding span: for a cross-server reference the text
	// around the first mention, for shadowing the shared names.
	Value   string `json:"value,omitempty"`
	Message string `json:"message"`
	// Configs name the configs (and clients) that load these servers
	// together, when the caller knows them.
	Configs []string `json:"configs,omitempty"`
}

// CheckPortfolio compares the servers that completed the handshake with
// each other, as one client loads them together: tool names several
// servers share (exactly, by look-alike skeleton, or ignoring case), one
// finding per group of servers sharing names, listing every server of the
// group and every shared name; and descriptions or instructions of one
// server that name another server's tools, once per pair. Findings come in
// portfolio order, shadowing first.
func CheckPortfolio(servers []PortfolioServer) []PortfolioFinding {
	type view struct {
		name  string
		tools []string
		own   map[string]bool
		texts []string
	}
	var vs []view
	for _, s := range servers {
		if s.Result == nil || !s.Result.Liveness.HandshakeCompleted {
			continue
		}
		v := view{name: s.Name, own: map[string]bool{}}
		for i, t := range s.Result.Tools {
			tv := viewTool(i, t)
			if tv.name != "" && !v.own[tv.name] {
				v.tools = append(v.tools, tv.name)
				v.own[tv.name] = true
			}
			v.texts = append(v.texts, tv.description)
		}
		for _, p := range s.Result.Prompts {
			v.texts = append(v.texts, p.Description)
		}
		if s.Result.Liveness.Instructions != "" {
			v.texts = append(v.texts, s.Result.Liveness.Instructions)
		}
		vs = append(vs, v)
	}
	var out []PortfolioFinding
	{
		names := make([]string, len(vs))
		tools := make([][]string, len(vs))
		for i, v := range vs {
			names[i], tools[i] = v.name, v.tools
		}
		out = shadowGroups(names, tools)
	}
	patterns := map[string]*regexp.Regexp{}
	mention := func(tool string) *regexp.Regexp {
		re, ok := patterns[tool]
		if !ok {
			re = mentionPattern(tool)
			patterns[tool] = re
		}
		return re
	}
	for i := range vs {
		for j := i + 1; j < len(vs); j++ {
			a, b := vs[i], vs[j]
			var names []string
			first := ""
			for _, dir := range [][2]view{{a, b}, {b, a}} {
				from, to := dir[0], dir[1]
				for _, tool := range to.tools {
					if from.own[tool] || !distinctive(tool) {
						continue
					}
					re := mention(tool)
					for _, text := range from.texts {
						loc := directedMention(re, text)
						if loc == nil {
							loc = variantMention(text, tool)
						}
						if loc != nil {
							names = append(names, from.name+" names "+to.name+"'s "+tool)
							if first == "" {
								first = around(text, loc[0], loc[1], 40)
							}
							break
						}
					}
				}
			}
			if len(names) > 0 {
				slices.Sort(names)
				e := catalog[CodePortfolioCrossRef]
				out = append(out, PortfolioFinding{Code: e.Code, Severity: e.Severity, Servers: []string{a.name, b.name},
					Names: names, Value: safe.Truncate(visible(first), MaxEvidence, safe.Ellipsis),
					Message: safe.Truncate(fmt.Sprintf("descriptions name the other server's tools: %s", strings.Join(names, "; ")), MaxEvidence, safe.Ellipsis)})
			}
		}
	}
	return out
}

// shadowGroups reports the tool names shared by several servers (names
// are the servers, tools their tool names, in portfolio order): names are
// grouped by look-alike skeleton, and the names whose servers are the same
// set make one finding listing every server of the set.
func shadowGroups(names []string, tools [][]string) []PortfolioFinding {
	type group struct {
		servers []int    // indexes into names, ascending
		names   []string // the spellings, sorted
	}
	bySkel := map[string]*group{}
	var order []string
	for i, ts := range tools {
		for _, t := range ts {
			k := strings.ToLower(Skeleton(t))
			g := bySkel[k]
			if g == nil {
				g = &group{}
				bySkel[k] = g
				order = append(order, k)
			}
			if n := len(g.servers); n == 0 || g.servers[n-1] != i {
				g.servers = append(g.servers, i)
			}
			if !slices.Contains(g.names, t) {
				g.names = append(g.names, t)
			}
		}
	}
	// Shared skeletons, merged by their set of servers.
	type merged struct {
		servers     []int
		exact, look []string
	}
	var sets []*merged
	bySet := map[string]*merged{}
	for _, k := range order {
		g := bySkel[k]
		if len(g.servers) < 2 {
			continue
		}
		sk := fmt.Sprint(g.servers)
		m := bySet[sk]
		if m == nil {
			m = &merged{servers: g.servers}
			bySet[sk] = m
			sets = append(sets, m)
		}
		slices.Sort(g.names)
		if len(g.names) == 1 {
			m.exact = append(m.exact, g.names[0])
		} else {
			m.look = append(m.look, strings.Join(g.names, " / "))
		}
	}
	// Groups in portfolio order of their servers.
	slices.SortStableFunc(sets, func(a, b *merged) int { return slices.Compare(a.servers, b.servers) })
	e := catalog[CodePortfolioShadowed]
	var out []PortfolioFinding
	for _, m := range sets {
		slices.Sort(m.exact)
		slices.Sort(m.look)
		servers := make([]string, len(m.servers))
		for i, s := range m.servers {
			servers[i] = names[s]
		}
		who := "both servers offer"
		if len(servers) > 2 {
			who = fmt.Sprintf("%d servers offer", len(servers))
		}
		msg := ""
		if len(m.exact) > 0 {
			msg = fmt.Sprintf("%s %s", who, strings.Join(m.exact, ", "))
		}
		if len(m.look) > 0 {
			if msg != "" {
				msg += "; "
			}
			msg += fmt.Sprintf("names that look the same: %s", strings.Join(m.look, ", "))
		}
		all := append(append([]string{}, m.exact...), m.look...)
		out = append(out, PortfolioFinding{Code: e.Code, Severity: e.Severity, Servers: servers, Names: all,
			Value:   safe.Truncate(visible(strings.Join(all, ", ")), MaxEvidence, safe.Ellipsis),
			Message: safe.Truncate(visible(msg)+"; a client merging their lists cannot tell them apart", MaxEvidence, safe.Ellipsis)})
	}
	return out
}

// distinctive reports whether a tool name is identifier-like enough that
// a mention of it in prose means the tool: it has a separator or an inner
// capital and at least 4 characters. Plain words (search, echo, add) are
// too common to count.
func distinctive(name string) bool {
	if len(name) < 4 {
		return false
	}
	if strings.ContainsAny(name, "_-.") {
		return true
	}
	for i, r := range name {
		if i > 0 && unicode.IsUpper(r) {
			return true
		}
	}
	return false
}

// mentionPattern matches name as a whole identifier.
func mentionPattern(name string) *regexp.Regexp {
	return regexp.MustCompile(`(?:^|[^\w.\-])` + regexp.QuoteMeta(name) + `(?:$|[^\w\-])`)
}

// referenceMarker: words that make a line about another tool an order or
// a sequencing rule rather than a list of names that happen to match.
var referenceMarker = lazyre.New(`(?i)\b(?:tool|tools|call|calling|called|use|using|invoke|invoked|run|after|before|instead|when|whenever|then|first|must|should|always|never|send|forward)\b`)

// directedMention returns the first mention of a tool in text whose line
// also reads as an order or a sequencing rule about it ("run it after
// create_task", "when send_email is called"); a bare list item such as
// "- fill_form: Fill multiple form fields" is a coincidence of names.
func directedMention(re *regexp.Regexp, text string) []int {
	for _, loc := range re.FindAllStringIndex(text, 16) {
		a := strings.LastIndexByte(text[:loc[0]], '\n') + 1
		z := strings.IndexByte(text[loc[1]:], '\n')
		if z < 0 {
			z = len(text)
		} else {
			z += loc[1]
		}
		line := text[a:loc[0]] + " " + text[loc[1]:z]
		if referenceMarker.MatchString(line) {
			return loc
		}
	}
	return nil
}

// identToken: a token of prose that may be an identifier (letters,
// digits and the separators of names).
var identToken = lazyre.New(`[\p{L}\p{N}][\p{L}\p{N}_.\-]*[\p{L}\p{N}]`)

// toolWords are the lower-case words of a tool name split as an
// identifier: send_email, sendEmail and SEND-EMAIL are all "send email".
func toolWords(name string) string {
	return strings.ToLower(strings.Join(strings.Fields(normalize(name, true).text), " "))
}

// variantMention finds a mention of tool in text by a variant of its
// name, on a line that reads as an order about it (directedMention's
// markers): the name in another case or with other separators
// (sendEmail, SEND-EMAIL, send-email), behind a server prefix
// (mail_send_email, mail.send_email, mcp__mail__send_email), with
// look-alike letters (TR39 skeletons), or as a phrase followed by "tool"
// ("the send email tool"). Only names of two words or more are looked
// for: one word is too common in prose.
func variantMention(text, tool string) []int {
	want := toolWords(tool)
	if !strings.Contains(want, " ") {
		return nil
	}
	v := normalize(text, false)
	for _, loc := range identToken.FindAllStringIndex(v.text, 256) {
		tok := v.text[loc[0]:loc[1]]
		words := toolWords(tok)
		name := words == want || strings.HasSuffix(words, " "+want) && strings.ContainsAny(tok, "_.-")
		if name && (strings.ContainsAny(tok, "_.-") || tok != strings.ToLower(tok)) {
			a, b := v.origin(loc[0], loc[1])
			if line := lineAround(text, a, b); referenceMarker.MatchString(line) {
				return []int{a, b}
			}
		}
	}
	lower := strings.ToLower(v.text)
	phrase := regexp.MustCompile(`\b` + regexp.QuoteMeta(want) + `(?:ing)?\s+(?:tool|function)\b`)
	if loc := phrase.FindStringIndex(lower); loc != nil && len(lower) == len(v.text) {
		a, b := v.origin(loc[0], loc[1])
		return []int{a, b}
	}
	return nil
}

// lineAround returns the line of text holding [a, b) without the span.
func lineAround(text string, a, b int) string {
	x := strings.LastIndexByte(text[:a], '\n') + 1
	z := strings.IndexByte(text[b:], '\n')
	if z < 0 {
		z = len(text)
	} else {
		z += b
	}
	return text[x:a] + " " + text[b:z]
}
