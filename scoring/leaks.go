package scoring

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpvet/mcpvet/internal/canary"
	"github.com/mcpvet/mcpvet/internal/safe"
	"github.com/mcpvet/mcpvet/probe"
)

// LeakKind names what an error response leaked.
type LeakKind string

// Leak kinds, from worst to mildest.
const (
	// LeakSecret: the canary value of a declared secret environment variable.
	LeakSecret LeakKind = "secret"
	// LeakCredential: a token in a well-known credential format (sk-...,
	// ghp_..., AKIA..., a JWT, a bearer token, a private key).
	LeakCredential LeakKind = "credential"
	// LeakConnectionString: a database or broker URL, a URL with a password,
	// or an ADO-style string with Password=.
	LeakConnectionString LeakKind = "connection_string"
	// LeakInternalHost: a private address, localhost:PORT, or a *.internal,
	// *.local, *.corp, *.lan host name.
	LeakInternalHost LeakKind = "internal_host"
	// LeakStackTrace: stack frames (Node, Python, Go, Java, .NET, Ruby).
	LeakStackTrace LeakKind = "stack_trace"
	// LeakHostPath: an absolute path on the server's host that the caller
	// did not send and the scanner did not give the server.
	LeakHostPath LeakKind = "host_path"
)

// Leak is one leak found in a response. Evidence never repeats a secret or
// credential: it names the variable or the format and keeps at most four
// characters.
type Leak struct {
	Kind LeakKind `json:"kind"`
	// Where is the segment and byte range: "text[10:42]".
	Where    string `json:"where"`
	Evidence string `json:"evidence"`
}

// maxScanBytes bounds the text the pattern-based leak detectors read; the
// canary search always reads everything.
const maxScanBytes = 64 << 10

