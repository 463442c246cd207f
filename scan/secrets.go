package scan

import (
	"encoding/json"
	"sort"
	"strings"

	"github.com/mcpvet/mcpvet/internal/lazyre"
	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/sandbox"
	"github.com/mcpvet/mcpvet/vocab"
)

// minMasked is the shortest configured value that is masked: shorter ones
// ("1", "true", "debug") would mask unrelated text and are not secrets.
const minMasked = 8

// credentialName matches variable and header names that hold credentials.
var credentialName = lazyre.New(`(?i)(?:API[_-]?KEY|APIKEY|ACCESS[_-]?KEY|SECRET|TOKEN|PASSWORD|PASSWD|CREDENTIAL|AUTH|BEARER|COOKIE|SESSION|PRIVATE[_-]?KEY|(?:^|[_-])PAT$)`)

// configuredSecrets returns the credentials the user configured for a
// plan (values of its env and headers whose names say they are
// credentials, unless they are a registry's public defaults, and of --env
// overrides): by the name they are shown under, to be masked in what is
// stored, and under "NAME (configured)" for the secret search, which
// looks for them like canaries. (The stored plan holds no value at all;
// see [vocab.Plan.Stored].)
func configuredSecrets(plan *vocab.Plan, so *sandbox.Options) (mask, detect map[string]string) {
	mask, detect = map[string]string{}, map[string]string{}
	add := func(label, name, v string) {
		// Only values whose names say they are credentials: masking every
		// configured value would mask paths, modes and words of the
		// protocol itself.
		if len(v) < minMasked || !credentialName.MatchString(name) {
			return
		}
		mask[label] = v
		detect[label+" (configured)"] = v
		// "Bearer TOKEN": the token alone is the secret.
		if _, tok, ok := strings.Cut(v, " "); ok && len(tok) >= minMasked {
			mask[label+" token"] = tok
			detect[label+" (configured)"] = tok
		}
	}
	if !plan.Untrusted() {
		for k, v := range plan.Env {
			add(k, k, v)
		}
		for k, v := range plan.Headers {
			add("header "+k, k, v)
		}
	}
	if so != nil {
		for k, v := range so.Env {
			add(k, k, v)
		}
	}
	return mask, detect
}

// maskResult replaces every configured value in what res stores (listings,
// responses, stderr, findings, ...) with "[secret NAME]", so that a
// server echoing a user's token does not put it in the database or a
// report. It works on the JSON encoding, where each value is replaced in
// its JSON-escaped form.
func maskResult(res *probe.Result, mask map[string]string) *probe.Result {
	if len(mask) == 0 {
		return res
	}
	b, err := json.Marshal(res)
	if err != nil {
		return res
	}
	names := make([]string, 0, len(mask))
	for k := range mask {
		names = append(names, k)
	}
	// Longer values first, so a value containing another is replaced whole.
	sort.Slice(names, func(i, j int) bool {
		if len(mask[names[i]]) != len(mask[names[j]]) {
			return len(mask[names[i]]) > len(mask[names[j]])
		}
		return names[i] < names[j]
	})
	var pairs []string
	for _, name := range names {
		ev, _ := json.Marshal(mask[name])
		en, _ := json.Marshal("[secret " + name + "]")
		pairs = append(pairs, string(ev[1:len(ev)-1]), string(en[1:len(en)-1]))
	}
	masked := strings.NewReplacer(pairs...).Replace(string(b))
	if masked == string(b) {
		return res
	}
	var out probe.Result
	if json.Unmarshal([]byte(masked), &out) != nil {
		return res
	}
	out.Received, out.ReceivedDropped = res.Received, res.ReceivedDropped
	return &out
}
