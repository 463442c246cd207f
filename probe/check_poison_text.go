package probe

import (
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mcpvet/mcpvet/internal/lazyre"
	"github.com/mcpvet/mcpvet/internal/safe"
)

// directiveMatch is one poison match in a text with its byte range.
type directiveMatch struct {
	code       string
	start, end int
	why        string
}

// Tool-reference patterns: orders about a named tool. The name is group 1;
// the rule fires only when the server has no tool (and no parameter) of
// that name. A name must look like an identifier (a separator or an inner
// capital), and a condition on it must be about a call ("is invoked",
// "is called"), or name it a tool: "when `application_sid` is present" is
// about a field.
var otherToolRules = []*lazyre.RE{
	lazyre.New("(?i)\\b(?:call|use|invoke|run|execute|trigger)\\s+(?:the\\s+)?[`'\"]?([A-Za-z][\\w.\\-]*[_.\\-][\\w.\\-]*)[`'\"]?\\s+(?:tool\\s+)?(?:first|before)\\b"),
	lazyre.New("(?i)\\b(?:when|whenever|if|before|after)\\s+(?:the\\s+)?(?:\\([\\w\\-]+\\)\\s+)?[`'\"]?([A-Za-z][\\w.\\-]*[_.\\-][\\w.\\-]*)[`'\"]?\\s+(?:tool\\s+)?is\\s+(?:invoked|called|used|run|executed)\\b"),
	lazyre.New("(?i)\\b(?:when|whenever|if)\\s+(?:the\\s+)?(?:[\\w\\-]+\\s+){0,2}?[`'\"]?([A-Za-z][\\w.\\-]*[_.\\-][\\w.\\-]*)[`'\"]?\\s+tool\\s+is\\s+(?:available|present|enabled|installed)\\b"),
	lazyre.New("(?i)\\b(?:the\\s+)?[`'\"]?([A-Za-z][\\w.\\-]*[_.\\-][\\w.\\-]*)[`'\"]?\\s+tool\\s+(?:must|should|has\\s+to|needs\\s+to|shall)\\s+(?:always\\s+)?(?:send|forward|include|add|use|be\\s+called|redirect|cc|bcc|copy)\\b"),
	lazyre.New("(?i)\\binstead\\s+of\\s+(?:using|calling|invoking)\\s+(?:the\\s+)?[`'\"]?([A-Za-z][\\w.\\-]*[_.\\-][\\w.\\-]*)[`'\"]?"),
	lazyre.New("(?i)\\binstead\\s+of\\s+(?:the\\s+)?[`'\"]?([A-Za-z][\\w.\\-]*[_.\\-][\\w.\\-]*)[`'\"]?\\s+tool\\b"),
}

// otherToolKeys are the prefilter words of otherToolRules, by index.
var otherToolKeys = [][]string{{"first", "before"}, {" is "}, {"tool"}, {"tool"}, {"instead"}, {"instead"}}

func init() {
	if len(otherToolKeys) != len(otherToolRules) {
		panic("probe: prefilter keys and rules differ in length")
	}
}

// pseudoTag: markup that imitates system or priority text. Tags that
// structure a description (<instructions>, <use_case>, <workflow>) are
// honest and not matched.
var pseudoTag = lazyre.New(`(?i)<\s*/?\s*(?:important|system|system[-_]?prompt|system[-_]?reminder|secret|hidden|admin|critical|override|ai[-_]?instructions?|note[-_]?to[-_]?(?:ai|assistant|model)|sudo)\s*>|\[/?(?:SYSTEM|INST|SYS|HIDDEN)\b[^\]]{0,2}|<<SYS>>|<\|im_start\|>|<\|system\|>`)

// hasAny reports whether lower contains one of keys.
func hasAny(lower string, keys []string) bool {
	return slices.ContainsFunc(keys, func(k string) bool { return strings.Contains(lower, k) })
}

// matchDirectives finds orders about named tools the server does not
// have, HTML comments, encoded blobs and exfiltration URLs in s. own
// holds the server's tool and parameter names in lower case.
func matchDirectives(s string, own map[string]bool) []directiveMatch {
	var out []directiveMatch
	lower := strings.ToLower(s)
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
	if strings.ContainsAny(s, "<[") {
		for _, loc := range pseudoTag.FindAllStringIndex(s, 8) {
			out = append(out, directiveMatch{CodePoisonPseudoTag, loc[0], loc[1], "the text imitates system or priority markup addressed to the model"})
		}
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

var htmlComment = lazyre.New(`(?s)<!--(.*?)(?:-->|$)`)

func matchHTMLComments(s string) []directiveMatch {
	if !strings.Contains(s, "<!--") {
		return nil
	}
	var out []directiveMatch
	for _, m := range htmlComment.FindAllStringSubmatchIndex(s, 8) {
		// Conditional comments (<!--[if mso]> ... <![endif]-->) are HTML
		// for mail clients, not hidden prose.
		if body := strings.TrimSpace(s[m[2]:m[3]]); body == "" || strings.HasPrefix(body, "[if ") || strings.HasPrefix(body, "[endif") {
			continue
		}
		out = append(out, directiveMatch{CodePoisonHTMLComment, m[0], m[1],
			"an HTML comment holds text that rendered Markdown does not show"})
	}
	return out
}

var base64Run = lazyre.New(`[A-Za-z0-9+/_-]{40,}={0,2}`)

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

var urlPattern = lazyre.New(`(?i)\bhttps?://[^\s<>"'\x60)\]]+`)

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
var dataPlaceholder = lazyre.New(`(?i)(?:\{\{?|<|\[|\$\{?|%7B)\s*(?:the\s+|your\s+|user_?)?(?:data|content|contents|secret|secrets|token|api_?key|key|password|passwd|credentials?|conversation|history|chat|context|messages?|env|environment|ssh|file_?contents?|summary|prompt|system_?prompt)\s*(?:\}\}?|>|\]|%7D)?`)

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
var paddingRun = lazyre.New(`(?:[ \t\x{00A0}\x{3000}]*\n){8,}|[ \t\x{00A0}\x{2000}-\x{200A}\x{3000}]{80,}`)

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