var (
	// reStack are stack-frame shapes, each guarded by literals it needs.
	reStack = []guarded{
		guardFunc(`\bat (?:async )?[\w$.<>\[\]]+ \((?:file://)?[^\s()]+:\d+:\d+\)`, hasLineCol),
		guardFunc(`\bat (?:file://)?(?:/|[A-Za-z]:\\)[^\s:()]+\.(?:js|mjs|cjs|ts|jsx|tsx):\d+:\d+`, hasLineCol),
		guard(`Traceback \(most recent call last\)`, "Traceback"),
		guard(`File "[^"]+", line \d+`, "File \""),
		guard(`goroutine \d+ \[|\.go:\d+ \+0x[0-9a-f]+`, "goroutine ", ".go:"),
		guard(`\bat [\w$]+(?:\.[\w$<>]+)+\([\w$]+\.(?:java|kt|scala):\d+\)`, ".java:", ".kt:", ".scala:"),
		guard(`\bat [\w.<>]+\([^)]*\) in [^\n]+:line \d+`, ":line "),
		guard(`\.rb:\d+:in `+"`", ".rb:"),
	}
	reHostPath = guard(`(?:^|[\s'"(=,\[{<]|file://)((?:/(?:home|Users|root|var|usr|opt|etc|srv|app|tmp|private|mnt|workspace|workspaces|build|builds|runner|data|code|src|lib|proc|snap|nix|Volumes|Library|System))(?:/[^\s'"():,\]}>]+)+)|\b([A-Za-z]:\\\\?(?:[^\\\s'"<>|]+\\\\?)+[^\\\s'"<>|]*)`,
		"/home/", "/Users/", "/root/", "/var/", "/usr/", "/opt/", "/etc/", "/srv/", "/app/", "/tmp/", "/private/",
		"/mnt/", "/workspace", "/build", "/runner/", "/data/", "/code/", "/src/", "/lib/", "/proc/", "/snap/", "/nix/",
		"/Volumes/", "/Library/", "/System/", ":\\")
	reConnStr = []guarded{
		guard(`\b(?:postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|rediss?|amqps?|mssql|sqlserver|clickhouse|cockroachdb|neo4j|bolt|nats|kafka)://[^\s'"<>]+`,
			"postgres", "mysql", "mariadb", "mongodb", "redis", "amqp", "mssql", "sqlserver", "clickhouse", "cockroachdb", "neo4j", "bolt:", "nats:", "kafka:"),
		guard(`\bjdbc:[a-z0-9]+:[^\s'"<>]+`, "jdbc:"),
		guard(`(?i:\b(?:server|data source|host)\s*=\s*[^;]+;[^\n'"]*\b(?:password|pwd)\s*=)`, "assword", "ASSWORD", "pwd", "PWD", "Pwd"),
		guard(`\b[a-z][a-z0-9+.-]*://[^\s:/@'"]+:[^\s@/'"]+@[^\s'"]+`, "@"),
	}
	// reInternal runs on lowercased text.
	reInternal = []guarded{
		guard(`\b(?:10\.\d{1,3}\.\d{1,3}\.\d{1,3}|192\.168\.\d{1,3}\.\d{1,3}|172\.(?:1[6-9]|2\d|3[01])\.\d{1,3}\.\d{1,3}|127\.\d{1,3}\.\d{1,3}\.\d{1,3}|169\.254\.\d{1,3}\.\d{1,3})(?::\d+)?\b`,
			"10.", "192.168.", "172.", "127.", "169.254."),
		guard(`\blocalhost:\d+\b|\[::1\]:\d+`, "localhost:", "[::1]:"),
		guard(`\b[a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:internal|corp|lan|intranet|cluster\.local|svc\.cluster\.local)\b|\b[a-z0-9-]+\.local(?::\d+)?\b`,
			".internal", ".corp", ".lan", ".intranet", ".local"),
	}
	// reCred are credential formats, each guarded by its literal prefix.
	reCred = []guarded{
		guard(`\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{20,}`, "sk-"),
		guard(`\bghp_[A-Za-z0-9]{30,}|\bgithub_pat_[A-Za-z0-9_]{22,}|\bgh[osu]_[A-Za-z0-9]{30,}`, "ghp_", "github_pat_", "gho_", "ghs_", "ghu_"),
		guard(`\bAKIA[0-9A-Z]{16}\b`, "AKIA"),
		guard(`\bxox[abpr]-[A-Za-z0-9-]{10,}`, "xox"),
		guard(`\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}`, "eyJ"),
		guard(`(?i:\bbearer\s+[A-Za-z0-9._~+/-]{20,}=*)`, "earer ", "EARER "),
		guard(`-----BEGIN [A-Z ]*PRIVATE KEY-----`, "-----BEGIN "),
		guard(`\bAIza[0-9A-Za-z_-]{35}\b`, "AIza"),
		guard(`\bglpat-[A-Za-z0-9_-]{20,}`, "glpat-"),
		guard(`\b[sr]k_(?:live|test)_[A-Za-z0-9]{16,}`, "k_live_", "k_test_"),
	}
)

// ScanLeaks scans one model-visible string (an error, a tool result, a
// description) for leaks. label names the string in the evidence. Paths
// under c.PublicPaths are not leaks.
func ScanLeaks(label, text string, c *Context) []Leak {
	if c == nil {
		c = &Context{}
	}
	return scanLeaks(segment{label: label, s: text, lower: asciiLower(text)}, c, "")
}

// scanLeaks finds leaks in seg; anything contained in echo (the raw value
// the caller sent) is an echo, not a leak.
func scanLeaks(seg segment, c *Context, echo string) []Leak {
	x := &leakScan{seg: seg, echo: echo}
	x.canaries(c.Canaries)
	s := seg.s
	if len(s) > maxScanBytes {
		s = s[:maxScanBytes]
	}
	if len(seg.lower) != len(seg.s) {
		seg.lower = asciiLower(seg.s)
	}
	x.s, x.lower = s, seg.lower[:len(s)]
	x.hl = seg.hints // the mask of seg.lower, when the input computed it
	if !seg.hinted || len(s) != len(seg.s) {
		x.hl = hintMask(x.lower)
	}
	x.hs = x.hl
	if s != x.lower {
		x.hs = hintMask(s)
	}
	x.credentials()
	x.connectionStrings()
	x.internalHosts()
	x.stackTrace()
	x.hostPath(c.PublicPaths)
	return x.out
}

