package probe

import (
	"encoding/json"
	"strings"
	"testing"
)

// allSlots lists the slots of the grammar's rules.
func allSlots() []*slot {
	seen := map[*slot]bool{}
	var out []*slot
	for _, r := range intentRules {
		for _, s := range append(append(append([]*slot{}, r.parts...), r.any...), r.all...) {
			if !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	return out
}

// TestPrefilterSound: the prefilter only rules out; wherever an
// alternative of a slot matches a sentence of the corpus (attacks of both
// splits, every string of them), its prefilter admits the sentence.
func TestPrefilterSound(t *testing.T) {
	var texts []string
	for _, split := range []string{"tune", "heldout"} {
		for _, it := range loadAttacks(t, split) {
			b, _ := json.Marshal(it)
			var v any
			_ = json.Unmarshal(b, &v)
			walkJSONStrings(b, "", func(_, s string) { texts = append(texts, s) })
		}
	}
	checked := 0
	for _, text := range texts {
		for _, ident := range []bool{false, true} {
			v := normalize(text, ident)
			for _, sp := range sentenceSpans(v.text) {
				sent := v.text[sp[0]:sp[1]]
				lower := strings.ToLower(sent)
				for _, s := range allSlots() {
					for i, re := range s.alts {
						if re.MatchString(sent) {
							checked++
							if !s.pre[i].admits(lower) {
								t.Errorf("prefilter %v rules out %q, which %s matches", s.pre[i], sent, re)
							}
						}
					}
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no match checked")
	}
}
