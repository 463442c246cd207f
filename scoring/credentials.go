package scoring

import (
	"fmt"
	"regexp"
	"strings"
)

// reKeyedSecret matches a secret that has no recognisable shape of its own
// and is known only by the name it is assigned to: an AWS secret access key
// is 40 characters of base64, indistinguishable from any other string
// except by its key ("aws_secret_access_key=wJalr...", the shared
// credentials file and the environment variable alike).
var reKeyedSecret = regexp.MustCompile(`(?i)\baws_secret_access_key["']?\s*[:=]\s*["']?([A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)`)

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
		if !strings.Contains(seg.lower[:len(s)], "aws_secret_access_key") {
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
