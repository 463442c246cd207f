package probe

import (
	"encoding/base64"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mcpvet/mcpvet/internal/safe"
)

// directiveMatch is one poison match in a text with its byte range.
type directiveMatch struct {
	code       string
	start, end int
	why        string
}

// directiveRule is a pattern for text addressed to the model. The
// patterns are written for precision: each needs the shape of an order
// (verb plus object), not a single suspicious word, because honest
// descriptions talk about files, credentials and users all the time.
type directiveRule struct {
	code string
	re   *regexp.Regexp
	why  string
}

// ruleKeys are the prefilter words of directiveRules, by index: each
// match contains one of them (lower case), so a text without any is not
// run through the rule's expression.
var ruleKeys = [][]string{
	{"ignore", "disregard", "forget", "override", "bypass"},
	{"precedence", "supersede", "override"},
	{"not", "don", "never", "without"},
	{"not", "don", "never"},
	{"hide", "conceal"},
	{"user"},
	{"silently", "secretly", "covertly", "quietly", "invisibly"},
	{"without"},
	{".ssh", "id_", "cursor", "mcp.json", "claude_desktop", ".aws", ".netrc", ".npmrc", ".pypirc", "credentials", "docker/config", "/etc/", "history", ".env", "config/gh", "keychain", "wallet"},
	{"conversation", "history", "messages", "prompt", "window"},
	{"key", "secret", "password", "credential", "token", "variable"},
	{"content", "text"},
	{"<", "["},
}

func init() {
	if len(ruleKeys) != len(directiveRules) || len(otherToolKeys) != len(otherToolRules) {
		panic("probe: prefilter keys and rules differ in length")
	}
}

// needsOrder marks the rules (by index of directiveRules) that name a
// file or the conversation: honest tools read files and save
// conversations, so these fire only in a sentence that also reads as an
// order to the model (see orderMarker).
var needsOrder = map[int]bool{8: true, 9: true}

// orderMarker: the words that make a sentence an order addressed to the
// model rather than a description of what the tool does.
var orderMarker = regexp.MustCompile("(?i)\\b(?:before\\s+(?:using|calling|you)|first|please|must|always|make\\s+sure|you|otherwise|and\\s+(?:pass|send|include|put|append|attach|forward|upload|post|add|copy)|as\\s+(?:the\\s+)?['\"`]?\\w+['\"`]?\\s+(?:parameter|argument|field)|as\\s+['\"`]|into\\s+the|to\\s+https?://)")

// sentenceAround returns the sentence of s holding [start, end): from the
// previous full stop, blank line or tag to the next.
func sentenceAround(s string, start, end int) string {
	a := start
	for a > 0 && !sentenceEnd(s, a-1) {
		a--
	}
	z := end
	for z < len(s) && !sentenceEnd(s, z) {
		z++
	}
	return s[a:z]
}

func sentenceEnd(s string, i int) bool {
	switch s[i] {
	case '.', '!', '?':
		// A dot inside a path or name (mcp.json, ~/.ssh) is not an end.
		return i+1 >= len(s) || s[i+1] == ' ' || s[i+1] == '\n'
	case '\n':
		return i+1 < len(s) && s[i+1] == '\n'
	case '>':
		return true
	}
	return false
}

// hasAny reports whether lower contains one of keys.
func hasAny(lower string, keys []string) bool {
	return slices.ContainsFunc(keys, func(k string) bool { return strings.Contains(lower, k) })
}

