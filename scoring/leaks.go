package scoring

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
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
	var out []Leak
	s := seg.s
	add := func(k LeakKind, i, j int, ev string) {
		out = append(out, Leak{Kind: k, Where: fmt.Sprintf("%s[%d:%d]", seg.label, i, j), Evidence: ev})
	}
	names := make([]string, 0, len(c.Canaries))
	for name := range c.Canaries {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		v := c.Canaries[name]
		if len(v) < 6 {
			continue
		}
		if i := strings.Index(s, v); i >= 0 {
			add(LeakSecret, i, i+len(v), "canary value of "+name)
		}
	}
	if len(s) > maxScanBytes {
		s = s[:maxScanBytes]
	}
	if len(seg.lower) != len(seg.s) {
		seg.lower = asciiLower(seg.s)
	}
	lower := seg.lower[:len(s)]
	hs, hl := hintMask(s), hintMask(lower)
	for _, g := range reCred {
		if !g.hit(s, hs) {
			continue
		}
		for _, loc := range g.re.FindAllStringIndex(s, 4) {
			if echo != "" && strings.Contains(echo, s[loc[0]:loc[1]]) {
				continue
			}
			add(LeakCredential, loc[0], loc[1], "credential-shaped token "+redact(s[loc[0]:loc[1]]))
		}
	}
	var connRanges [][]int
	for _, g := range reConnStr {
		if !g.hit(s, hs) {
			continue
		}
		for _, loc := range g.re.FindAllStringIndex(s, 4) {
			m := s[loc[0]:loc[1]]
			if inRanges(loc, connRanges) || echo != "" && strings.Contains(echo, m) {
				continue
			}
			connRanges = append(connRanges, loc)
			add(LeakConnectionString, loc[0], loc[1], "connection string "+redactURL(m))
		}
	}
	for _, g := range reInternal {
		if !g.hit(lower, hl) {
			continue
		}
		for _, loc := range g.re.FindAllStringIndex(lower, 4) {
			if inRanges(loc, connRanges) {
				continue
			}
			m := s[loc[0]:loc[1]]
			if echo != "" && strings.Contains(echo, m) {
				continue
			}
			add(LeakInternalHost, loc[0], loc[1], "internal host "+m)
		}
	}
	for _, g := range reStack {
		if !g.hit(s, hs) {
			continue
		}
		if loc := g.re.FindStringIndex(s); loc != nil {
			add(LeakStackTrace, loc[0], loc[1], "stack frame "+fmt.Sprintf("%q", truncate(s[loc[0]:loc[1]], 100)))
			break
		}
	}
	if reHostPath.hit(s, hs) {
		for _, m := range reHostPath.re.FindAllStringSubmatchIndex(s, 8) {
			i, j := m[2], m[3]
			if i < 0 {
				i, j = m[4], m[5]
			}
			p := strings.TrimRight(s[i:j], ".")
			j = i + len(p)
			if inRanges([]int{i, j}, connRanges) || isPublicPath(p, c.PublicPaths) {
				continue
			}
			if echo != "" && strings.Contains(echo, p) {
				continue
			}
			add(LeakHostPath, i, j, "host path "+fmt.Sprintf("%q", truncate(p, 100)))
			break
		}
	}
	return out
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
	for _, r := range ranges {
		if loc[0] >= r[0] && loc[1] <= r[1] {
			return true
		}
	}
	return false
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
	return fmt.Sprintf("%q", truncate(s, 100))
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && (s[n]&0xC0) == 0x80 {
		n--
	}
	return s[:n] + "…"
}

// echoes joins everything the caller sent, so a leak detector can tell an
// echo from a leak: the invalid value and every string in the params.
func (in *input) echoes() string {
	var b strings.Builder
	b.WriteString(in.sent)
	if in.sentType == 'o' {
		b.WriteByte('\n')
		b.Write(in.r.Sent)
	}
	if len(in.r.Arguments) > 0 {
		var v any
		if json.Unmarshal(in.r.Arguments, &v) == nil {
			collectStrings(&b, v, 0)
		}
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
