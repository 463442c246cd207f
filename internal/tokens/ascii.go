package tokens

// asciiSplit calls piece with each piece of the pre-split of an ASCII text,
// as o200k_base's regexp cuts it, without the regexp: for ASCII the
// pattern's classes are [A-Z] (upper), [a-z] (lower), [0-9] (digits),
// [ \t\n\v\f\r] (white space) and the rest (punctuation), and its
// backtracking has a closed form. The regexp engine spent most of a
// grading in Unicode class lookups; TestCountMatchesTiktokenGo and
// TestASCIISplitMatchesRegexp compare the two.
func asciiSplit(s string, piece func(string)) {
	for i := 0; i < len(s); {
		j := asciiMatch(s, i)
		piece(s[i:j])
		i = j
	}
}

func isUpper(c byte) bool { return 'A' <= c && c <= 'Z' }
func isLower(c byte) bool { return 'a' <= c && c <= 'z' }
func isDigit(c byte) bool { return '0' <= c && c <= '9' }
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}
func isLetter(c byte) bool { return isUpper(c) || isLower(c) }

// isPrefix is [^\r\n\p{L}\p{N}].
func isPrefix(c byte) bool { return c != '\r' && c != '\n' && !isLetter(c) && !isDigit(c) }

// isPunct is [^\s\p{L}\p{N}].
func isPunct(c byte) bool { return !isSpace(c) && !isLetter(c) && !isDigit(c) }

// contraction returns the end of (?i:'s|'t|'re|'ve|'m|'ll|'d) at i, or i.
func contraction(s string, i int) int {
	if i >= len(s) || s[i] != '\'' || i+1 >= len(s) {
		return i
	}
	low := func(k int) byte {
		if k < len(s) && isUpper(s[k]) {
			return s[k] + 32
		}
		if k < len(s) {
			return s[k]
		}
		return 0
	}
	switch low(i + 1) {
	case 's', 't', 'm', 'd':
		return i + 2
	case 'r', 'v':
		if low(i+2) == 'e' {
			return i + 3
		}
	case 'l':
		if low(i+2) == 'l' {
			return i + 3
		}
	}
	return i
}

// letters returns where the run of [A-Z] from start ends, and where the
// run of [a-z] after it ends.
func letters(s string, start int) (upper, lower int) {
	upper = start
	for upper < len(s) && isUpper(s[upper]) {
		upper++
	}
	lower = upper
	for lower < len(s) && isLower(s[lower]) {
		lower++
	}
	return upper, lower
}

// asciiMatch returns the end of the piece that starts at i.
func asciiMatch(s string, i int) int {
	// Alternatives 1, [A-Z]*[a-z]+, and 2, [A-Z]+[a-z]*, each followed
	// by a contraction. The regexp tries alternative 1 with the optional
	// prefix, then without it, then alternative 2 the same way.
	for alt := 1; alt <= 2; alt++ {
		for _, start := range []int{i + 1, i} {
			if start == i+1 && !isPrefix(s[i]) {
				continue
			}
			upper, lower := letters(s, start)
			if alt == 1 && lower > upper || alt == 2 && upper > start {
				return contraction(s, lower)
			}
		}
	}
	c := s[i]
	// 3: \p{N}{1,3}
	if isDigit(c) {
		k := i + 1
		for k < len(s) && k < i+3 && isDigit(s[k]) {
			k++
		}
		return k
	}
	// 4: ` ?[^\s\p{L}\p{N}]+[\r\n/]*`
	for _, start := range []int{i + 1, i} {
		if start == i+1 && c != ' ' {
			continue
		}
		k := start
		for k < len(s) && isPunct(s[k]) {
			k++
		}
		if k > start {
			for k < len(s) && (s[k] == '\r' || s[k] == '\n' || s[k] == '/') {
				k++
			}
			return k
		}
	}
	// White space: c is white space here (every other byte matched above).
	end := i
	lastNL := -1
	for end < len(s) && isSpace(s[end]) {
		if s[end] == '\r' || s[end] == '\n' {
			lastNL = end
		}
		end++
	}
	// 5: \s*[\r\n]+
	if lastNL >= 0 {
		return lastNL + 1
	}
	// 6: \s+(?!\S)
	if end == len(s) {
		return end
	}
	if end-i >= 2 {
		return end - 1
	}
	// 7: \s+
	return end
}
