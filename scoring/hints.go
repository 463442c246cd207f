package scoring

import "strings"

// The hint index finds, in one pass over a text, which guarded regexps can
// possibly match it: each guard's literal hints are indexed by their first
// two bytes, and a text's hint mask has bit i set when a hint of guard i
// occurs. This replaces hundreds of substring searches per response.

// maxGuards is the number of guards a mask can hold.
const maxGuards = 64

var (
	nGuards int
	// hintHead maps the first two bytes of a hint to 1 + its index in
	// hintLists, or 0.
	hintHead  [1 << 16]uint16
	hintLists [][]hintEntry
)

type hintEntry struct {
	hint string
	mask uint64
}

// register gives g an id and indexes its hints. One-byte hints cannot be
// indexed; they are checked with strings.Contains.
func (g *guarded) register() {
	if nGuards == maxGuards {
		panic("scoring: too many guarded regexps")
	}
	g.mask = 1 << nGuards
	nGuards++
	for _, h := range g.hints {
		if len(h) < 2 {
			g.short = append(g.short, h)
			continue
		}
		k := uint16(h[0])<<8 | uint16(h[1])
		if hintHead[k] == 0 {
			hintLists = append(hintLists, nil)
			hintHead[k] = uint16(len(hintLists))
		}
		i := hintHead[k] - 1
		hintLists[i] = append(hintLists[i], hintEntry{hint: h, mask: g.mask})
	}
}

// hintMask returns the mask of guards with a hint in s.
func hintMask(s string) uint64 {
	var m uint64
	for i := 0; i+1 < len(s); i++ {
		h := hintHead[uint16(s[i])<<8|uint16(s[i+1])]
		if h == 0 {
			continue
		}
		for _, e := range hintLists[h-1] {
			if m&e.mask == 0 && strings.HasPrefix(s[i:], e.hint) {
				m |= e.mask
			}
		}
	}
	return m
}

// hit reports whether g can match s, whose hint mask is mask.
func (g guarded) hit(s string, mask uint64) bool {
	if g.pre != nil {
		return g.pre(s)
	}
	if mask&g.mask != 0 {
		return true
	}
	for _, h := range g.short {
		if strings.Contains(s, h) {
			return true
		}
	}
	return len(g.hints) == 0
}
