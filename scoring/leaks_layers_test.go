package scoring

import (
	"bytes"
	"compress/gzip"
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/mcpvet/mcpvet/probe"
)

// TestSecretLeaksByConstruction: the transforms of issue 22 item 8 in a
// tool answer, in notifications and on stderr. Before, each row gave no
// leaks/secret finding (the split with a separator ended keep); now each
// gives one.
func TestSecretLeaksByConstruction(t *testing.T) {
	const canary = "mcpvet-canary-0a1b2c3d4e5f6789"
	secrets := map[string]string{"API_KEY": canary}
	gz := func(s string) []byte {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		w.Write([]byte(s))
		w.Close()
		return b.Bytes()
	}
	var u16 []byte
	for _, u := range utf16.Encode([]rune(canary)) {
		u16 = append(u16, byte(u), byte(u>>8))
	}
	rev := []rune(canary)
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	answer := func(text string) []probe.Message {
		body, _ := json.Marshal(map[string]any{"content": []map[string]string{{"type": "text", "text": text}}})
		return []probe.Message{{Kind: "result", Method: "tools/call", Name: "dump", Body: body}}
	}
	notes := func(parts ...string) []probe.Message {
		var out []probe.Message
		for _, p := range parts {
			body, _ := json.Marshal(map[string]any{"level": "info", "data": p})
			out = append(out, probe.Message{Kind: "notification", Method: "notifications/message", Body: body})
		}
		return out
	}
	b64 := base64.StdEncoding.EncodeToString
	cases := []struct {
		name string
		msgs []probe.Message
		tail string
		code string
	}{
		{"gzip+base64", answer(b64(gz(canary))), "", CodeLeaksSecret},
		{"base32", answer(base32.StdEncoding.EncodeToString([]byte(canary))), "", CodeLeaksSecret},
		{"double base64", answer(b64([]byte(b64([]byte(canary))))), "", CodeLeaksSecret},
		{"reversed", answer(string(rev)), "", CodeLeaksSecret},
		{"upper case", answer(strings.ToUpper(canary)), "", CodeLeaksSecret},
		{"UTF-16 hex", answer(hex.EncodeToString(u16)), "", CodeLeaksSecret},
		{"zero-width", answer(strings.Join(strings.Split(canary, ""), "\u200b")), "", CodeLeaksSecret},
		{"split with separator", answer("part1=" + canary[:15] + " part2=" + canary[15:]), "", CodeLeaksSecret},
		{"split with pipes", answer(canary[:10] + "|" + canary[10:20] + "|" + canary[20:]), "", CodeLeaksSecret},
		{"split over three notifications", notes(canary[:10], canary[10:20], canary[20:]), "", CodeLeaksSecret},
		{"gzipped resource blob", []probe.Message{{Kind: "result", Method: "resources/read", Name: "file:///x", Body: json.RawMessage(`{"contents":[{"uri":"file:///x","blob":"` + b64(gz("config\nkey="+canary+"\n")) + `"}]}`)}}, "", CodeLeaksSecret},
		{"base32 on stderr", nil, "boot ok\nkey " + base32.StdEncoding.EncodeToString([]byte(canary)) + "\n", probe.CodeLeaksSecretStderr},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := &probe.Result{Received: tc.msgs}
			res.Liveness.StderrTail = tc.tail
			fs := SecretLeaks(res, secrets)
			found := false
			for _, f := range fs {
				if f.Code == tc.code {
					found = true
				}
			}
			if !found {
				t.Errorf("SecretLeaks = %+v, want %s", fs, tc.code)
			}
		})
	}
}