// leakScan is one run of [scanLeaks]: the text, its lowercase form and
// their hint masks (bounded to maxScanBytes; canaries are searched in all
// of seg), and the leaks found so far.
type leakScan struct {
	seg       segment
	echo      string
	s, lower  string
	hs, hl    uint64
	out       []Leak
	connSpans [][]int // connection strings found, which hide what they contain
}

func (x *leakScan) add(k LeakKind, i, j int, ev string) {
	x.out = append(x.out, Leak{Kind: k, Where: fmt.Sprintf("%s[%d:%d]", x.seg.label, i, j), Evidence: ev})
}

// echoed reports whether m is part of the value the caller sent.
func (x *leakScan) echoed(m string) bool { return x.echo != "" && strings.Contains(x.echo, m) }

// canaries finds the canary values (6 bytes or longer) anywhere in the
// text, past maxScanBytes too.
func (x *leakScan) canaries(canaries map[string]string) {
	for _, name := range slices.Sorted(maps.Keys(canaries)) {
		v := canaries[name]
		if len(v) < 6 {
			continue
		}
		if i := strings.Index(x.seg.s, v); i >= 0 {
			x.add(LeakSecret, i, i+len(v), "canary value of "+name)
		}
	}
}

func (x *leakScan) credentials() {
	for _, g := range reCred {
		if !g.hit(x.s, x.hs) {
			continue
		}
		for _, loc := range g.re.FindAllStringIndex(x.s, 4) {
			if x.echoed(x.s[loc[0]:loc[1]]) {
				continue
			}
			x.add(LeakCredential, loc[0], loc[1], "credential-shaped token "+redact(x.s[loc[0]:loc[1]]))
		}
	}
}

func (x *leakScan) connectionStrings() {
	for _, g := range reConnStr {
		if !g.hit(x.s, x.hs) {
			continue
		}
		for _, loc := range g.re.FindAllStringIndex(x.s, 4) {
			m := x.s[loc[0]:loc[1]]
			if inRanges(loc, x.connSpans) || x.echoed(m) {
				continue
			}
			x.connSpans = append(x.connSpans, loc)
			x.add(LeakConnectionString, loc[0], loc[1], "connection string "+redactURL(m))
		}
	}
}

func (x *leakScan) internalHosts() {
	for _, g := range reInternal {
		if !g.hit(x.lower, x.hl) {
			continue
		}
		for _, loc := range g.re.FindAllStringIndex(x.lower, 4) {
			if inRanges(loc, x.connSpans) {
				continue
			}
			m := x.s[loc[0]:loc[1]]
			if x.echoed(m) {
				continue
			}
			x.add(LeakInternalHost, loc[0], loc[1], "internal host "+m)
		}
	}
}

// stackTrace reports the first stack frame, of the first kind found.
func (x *leakScan) stackTrace() {
	for _, g := range reStack {
		if !g.hit(x.s, x.hs) {
			continue
		}
		if loc := g.re.FindStringIndex(x.s); loc != nil {
			x.add(LeakStackTrace, loc[0], loc[1], "stack frame "+fmt.Sprintf("%q", safe.Truncate(x.s[loc[0]:loc[1]], 100, safe.Ellipsis)))
			return
		}
	}
}

// hostPath reports the first host path outside the public paths that is
// not part of a connection string or the echo.
func (x *leakScan) hostPath(public []string) {
	if !reHostPath.hit(x.s, x.hs) {
		return
	}
	for _, m := range reHostPath.re.FindAllStringSubmatchIndex(x.s, 8) {
		i, j := m[2], m[3]
		if i < 0 {
			i, j = m[4], m[5]
		}
		p := strings.TrimRight(x.s[i:j], ".")
		j = i + len(p)
		if inRanges([]int{i, j}, x.connSpans) || isPublicPath(p, public) || x.echoed(p) {
			continue
		}
		x.add(LeakHostPath, i, j, "host path "+fmt.Sprintf("%q", safe.Truncate(p, 100, safe.Ellipsis)))
		return
	}
}