var directiveRules = []directiveRule{
	{CodePoisonOverride, regexp.MustCompile(`(?i)\b(?:ignore|disregard|forget|override|bypass)\s+(?:all\s+|any\s+)?(?:of\s+)?(?:the\s+|your\s+|these\s+)?(?:previous|prior|above|earlier|preceding|other|system|existing|original|your|safety)\s+(?:\w+\s+)?(?:instructions?|prompts?|rules|guidelines|directives|directions|guardrails|constraints|policies)\b`),
		"the text tells the model to ignore or override its other instructions"},
	{CodePoisonOverride, regexp.MustCompile(`(?i)\b(?:takes?\s+precedence\s+over|supersedes?|overrides?)\s+(?:all\s+|any\s+)?(?:other|previous|prior|system|user(?:'s)?)\s+(?:instructions?|tools?|prompts?|requests?)\b`),
		"the text claims precedence over the model's other instructions"},
	{CodePoisonConceal, regexp.MustCompile(`(?i)\b(?:do\s+not|don'?t|never|must\s+not|should\s+not|without)\s+(?:ever\s+)?(?:tell|telling|mention|mentioning|inform|informing|notify|notifying|alert|alerting|reveal|revealing|disclose|disclosing|show|showing)\s+(?:this|it|that|anything|any\s+of\s+this)?\s*(?:step\s+|action\s+)?(?:to\s+)?(?:the\s+)?(?:user|users|human|person)\b`),
		"the text tells the model to keep something from the user"},
	{CodePoisonConceal, regexp.MustCompile(`(?i)\b(?:do\s+not|don'?t|never)\s+(?:mention|reveal|disclose)\s+(?:that\s+you|that\s+this|this\s+(?:step|instruction|requirement|side\s+effect)|these\s+(?:steps|instructions))\b`),
		"the text tells the model not to mention what it does"},
	{CodePoisonConceal, regexp.MustCompile(`(?i)\b(?:hide|conceal)\s+(?:this|it|that|these\s+\w+|the\s+\w+)\s+from\s+(?:the\s+)?(?:user|users|human)\b`),
		"the text tells the model to hide something from the user"},
	{CodePoisonConceal, regexp.MustCompile(`(?i)\bthe\s+user\s+(?:must|should|need)\s+(?:not|never)\s+(?:know|see|notice|be\s+told|find\s+out)\b`),
		"the text tells the model to keep something from the user"},
	{CodePoisonConceal, regexp.MustCompile(`(?i)\b(?:silently|secretly|covertly|quietly|invisibly)\s+(?:post|send|upload|forward|cop(?:y|ie)|read|call|add|includ|bcc|exfiltrat|transmit|email|append|attach|redirect|run|execut|invok|collect|captur)\w*`),
		"the text tells the model to act without the user seeing it"},
	{CodePoisonConceal, regexp.MustCompile(`(?i)\bwithout\s+(?:the\s+)?user'?s?\s+(?:knowledge|noticing|knowing|awareness)\b`),
		"the text tells the model to act without the user knowing"},
	{CodePoisonSensitiveData, regexp.MustCompile(`(?i)\b(?:read|cat|open|load|include|pass|send|forward|upload|post|attach|copy|extract|collect|exfiltrate|email|paste|append|transmit|share|dump|print|get|fetch|retrieve|provide|insert|add)\b[^.\n]{0,80}?(?:~/\.ssh(?:/id_\w+|/?(?:\s|$|[\x60'"]))|\bid_(?:rsa|ed25519|ecdsa|dsa)\b|\.ssh/id_|~/\.cursor|\bmcp\.json\b|claude_desktop_config\.json|~/\.aws|\.aws/credentials|\.netrc\b|\.npmrc\b|\.pypirc\b|\.git-credentials\b|\.docker/config\.json|/etc/passwd|/etc/shadow|\.bash_history|\.zsh_history|(?:^|[\s'"\x60(])\.env\b|~/\.config/gh|\bkeychain\b|\bwallet\.dat\b)`),
		"the text tells the model to read or send a file that holds secrets"},
	{CodePoisonSensitiveData, regexp.MustCompile(`(?i)\b(?:include|pass|send|forward|upload|post|attach|copy|exfiltrate|email|paste|append|transmit|share|dump|provide|insert|summari[sz]e\s+and\s+send)\b[^.\n]{0,40}?\b(?:(?:entire|full|whole|complete)\s+)?(?:conversation(?:\s+history)?|chat\s+history|message\s+history|previous\s+messages|all\s+(?:the\s+)?(?:other\s+)?messages|system\s+prompt|context\s+window|(?:full\s+)?list\s+of\s+(?:all\s+|the\s+)?(?:last|previous|recent)?\s*messages)\b`),
		"the text tells the model to send conversation content"},
	{CodePoisonSensitiveData, regexp.MustCompile(`(?i)\b(?:include|pass|send|forward|upload|post|attach|copy|append|insert|put|provide)\s+(?:the\s+user'?s?\s+|your\s+|all\s+|any\s+)?(?:api[\s_-]?keys?|secrets?|passwords?|credentials?|(?:access|auth|bearer|session)\s+tokens?|private\s+keys?|ssh\s+keys?|env(?:ironment)?\s+variables?)\b[^.\n]{0,60}?\b(?:as|in|into|to)\s+(?:the\s+)?(?:['"\x60]\w+['"\x60]|\w+\s+(?:parameter|argument|field)|https?://)`),
		"the text tells the model to pass credentials in an argument or to a URL"},
	{CodePoisonSensitiveData, regexp.MustCompile(`(?i)\b(?:pass|put|send|include|append|insert|provide)\s+(?:its|their|the\s+file'?s?|the\s+entire|the\s+full|the\s+whole)\s+(?:full\s+|entire\s+|whole\s+)?(?:contents?|text)\s+(?:as|in|into)\s+(?:the\s+)?['"\x60]?\w+['"\x60]?`),
		"the text tells the model to smuggle a file's contents through an argument"},
	{CodePoisonPseudoTag, regexp.MustCompile(`(?i)<\s*/?\s*(?:important|system|system[-_]?prompt|system[-_]?reminder|instructions?|secret|hidden|admin|critical|override|ai[-_]?instructions?|note[-_]?to[-_]?(?:ai|assistant|model)|assistant|sudo)\s*>|\[/?(?:SYSTEM|INST|SYS)\]|<<SYS>>|<\|im_start\|>|<\|system\|>`),
		"the text imitates system or priority markup addressed to the model"},
}

