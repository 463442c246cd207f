package scoring

import (
	"fmt"
	"slices"
	"strings"
)

// reKeyedSecret matches a secret that has no recognisable shape of its own
// and is known only by the name it is assigned to: an AWS secret access key
// is 40 characters of base64, indistinguishable from any other string
// except by its key ("aws_secret_access_key=wJalr...", the shared
// credentials file and the environment variable alike).
var reKeyedSecret = lazy(`(?i)\baws_secret_access_key["']?\s*[:=]\s*["']?([A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)`)

// reKeyedParam matches an API key, access token, client secret or password
// assigned by name, as in a request URL proxied into an error
// ("...?city=Paris&api_key=sk9f...": issue 25 item 4). The value must hold a
// letter and a digit, so a placeholder such as YOUR_API_KEY is not one.
var reKeyedParam = lazy(`(?i)\b(api[_-]?key|access[_-]?token|auth[_-]?token|client[_-]?secret|secret[_-]?key|password|passwd)["']?\s*[:=]\s*["']?([A-Za-z0-9._~+/-]{16,})`)

// keyedParamHints are reKeyedParam's literal prefixes, lower-cased.
var keyedParamHints = []string{"api_key", "api-key", "apikey", "access_token", "access-token", "accesstoken", "auth_token", "auth-token", "authtoken",
	"client_secret", "client-secret", "clientsecret", "secret_key", "secret-key", "secretkey", "password", "passwd"}

func hasLetterAndDigit(v string) bool {
	return strings.ContainsAny(v, "0123456789") && strings.ContainsAny(strings.ToLower(v), "abcdefghijklmnopqrstuvwxyz")
}

// keyedSecrets finds credentials known by their key in the model-visible
// segments; anything the caller sent is not a leak.
func keyedSecrets(in *input) []Leak {
	var out []Leak
	echo, echoed := "", false
	for _, seg := range in.raw {
		s := seg.s
		if len(s) > maxScanBytes {
			s = s[:maxScanBytes]
		}
		low := seg.lower[:len(s)]
		if slices.ContainsFunc(keyedParamHints, func(h string) bool { return strings.Contains(low, h) }) {
			for _, m := range reKeyedParam.FindAllStringSubmatchIndex(s, 4) {
				v := s[m[4]:m[5]]
				if !hasLetterAndDigit(v) {
					continue
				}
				if !echoed {
					echo, echoed = in.echoes(), true
				}
				if echo != "" && strings.Contains(echo, v) {
					continue
				}
				out = append(out, Leak{Kind: LeakCredential, Where: fmt.Sprintf("%s[%d:%d]", seg.label, m[4], m[5]),
					Evidence: s[m[2]:m[3]] + " " + redact(v)})
			}
		}
		if !strings.Contains(low, "aws_secret_access_key") {
			continue
		}
		for _, m := range reKeyedSecret.FindAllStringSubmatchIndex(s, 4) {
			v := s[m[2]:m[3]]
			if !echoed {
				echo, echoed = in.echoes(), true
			}
			if echo != "" && strings.Contains(echo, v) {
				continue
			}
			out = append(out, Leak{Kind: LeakCredential, Where: fmt.Sprintf("%s[%d:%d]", seg.label, m[2], m[3]),
				Evidence: "AWS secret access key " + redact(v)})
		}
	}
	return out
}
