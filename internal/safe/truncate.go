package safe

// Ellipsis is the mark [Truncate] appends to text shown to people.
const Ellipsis = "…"

// Truncate cuts s to at most n bytes, backing up to the start of a rune so
// that no UTF-8 sequence is split, and appends mark when it cut (the mark
// is not counted in n). Text shown to people is marked with [Ellipsis];
// text that is analysed further (the grader's input) is cut unmarked, with
// mark "", so the mark cannot be read as part of what the server sent.
func Truncate(s string, n int, mark string) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + mark
}