// Tool-reference patterns: orders about a named tool. The name is group 1;
// the rule fires only when the server has no tool of that name.
var otherToolRules = []*regexp.Regexp{
	regexp.MustCompile("(?i)\\b(?:call|use|invoke|run|execute|trigger)\\s+(?:the\\s+)?[`'\"]?([A-Za-z][\\w.\\-]*[_.\\-][\\w.\\-]*)[`'\"]?\\s+(?:tool\\s+)?(?:first|before)\\b"),
	regexp.MustCompile("(?i)\\b(?:when|whenever|if)\\s+(?:the\\s+)?(?:\\([\\w\\-]+\\)\\s+)?(?:[\\w\\-]+\\s+){0,2}?[`'\"]?([A-Za-z][\\w.\\-]*[_.\\-][\\w.\\-]*)[`'\"]?\\s+(?:tool\\s+)?is\\s+(?:available|present|called|used|invoked|enabled)\\b"),
	regexp.MustCompile("(?i)\\b(?:the\\s+)?[`'\"]?([A-Za-z][\\w.\\-]*[_.\\-][\\w.\\-]*)[`'\"]?\\s+tool\\s+(?:must|should|has\\s+to|needs\\s+to|shall)\\s+(?:always\\s+)?(?:send|forward|include|add|use|be\\s+called|redirect|cc|bcc|copy)\\b"),
	regexp.MustCompile("(?i)\\binstead\\s+of\\s+(?:using|calling|invoking)\\s+(?:the\\s+)?[`'\"]?([A-Za-z][\\w.\\-]*[_.\\-][\\w.\\-]*)[`'\"]?"),
	regexp.MustCompile("(?i)\\binstead\\s+of\\s+(?:the\\s+)?[`'\"]?([A-Za-z][\\w.\\-]*[_.\\-][\\w.\\-]*)[`'\"]?\\s+tool\\b"),
}

// otherToolKeys are the prefilter words of otherToolRules, by index.
var otherToolKeys = [][]string{{"first", "before"}, {"is"}, {"tool"}, {"instead"}, {"instead"}}

func allOtherToolsIn(lower, s string) [][]int {
	if !strings.Contains(lower, "other") {
		return nil
	}
	return allOtherTools.FindAllStringIndex(s, 8)
}

// allOtherTools: orders about every other tool or server.
var allOtherTools = regexp.MustCompile(`(?i)\b(?:all|any|every)\s+other\s+(?:tools?|servers?|mcp\s+servers?|functions?)\b[^.\n]{0,40}?\b(?:must|should|need\s+to|have\s+to|are\s+to)\b|\b(?:before|instead\s+of)\s+(?:using|calling)\s+(?:any|all)\s+other\s+(?:tools?|servers?)\b`)

