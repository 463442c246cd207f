package canary

import (
	"bytes"
	"encoding/base64"
	"strings"
	"testing"
)

// TestNeedlesAnyPrecedingBytes: a base64 needle depends on the value only,
// so the value is found inside base64 text whatever bytes precede it, at
// each of the three alignments, in both alphabets. The preceding bytes
// include ones whose low bits are set (0xff, 0x03, 0x0f): a needle that
// kept the first character straddling the boundary would still match
// after zero or 'p' bytes (low bits clear) and miss here. (Issue 26: the
// hand mutant lo = (8*k)/6 lived through TestNeedlesBase64Alignments.)
func TestNeedlesAnyPrecedingBytes(t *testing.T) {
	ns := Needles(map[string]string{"API_KEY": testSecret})
	encs := map[string]*base64.Encoding{"base64": base64.StdEncoding, "base64url": base64.URLEncoding}
	for name, enc := range encs {
		for k := range 3 {
			for _, b := range []byte{0x00, 'p', 0xff, 0x03, 0x0f, 0xfc} {
				text := enc.EncodeToString(append(bytes.Repeat([]byte{b}, k), testSecret...))
				found := false
				for _, n := range ns {
					// A url-safe form identical to the standard one is kept
					// once, as base64.
					if strings.HasPrefix(n.Enc, "base64") && strings.Contains(text, n.Text) {
						found = true
					}
				}
				if !found {
					t.Errorf("%s: no needle in %q (%d bytes 0x%02x before the value)", name, text, k, b)
				}
			}
		}
	}
}
