// Package authchallenge reads the challenges of a WWW-Authenticate header
// field (RFC 9110 section 11.6.1). It is the one reader of that header in
// the module, so that probe's OAuth check and sandbox's note of a remote's
// first HTTP answer find the same parameters in the same header: a name
// inside another parameter's quoted value, or one that merely ends in the
// name sought, is no parameter for either.
//
// The go-sdk has a parser (oauthex.ParseWWWAuthenticate), and it is not
// used: it fails every challenge of a header when one is malformed, so a
// server's bad Basic or Negotiate challenge hides its Bearer one, and it
// misses a resource_metadata set in a later challenge after an empty one
// (TestResourceMetadata's "empty in the first challenge, set in the
// next"). A scanner reads what servers get wrong, so it reads every
// challenge it can.
package authchallenge

import (
	"net/http"
	"strings"
)

// Challenge is one challenge of a WWW-Authenticate field: its scheme in
// lower case ("" for parameters sent before any scheme) and its
// parameters, names in lower case, the first of a repeated name kept.
type Challenge struct {
	Scheme string
	Params map[string]string
}

// ResourceMetadata returns the first non-empty resource_metadata parameter
// of the challenges of h's WWW-Authenticate fields, of whatever scheme (as
// the go-sdk client reads it), or "". RFC 9728 section 5.1: the parameter
// is the URL of the protected resource metadata.
func ResourceMetadata(h http.Header) string {
	for _, v := range h.Values("WWW-Authenticate") {
		for _, ch := range Parse(v) {
			if u := ch.Params["resource_metadata"]; u != "" {
				return u
			}
		}
	}
	return ""
}

// Parse reads the challenges of one WWW-Authenticate field value
// (RFC 9110 section 11.6.1):
//
//	WWW-Authenticate = #challenge
//	challenge        = auth-scheme [ 1*SP ( token68 / #auth-param ) ]
//	auth-param       = token BWS "=" BWS ( token / quoted-string )
//
// A comma separates both the parameters of a challenge and the challenges,
// so a token followed by "=" is a parameter of the challenge before it and
// any other token starts a challenge. A quoted string ends at its first
// unescaped quote, and a backslash takes the next character as it is
// (quoted-pair, section 5.6.4), so nothing inside one is read as a
// parameter. Two leniencies follow what servers send and clients accept:
// an unquoted value runs to the next comma or space even when it is not a
// token (URLs are sent unquoted), and parameters before any scheme make a
// challenge without one. Reading stops at the first thing no rule fits
// (an unterminated quoted string, a value not followed by a comma), since
// what follows cannot be split reliably.
func Parse(v string) []Challenge {
	var out []Challenge
	p := 0
	for {
		// Empty list elements are allowed (RFC 9110 section 5.6.1).
		p += spanOf(v[p:], " \t,")
		name := v[p : p+tokenLen(v[p:])]
		if name == "" {
			return out
		}
		p += len(name)
		if rest := v[p+spanOf(v[p:], " \t"):]; strings.HasPrefix(rest, "=") {
			val, n, ok := paramValue(rest[1:])
			if !ok {
				return out
			}
			if len(out) == 0 {
				out = append(out, Challenge{Params: map[string]string{}})
			}
			if _, dup := out[len(out)-1].Params[strings.ToLower(name)]; !dup {
				out[len(out)-1].Params[strings.ToLower(name)] = val
			}
			after := rest[1+n:]
			p = len(v) - len(after)
			if after = strings.TrimLeft(after, " \t"); after != "" && after[0] != ',' {
				return out
			}
			continue
		}
		out = append(out, Challenge{Scheme: strings.ToLower(name), Params: map[string]string{}})
		p += token68Len(v[p:])
	}
}

// paramValue reads an auth-param's value after its "=" (and BWS): a
// quoted string, unescaped, or an unquoted run up to a comma or space. It
// returns the value and the bytes read, or false for an unterminated
// quoted string.
func paramValue(s string) (string, int, bool) {
	lead := spanOf(s, " \t")
	s = s[lead:]
	if !strings.HasPrefix(s, `"`) {
		n := strings.IndexAny(s, ", \t")
		if n < 0 {
			n = len(s)
		}
		return s[:n], lead + n, true
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '"':
			return b.String(), lead + i + 1, true
		case '\\':
			if i+1 < len(s) {
				i++
			}
		}
		b.WriteByte(s[i])
	}
	return "", 0, false
}

// token68Len is the length of the token68 that follows an auth-scheme
// (RFC 9110 section 11.2: 1*SP, then letters, digits and -._~+/ ending in
// any number of "="), or 0 when what follows is no token68 but
// parameters: a token68 is the challenge's last item, so a comma or the
// end must come after it.
func token68Len(s string) int {
	sp := spanOf(s, " ")
	if sp == 0 {
		return 0
	}
	n := sp + spanOf(s[sp:], "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~+/")
	if n == sp {
		return 0
	}
	n += spanOf(s[n:], "=")
	if rest := strings.TrimLeft(s[n:], " \t"); rest != "" && rest[0] != ',' {
		return 0
	}
	return n
}

// tokenLen is the length of the token s starts with (RFC 9110 section
// 5.6.2).
func tokenLen(s string) int {
	return spanOf(s, "!#$%&'*+-.^_`|~ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
}

// spanOf is the length of the prefix of s made of bytes in set.
func spanOf(s, set string) int {
	i := 0
	for i < len(s) && strings.IndexByte(set, s[i]) >= 0 {
		i++
	}
	return i
}