// matchDirectives finds orders addressed to the model, pseudo tags, HTML
// comments, encoded blobs and exfiltration URLs in s. own holds the
// server's tool names in lower case.
func matchDirectives(s string, own map[string]bool) []directiveMatch {
	var out []directiveMatch
	lower := strings.ToLower(s)
	for i, r := range directiveRules {
		if !hasAny(lower, ruleKeys[i]) {
			continue
		}
		for _, loc := range r.re.FindAllStringIndex(s, 8) {
			if needsOrder[i] && !orderMarker.MatchString(sentenceAround(s, loc[0], loc[1])) {
				continue
			}
			out = append(out, directiveMatch{r.code, loc[0], loc[1], r.why})
		}
	}
	for i, re := range otherToolRules {
		if !hasAny(lower, otherToolKeys[i]) {
			continue
		}
		for _, m := range re.FindAllStringSubmatchIndex(s, 8) {
			name := strings.Trim(s[m[2]:m[3]], ".-")
			if own[strings.ToLower(name)] || ownSuffix(own, name) {
				continue
			}
			out = append(out, directiveMatch{CodePoisonOtherTool, m[0], m[1],
				"the text gives orders about the tool " + quoteName(name) + ", which this server does not provide"})
		}
	}
	for _, loc := range allOtherToolsIn(lower, s) {
		out = append(out, directiveMatch{CodePoisonOtherTool, loc[0], loc[1],
			"the text gives orders about all other tools or servers"})
	}
	out = append(out, matchHTMLComments(s)...)
	out = append(out, matchBase64(s)...)
	out = append(out, matchExfilURLs(s)...)
	return out
}

// ownSuffix accepts a reference written with a client's server prefix
// (mcp__server__tool, server.tool) to one of the server's own tools.
func ownSuffix(own map[string]bool, name string) bool {
	n := strings.ToLower(name)
	for _, sep := range []string{"__", "."} {
		if i := strings.LastIndex(n, sep); i >= 0 && own[n[i+len(sep):]] {
			return true
		}
	}
	return false
}

func quoteName(s string) string { return `"` + s + `"` }

var htmlComment = regexp.MustCompile(`(?s)<!--(.*?)(?:-->|$)`)

func matchHTMLComments(s string) []directiveMatch {
	if !strings.Contains(s, "<!--") {
		return nil
	}
	var out []directiveMatch
	for _, m := range htmlComment.FindAllStringSubmatchIndex(s, 8) {
		if strings.TrimSpace(s[m[2]:m[3]]) == "" {
			continue
		}
		out = append(out, directiveMatch{CodePoisonHTMLComment, m[0], m[1],
			"an HTML comment holds text that rendered Markdown does not show"})
	}
	return out
}

var base64Run = regexp.MustCompile(`[A-Za-z0-9+/_-]{40,}={0,2}`)

// matchBase64 reports runs of base64 that decode to mostly printable
// text. Hex digests, identifiers and binary payloads (an embedded PNG)
// decode to non-text and are left alone.
func matchBase64(s string) []directiveMatch {
	var out []directiveMatch
	for _, loc := range base64Run.FindAllStringIndex(s, 8) {
		blob := s[loc[0]:loc[1]]
		if isHexOrIdent(blob) {
			continue
		}
		text, ok := decodeBase64Text(blob)
		if !ok {
			continue
		}
		out = append(out, directiveMatch{CodePoisonBase64, loc[0], loc[1],
			"a base64 blob decodes to the text " + strconvQuote(safe.Truncate(text, 120, safe.Ellipsis))})
	}
	return out
}

func strconvQuote(s string) string {
	b := []byte{'"'}
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b = append(b, '\\', byte(r))
		case r < 0x20:
			b = append(b, ' ')
		default:
			b = utf8.AppendRune(b, r)
		}
	}
	return string(append(b, '"'))
}

// isHexOrIdent: only hex digits, or a snake/kebab identifier.
func isHexOrIdent(s string) bool {
	hex, lowerIdent := true, true
	for _, r := range s {
		if !strings.ContainsRune("0123456789abcdefABCDEF", r) {
			hex = false
		}
		if !(r >= 'a' && r <= 'z') && r != '_' && r != '-' {
			lowerIdent = false
		}
	}
	return hex || lowerIdent
}

func decodeBase64Text(blob string) (string, bool) {
	trimmed := strings.TrimRight(blob, "=")
	for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
		b, err := enc.DecodeString(trimmed)
		if err != nil || len(b) < 24 || !utf8.Valid(b) {
			continue
		}
		printable, letters := 0, 0
		for _, r := range string(b) {
			if unicode.IsPrint(r) || r == '\n' || r == '\t' {
				printable++
			}
			if unicode.IsLetter(r) || r == ' ' {
				letters++
			}
		}
		n := utf8.RuneCount(b)
		if printable*100 >= n*95 && letters*100 >= n*60 {
			return string(b), true
		}
	}
	return "", false
}