// hasLineCol reports whether s holds ":<digits>:<digits>", the line and
// column of a JavaScript stack frame.
func hasLineCol(s string) bool {
	for i := strings.IndexByte(s, ':'); i >= 0; {
		j := i + 1
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j > i+1 && j+1 < len(s) && s[j] == ':' && s[j+1] >= '0' && s[j+1] <= '9' {
			return true
		}
		k := strings.IndexByte(s[i+1:], ':')
		if k < 0 {
			return false
		}
		i += 1 + k
	}
	return false
}

func inRanges(loc []int, ranges [][]int) bool {
	return slices.ContainsFunc(ranges, func(r []int) bool { return loc[0] >= r[0] && loc[1] <= r[1] })
}

// isPublicPath reports whether p is one of the public paths or below one.
func isPublicPath(p string, public []string) bool {
	for _, pub := range public {
		pub = strings.TrimRight(pub, "/")
		if pub == "" {
			continue
		}
		if p == pub || strings.HasPrefix(p, pub+"/") {
			return true
		}
	}
	return false
}

// redact keeps the first four characters of a credential.
func redact(s string) string {
	if len(s) <= 4 {
		return "…"
	}
	return s[:4] + "…"
}

// redactURL drops the password of scheme://user:password@host.
func redactURL(s string) string {
	if i := strings.Index(s, "://"); i >= 0 {
		rest := s[i+3:]
		if at := strings.IndexByte(rest, '@'); at >= 0 {
			if colon := strings.IndexByte(rest[:at], ':'); colon >= 0 {
				s = s[:i+3] + rest[:colon] + ":***" + rest[at:]
			}
		}
	}
	return fmt.Sprintf("%q", safe.Truncate(s, 100, safe.Ellipsis))
}

// echoes joins everything the caller sent, so a leak detector can tell an
// echo from a leak: the invalid value and every string in the params,
// decoded, and both again as the JSON text that was sent. A server that
// echoes its arguments as JSON (`invalid arguments {"path":"C:\\Users\\…"}`)
// repeats the escaped form, which no decoded string contains.
func (in *input) echoes() string {
	var b strings.Builder
	b.WriteString(in.sent)
	if len(in.r.Arguments) > 0 {
		var v any
		if json.Unmarshal(in.r.Arguments, &v) == nil {
			collectStrings(&b, v, 0)
		}
	}
	for _, raw := range [][]byte{in.r.Sent, in.r.Arguments} {
		b.WriteByte('\n')
		b.Write(raw[:min(len(raw), maxScanBytes)])
	}
	return b.String()
}

func collectStrings(b *strings.Builder, v any, depth int) {
	if depth > 8 || b.Len() > maxScanBytes {
		return
	}
	switch x := v.(type) {
	case string:
		b.WriteByte('\n')
		b.WriteString(x)
	case map[string]any:
		for k, e := range x {
			b.WriteByte('\n')
			b.WriteString(k)
			collectStrings(b, e, depth+1)
		}
	case []any:
		for _, e := range x {
			collectStrings(b, e, depth+1)
		}
	}
}

func gradeNoLeak(in *input) (bool, string, []Leak) {
	echo := in.echoes()
	var leaks []Leak
	for _, seg := range in.raw {
		leaks = append(leaks, scanLeaks(seg, in.c, echo)...)
	}
	if len(leaks) == 0 {
		return true, "no stack trace, host path, connection string, internal host, credential or canary", nil
	}
	ev := make([]string, 0, len(leaks))
	for _, l := range leaks {
		ev = append(ev, fmt.Sprintf("%s at %s: %s", l.Kind, l.Where, l.Evidence))
	}
	return false, strings.Join(ev, "; "), leaks
}

// needle is one searched form of a canary.
type needle struct {
	text string
	name string // the canary's variable
	enc  string // "", "hex", "base64", "base64url"
}

