package scoring

import (
	"encoding/json"
	"testing"
)

// TestRetryableField: a boolean retryable field says whether retrying
// helps only when it is false ("never") or comes with a delay; a bare
// true says nothing about when or how, so it does not pass on its own.
func TestRetryableField(t *testing.T) {
	tests := []struct {
		name       string
		structured string
		want       bool
		evidence   string
	}{
		{"false means never", `{"code":"card_blocked","retryable":false}`, true, "structuredContent.retryable = false"},
		{"true alone says nothing", `{"code":"card_blocked","retryable":true}`, false, ""},
		{"true with a delay", `{"code":"rate_limited","retryable":true,"retry_after_seconds":30}`, true, "structuredContent.retryable = true with structuredContent.retry_after_seconds = 30"},
		{"a delay alone", `{"code":"rate_limited","retryAfterSeconds":30}`, true, "structuredContent.retryAfterSeconds = 30"},
		{"a string value", `{"code":"card_blocked","retryable":"never"}`, true, `structuredContent.retryable = "never"`},
		{"an unknown string value", `{"code":"card_blocked","retryable":"maybe"}`, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Response{Kind: KindRuntime, Method: "tools/call", Tool: "charge_card", Class: ClassToolError,
				ProtocolVersion: "2025-11-25", Text: "Card declined.", StructuredContent: json.RawMessage(tt.structured)}
			g := Grade(r, Context{ToolNames: []string{"charge_card"}})
			if got := g.Pass(ElemRetryable); got != tt.want {
				t.Fatalf("retryable pass = %v, want %v (%s)", got, tt.want, evidenceOf(g, ElemRetryable))
			}
			if tt.evidence != "" && evidenceOf(g, ElemRetryable) != tt.evidence {
				t.Errorf("evidence = %q, want %q", evidenceOf(g, ElemRetryable), tt.evidence)
			}
		})
	}
}

// TestRetryableAtTextEnd: a retry statement that ends the text (no stop,
// no trailing space) is read like any other. The scans past the match
// (nextWord, neverAddressed) stop at the end of the text; the mutants
// `i < len(s)` -> `<=` at elem_retryable.go:58, 62 and 88 read one byte
// past it and lived through the whole suite, since every text there ended
// in a stop or more words.
func TestRetryableAtTextEnd(t *testing.T) {
	c := Context{ToolNames: []string{"charge"}}
	for _, text := range []string{
		"Payment failed. Do not retry",      // the match ends the text
		"Payment failed. Do not retry this", // the word after "this" is the end
		"Rate limited: wait 5s",             // the word after "wait" runs to the end
	} {
		g := Grade(Response{Kind: KindRuntime, Method: "tools/call", Tool: "charge", Class: ClassToolError, ProtocolVersion: "2025-11-25", Text: text}, c)
		if !g.Pass(ElemRetryable) {
			t.Errorf("%q: retryable failed (%s)", text, evidenceOf(g, ElemRetryable))
		}
	}
}