var urlPattern = regexp.MustCompile(`(?i)\bhttps?://[^\s<>"'\x60)\]]+`)

// captureHosts are request-capture and tunnelling services: a URL to them
// in tool metadata has no use but receiving data.
var captureHosts = []string{
	"webhook.site", "requestbin.com", "requestbin.net", "pipedream.net", "pipedream.com", "ngrok.io", "ngrok-free.app",
	"ngrok.app", "burpcollaborator.net", "oastify.com", "interact.sh", "interactsh.com", "oast.pro", "oast.live", "oast.fun",
	"oast.me", "oast.site", "oast.online", "canarytokens.com", "beeceptor.com", "hookbin.com", "requestcatcher.com",
	"webhook.cool", "trycloudflare.com", "serveo.net", "localhost.run", "dnslog.cn", "ceye.io", "hookdeck.com",
}

// dataPlaceholder matches a placeholder in a URL that stands for data the
// model should fill in from the conversation or from secrets.
var dataPlaceholder = regexp.MustCompile(`(?i)(?:\{\{?|<|\[|\$\{?|%7B)\s*(?:the\s+|your\s+|user_?)?(?:data|content|contents|secret|secrets|token|api_?key|key|password|passwd|credentials?|conversation|history|chat|context|messages?|env|environment|ssh|file_?contents?|summary|prompt|system_?prompt)\s*(?:\}\}?|>|\]|%7D)?`)

func matchExfilURLs(s string) []directiveMatch {
	if !strings.Contains(s, "://") {
		return nil
	}
	var out []directiveMatch
	for _, loc := range urlPattern.FindAllStringIndex(s, 16) {
		raw := strings.TrimRight(s[loc[0]:loc[1]], ".,;:!?")
		end := loc[0] + len(raw)
		u, err := url.Parse(raw)
		host := ""
		if err == nil {
			host = strings.ToLower(u.Hostname())
		} else if h, _, ok := strings.Cut(strings.SplitN(raw, "://", 2)[1], "/"); ok || h != "" {
			host = strings.ToLower(h)
		}
		for _, c := range captureHosts {
			if host == c || strings.HasSuffix(host, "."+c) {
				out = append(out, directiveMatch{CodePoisonExfilURL, loc[0], end,
					"the URL points to " + c + ", a request-capture or tunnelling service that only receives data"})
				host = ""
				break
			}
		}
		if host == "" {
			continue
		}
		// A placeholder for secrets or conversation anywhere after the host.
		rest := raw[strings.Index(raw, "://")+3:]
		if m := dataPlaceholder.FindStringIndex(rest); m != nil && strings.ContainsAny(rest[:m[0]], "/?=&") {
			out = append(out, directiveMatch{CodePoisonExfilURL, loc[0], end,
				"the URL has a placeholder for " + strings.ToLower(strings.Trim(rest[m[0]:m[1]], "{}<>[]$% ")) + " that the model would fill in and send to " + host})
		}
	}
	return out
}

// Padding that pushes the rest of a text out of view.
var paddingRun = regexp.MustCompile(`(?:[ \t\x{00A0}\x{3000}]*\n){8,}|[ \t\x{00A0}\x{2000}-\x{200A}\x{3000}]{80,}`)

// checkHiddenTail reports a text that continues with at least a sentence
// after a long run of blank lines or spaces.
func checkHiddenTail(f textField) []Finding {
	s := f.text
	for _, loc := range paddingRun.FindAllStringIndex(s, 4) {
		tail := strings.TrimSpace(s[loc[1]:])
		head := strings.TrimSpace(s[:loc[0]])
		if len(tail) < 20 || head == "" {
			continue
		}
		lines := strings.Count(s[loc[0]:loc[1]], "\n")
		end := min(len(s), loc[1]+len(s[loc[1]:])-len(strings.TrimLeft(s[loc[1]:], " \t\n"))+min(len(tail), 120))
		for end < len(s) && !utf8.RuneStart(s[end]) {
			end++
		}
		return []Finding{poisonFinding(CodePoisonHiddenTail, f, span{loc[0], end},
			"after %d bytes of visible text, %d bytes of padding (%d line breaks) push %d more bytes out of view",
			len(head), loc[1]-loc[0], lines, len(tail))}
	}
	return nil
}