// canaryNeedles returns every searched form of every canary (see
// [canary.Needles]), and the searcher that decodes layers and normalises
// text ([canary.Finder]) for what no listed form covers.
func canaryNeedles(canaries map[string]string) needles {
	out := needles{finder: canary.NewFinder(canaries)}
	for _, n := range canary.Needles(canaries) {
		out.list = append(out.list, needle{n.Text, n.Name, n.Enc})
	}
	return out
}

// needles are the listed forms of the canaries and the layered search.
type needles struct {
	list   []needle
	finder *canary.Finder
}

// A strand is one server-controlled string of a message: a string value or
// an object key, with its channel (the path that names where it was).
type strand struct {
	channel string
	// group is the channel with array indices removed ("tools[*].description"),
	// so strings of the same field across items can be joined.
	group string
	s     string
}

// maxWalkDepth bounds the nesting the message walker follows.
const maxWalkDepth = 64

// walkJSON appends the strings of raw (values and keys, in document order,
// with JSON escapes decoded) to out. Top-level arrays of a list result are
// indexed from offset[key], which is advanced, so items of later pages get
// their position in the whole list.
func walkJSON(raw []byte, prefix string, offset map[string]int, out []strand) []strand {
	if len(raw) == 0 {
		return out
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	var walk func(path, group string, depth int) bool
	walk = func(path, group string, depth int) bool {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		switch t := tok.(type) {
		case string:
			out = append(out, strand{channel: path, group: group, s: t})
		case json.Delim:
			if depth > maxWalkDepth {
				return false
			}
			switch t {
			case '{':
				for dec.More() {
					kt, err := dec.Token()
					if err != nil {
						return false
					}
					k, _ := kt.(string)
					p, g := joinPath(path, k), joinPath(group, k)
					out = append(out, strand{channel: p + " (key)", group: g + " (key)", s: k})
					if !walk(p, g, depth+1) {
						return false
					}
				}
			case '[':
				base := 0
				if depth == 1 && offset != nil {
					base = offset[path]
				}
				i := 0
				for ; dec.More(); i++ {
					if !walk(fmt.Sprintf("%s[%d]", path, base+i), group+"[*]", depth+1) {
						return false
					}
				}
				if depth == 1 && offset != nil {
					offset[path] = base + i
				}
			}
			if _, err := dec.Token(); err != nil { // the closing delimiter
				return false
			}
		}
		return true
	}
	walk(prefix, prefix, 0)
	return out
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	if strings.HasSuffix(path, " ") {
		return path + key
	}
	return path + "." + key
}

// listMethods are the results whose channels are named from the list
// itself ("tools[3].description"); the handshake's are named from the
// result ("serverInfo.name", "instructions").
var listMethods = map[string]bool{
	"initialize": true, "server/discover": true, "tools/list": true, "prompts/list": true,
	"resources/list": true, "resources/templates/list": true,
}

// messageStrands returns the strands of one message with their channels.
func messageStrands(m probe.Message, offsets map[string]map[string]int) []strand {
	var prefix string
	switch {
	case m.Kind == "result" && listMethods[m.Method]:
	case m.Kind == "notification" || m.Kind == "request":
		prefix = m.Method + " "
	default:
		prefix = m.Method
		if prefix == "" {
			prefix = "response"
		}
		if m.Name != "" {
			prefix += "(" + m.Name + ")"
		}
		prefix += " "
	}
	var out []strand
	if m.Kind == "error" {
		out = append(out, strand{channel: prefix + "error.message", group: prefix + "error.message", s: m.ErrorMessage})
		return walkJSON(m.ErrorData, prefix+"error.data", nil, out)
	}
	var off map[string]int
	if listMethods[m.Method] {
		var p struct {
			Cursor *string `json:"cursor"`
		}
		if json.Unmarshal(m.Params, &p) != nil || p.Cursor == nil {
			// A listing from its first page again: positions restart.
			offsets[m.Method] = nil
		}
		if offsets[m.Method] == nil {
			offsets[m.Method] = map[string]int{}
		}
		off = offsets[m.Method]
	}
	return walkJSON(m.Body, prefix, off, out)
}

// subjectOfMessage is the finding subject a leak in m belongs to.
func subjectOfMessage(m probe.Message) string {
	switch {
	case m.Name == "" || m.Kind == "notification" || m.Kind == "request":
		return "server"
	case m.Method == "tools/call":
		return "tool:" + m.Name
	case m.Method == "prompts/get":
		return "prompt:" + m.Name
	case strings.HasPrefix(m.Method, "resources/"):
		return "resource:" + m.Name
	}
	return "server"
}

// canaryHit is one canary found in one channel.
type canaryHit struct {
	name, channel, enc string
}

// searchStrands finds every needle in the strands: in each string and in
// its decoded forms (JSON escapes left inside a string, percent-encoding,
// line-wrapped encodings), and in the concatenation of adjacent strings
// (in document order, and of the same field across items), so a canary
// split over two strings is found too.
func searchStrands(strands []strand, ns needles, hit func(canaryHit)) {
	needles := ns.list
	if len(needles) == 0 || len(strands) == 0 {
		return
	}
	for _, st := range strands {
		for _, v := range decodedForms(st.s) {
			for _, n := range needles {
				if strings.Contains(v.s, n.text) {
					hit(canaryHit{n.name, st.channel, joinEnc(v.enc, n.enc)})
				}
			}
		}
		// Every other layer (issue 22 item 8): compressed, base32/85,
		// reversed, ROT13, interleaved, XORed ...
		for _, h := range ns.finder.Find(st.s) {
			hit(canaryHit{h.Name, st.channel, h.Enc})
		}
	}
	searchJoined(strands, ns, hit)
	groups := map[string][]strand{}
	var order []string
	for _, st := range strands {
		if _, ok := groups[st.group]; !ok {
			order = append(order, st.group)
		}
		groups[st.group] = append(groups[st.group], st)
	}
	for _, g := range order {
		if len(groups[g]) > 1 && len(groups[g]) < len(strands) {
			searchJoined(groups[g], ns, hit)
		}
	}
}

// searchJoined searches the concatenation of strands for needles that
// span more than one of them (those within one were found already).
//
// It also finds a canary cut in pieces with text between them
// ("part1=…", "part2=…", "a|b|c"; [canary.Finder.FindPieces]), within
// one string or across them.
func searchJoined(strands []strand, ns needles, hit func(canaryHit)) {
	needles := ns.list
	var b strings.Builder
	ends := make([]int, len(strands))
	for i, st := range strands {
		b.WriteString(st.s)
		ends[i] = b.Len()
	}
	joined := b.String()
	at := func(off int) int {
		i, _ := slices.BinarySearch(ends, off+1)
		return i
	}
	for _, n := range needles {
		for from := 0; from < len(joined); {
			i := strings.Index(joined[from:], n.text)
			if i < 0 {
				break
			}
			i += from
			first, last := at(i), at(i+len(n.text)-1)
			if first != last {
				hit(canaryHit{n.name, strands[first].channel + " + " + strands[last].channel, joinEnc("split", n.enc)})
			}
			from = i + 1
		}
	}
	if len(strands) > 0 {
		ch := strands[0].channel
		if len(strands) > 1 {
			ch += " + " + strands[len(strands)-1].channel
		}
		for _, h := range ns.finder.FindPieces(strings.Join(strandTexts(strands), "\n")) {
			hit(canaryHit{h.Name, ch, h.Enc})
		}
	}
}

// strandTexts returns the strings of strands.
func strandTexts(strands []strand) []string {
	out := make([]string, len(strands))
	for i, st := range strands {
		out[i] = st.s
	}
	return out
}

func joinEnc(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + ", " + b
}

type form struct{ s, enc string }

// decodedForms returns s and the forms a canary could hide in: JSON escapes
// inside the string (JSON encoded twice), percent-encoding, and the string
// without line breaks and spaces (wrapped base64 or hex).
func decodedForms(s string) []form {
	out := []form{{s, ""}}
	if strings.IndexByte(s, '\\') >= 0 {
		if u, ok := unescapeJSON(s); ok {
			out = append(out, form{u, "JSON escapes"})
		}
	}
	if strings.IndexByte(s, '%') >= 0 {
		if u, ok := unescapePercent(s); ok {
			out = append(out, form{u, "percent-encoded"})
		}
	}
	if len(s) >= 16 && strings.ContainsAny(s, "\n\r\t ") {
		out = append(out, form{strings.Map(func(r rune) rune {
			if r == '\n' || r == '\r' || r == '\t' || r == ' ' {
				return -1
			}
			return r
		}, s), "wrapped"})
	}
	return out
}

// unescapeJSON decodes the JSON string escapes in s, leniently: invalid
// escapes stay as they are.
func unescapeJSON(s string) (string, bool) {
	var b strings.Builder
	changed := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		switch e := s[i+1]; e {
		case '"', '\\', '/':
			b.WriteByte(e)
			i++
			changed = true
		case 'n', 't', 'r', 'b', 'f':
			b.WriteByte(map[byte]byte{'n': '\n', 't': '\t', 'r': '\r', 'b': '\b', 'f': '\f'}[e])
			i++
			changed = true
		case 'u':
			if i+6 <= len(s) {
				if v, err := strconv.ParseUint(s[i+2:i+6], 16, 16); err == nil {
					b.WriteRune(rune(v))
					i += 5
					changed = true
					continue
				}
			}
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), changed
}

// unescapePercent decodes every valid %XX in s (and leaves invalid ones).
func unescapePercent(s string) (string, bool) {
	var b strings.Builder
	changed := false
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			v, _ := strconv.ParseUint(s[i+1:i+3], 16, 8)
			b.WriteByte(byte(v))
			i += 2
			changed = true
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String(), changed
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// messagesOf returns the messages the server sent. The recorder keeps no
// listing pages (a listing may be 16 MiB): the listed items are searched
// from those the result keeps, one message per listing so that a secret
// split across adjacent items is still found. For a result without
// received messages (built by hand, or read back from a database) the
// probe responses are rebuilt too.
func messagesOf(res *probe.Result) []probe.Message {
	var out []probe.Message
	out = append(out, res.Received...)
	items := func(method, key string, raws []json.RawMessage) {
		if len(raws) == 0 {
			return
		}
		var b strings.Builder
		b.WriteString(`{"` + key + `":[`)
		for i, r := range raws {
			if i > 0 {
				b.WriteByte(',')
			}
			b.Write(nonEmpty(r))
		}
		b.WriteString(`]}`)
		out = append(out, probe.Message{Kind: "result", Method: method, Body: json.RawMessage(b.String())})
	}
	var tools, prompts, resources, templates []json.RawMessage
	for _, t := range res.Tools {
		tools = append(tools, t.Raw)
	}
	for _, p := range res.Prompts {
		prompts = append(prompts, p.Raw)
	}
	for _, r := range res.Resources {
		resources = append(resources, r.Raw)
	}
	for _, r := range res.ResourceTemplates {
		templates = append(templates, r.Raw)
	}
	items("tools/list", "tools", tools)
	items("prompts/list", "prompts", prompts)
	items("resources/list", "resources", resources)
	items("resources/templates/list", "resourceTemplates", templates)
	if len(res.Received) > 0 {
		return out
	}
	for _, pc := range res.Probes {
		if len(pc.Response) > 0 {
			out = append(out, probe.Message{Kind: "result", Method: pc.Method, Name: pc.Tool, Body: pc.Response})
		}
	}
	return out
}

func nonEmpty(r json.RawMessage) json.RawMessage {
	if len(r) == 0 {
		return json.RawMessage("null")
	}
	return r
}

// maskCanaries replaces every canary value in the findings (other checks
// quote what the server sent as evidence) with a mark naming its variable.
func maskCanaries(fs []probe.Finding, canaries map[string]string) {
	if len(canaries) == 0 {
		return
	}
	var pairs []string
	for name, v := range canaries {
		if len(v) >= 6 {
			pairs = append(pairs, v, "[secret "+name+"]")
		}
	}
	r := strings.NewReplacer(pairs...)
	for i := range fs {
		f := &fs[i]
		f.Subject, f.Pointer, f.Value, f.Message = r.Replace(f.Subject), r.Replace(f.Pointer), r.Replace(f.Value), r.Replace(f.Message)
	}
}

// maxChannelsNamed bounds the channels one finding lists.
const maxChannelsNamed = 8

// SecretLeaks returns the findings of [ScoreResult]'s secret search alone:
// every message of res and, apart, its stderr, searched for every canary
// in every form. It is exported for benchmarks.
func SecretLeaks(res *probe.Result, canaries map[string]string) []probe.Finding {
	return secretLeaks(res, canaries, nil)
}

// secretLeaks searches every message the server sent, and separately its
// stderr and non-protocol stdout, for the canaries. It returns one finding
// per subject and code, naming each channel and encoding and the
// variable, never the value. onStderr, the secrets the sandbox found in
// the whole stderr, replaces the search of its tail and of stdout.
func secretLeaks(res *probe.Result, canaries map[string]string, onStderr []string) []probe.Finding {
	var out []probe.Finding
	if len(onStderr) > 0 {
		var names []string
		for _, n := range onStderr {
			names = append(names, "stderr: "+n)
		}
		list := strings.Join(names, "; ")
		out = append(out, probe.NewFinding(probe.CodeLeaksSecretStderr, "server", "stderr", list,
			"the server wrote the value of a secret it was given to its logs: %s", list))
	}
	needles := canaryNeedles(canaries)
	if len(needles.list) == 0 {
		return out
	}
	type key struct{ code, subject string }
	found := map[key][]string{}
	var order []key
	note := func(code, subject string, h canaryHit) {
		k := key{code, subject}
		if _, ok := found[k]; !ok {
			order = append(order, k)
		}
		// One entry per channel and variable: the first form found (the
		// verbatim one comes first) names it.
		d := h.channel + ": " + h.name
		if slices.ContainsFunc(found[k], func(e string) bool { return e == d || strings.HasPrefix(e, d+" (") }) {
			return
		}
		if h.enc != "" {
			d += " (" + h.enc + ")"
		}
		found[k] = append(found[k], d)
	}
	offsets := map[string]map[string]int{}
	// Consecutive notifications are also searched as one text: a canary
	// split over three of them is found.
	var notes []strand
	flushNotes := func() {
		if len(notes) > 1 {
			searchJoined(notes, needles, func(h canaryHit) { note(CodeLeaksSecret, "server", h) })
		}
		notes = notes[:0]
	}
	for _, m := range messagesOf(res) {
		subject := subjectOfMessage(m)
		ms := messageStrands(m, offsets)
		searchStrands(ms, needles, func(h canaryHit) { note(CodeLeaksSecret, subject, h) })
		if m.Kind != "notification" {
			flushNotes()
			continue
		}
		notes = append(notes, ms...)
	}
	flushNotes()
	var logs []strand
	if len(onStderr) == 0 && res.Liveness.StderrTail != "" {
		logs = append(logs, strand{channel: "stderr", group: "stderr", s: res.Liveness.StderrTail})
	}
	if len(onStderr) == 0 && res.Liveness.StdoutNoise != "" {
		logs = append(logs, strand{channel: "stdout (non-protocol lines)", group: "stdout", s: res.Liveness.StdoutNoise})
	}
	for _, st := range logs {
		searchStrands([]strand{st}, needles, func(h canaryHit) { note(probe.CodeLeaksSecretStderr, "server", h) })
	}
	for _, k := range order {
		ds := found[k]
		first, _, _ := strings.Cut(ds[0], ": ")
		shown := ds
		if len(shown) > maxChannelsNamed {
			shown = shown[:maxChannelsNamed]
		}
		list := strings.Join(shown, "; ")
		if n := len(ds) - len(shown); n > 0 {
			list += fmt.Sprintf("; and %d more", n)
		}
		msg := "the server sent the value of a secret it was given, which reaches the model: " + list
		if k.code == probe.CodeLeaksSecretStderr {
			msg = "the server wrote the value of a secret it was given to its logs: " + list
		}
		out = append(out, newFinding(k.code, k.subject, first, list, msg))
	}
	return out
}
