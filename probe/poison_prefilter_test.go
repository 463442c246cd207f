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
					for i := range s.load().alts {
						if re := s.alts[i].get(); re.MatchString(sent) {
							checked++
							if !s.pre[i].admits(lower) {
								t.Errorf("prefilter %v rules out %q, which %s matches", s.pre[i], sent, s.alts[i].expr)
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

// TestGrammarCompiles: the slots compile on first use, so a bad
// expression no longer panics when the package loads; every alternative
// of every slot (the rules' and the field checks') compiles here.
func TestGrammarCompiles(t *testing.T) {
	slots := append(allSlots(), crossFieldObject, fillOrder)
	n := 0
	for _, s := range slots {
		s.compileAll()
		n += len(s.alts)
	}
	if n < 300 {
		t.Fatalf("%d alternatives compiled; the grammar has about 310", n)
	}
}

// TestGrammarLazy: loading the package compiles no slot; matching one
// sentence loads only the slots its rules reach.
func TestGrammarLazy(t *testing.T) {
	fresh := or(`\bignore\b`, `\bforget\b`)
	if fresh.alts != nil || fresh.pre != nil {
		t.Fatal("or compiled its alternatives before first use")
	}
	if !fresh.MatchString("please forget it") || fresh.alts[0].re != nil {
		t.Errorf("the first alternative (prefilter 'ignore' fails) was compiled: %v", fresh.alts[0].re)
	}
	if fresh.alts[1].re == nil {
		t.Error("the matching alternative was not compiled")
	}
}
