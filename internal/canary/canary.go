// Package canary computes the searched forms of secret values: verbatim,
// hex, and base64 at every byte alignment. The grader (package scoring)
// searches server messages with them; the sandbox searches stderr as it
// streams.
package canary

import (
	"encoding/base64"
	"encoding/hex"
	"sort"
	"strings"
)

// MinLen is the shortest value searched for: shorter ones would match by
// chance.
const MinLen = 6

// A Needle is one form in which a secret may appear.
type Needle struct {
	Text string
	// Name is the secret's variable.
	Name string
	// Enc is "", "hex", "base64" or "base64url".
	Enc string
}

// Needles returns every searched form of every value of at least MinLen
// bytes, in a stable order. A base64 form is the part of the encoding that
// depends only on the value, whatever precedes it: for the alignment of k
// preceding bytes, the characters after the first ceil(8k/6) and before
// the last partial one. Searching those fixed strings finds the value
// inside any base64 text without decoding it at every offset.
func Needles(secrets map[string]string) []Needle {
	names := make([]string, 0, len(secrets))
	for name := range secrets {
		names = append(names, name)
	}
	sort.Strings(names)
	var out []Needle
	seen := map[string]bool{}
	add := func(text, name, enc string) {
		if len(text) >= MinLen && !seen[text] {
			seen[text] = true
			out = append(out, Needle{text, name, enc})
		}
	}
	for _, name := range names {
		v := secrets[name]
		if len(v) < MinLen {
			continue
		}
		add(v, name, "")
		h := hex.EncodeToString([]byte(v))
		add(h, name, "hex")
		add(strings.ToUpper(h), name, "hex")
		for k := range 3 {
			buf := append(make([]byte, k), v...)
			lo, hi := (8*k+5)/6, 8*(k+len(v))/6
			add(base64.StdEncoding.EncodeToString(buf)[lo:hi], name, "base64")
			add(base64.URLEncoding.EncodeToString(buf)[lo:hi], name, "base64url")
		}
	}
	return out
}
