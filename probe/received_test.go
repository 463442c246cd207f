package probe

import (
	"context"
	"testing"
)

// TestReceivedKeepsNoListPages: the messages kept for the secret search
// hold no listing page (one may be 16 MiB, and the result keeps its items);
// the other messages of the run are kept.
func TestReceivedKeepsNoListPages(t *testing.T) {
	res := Run(context.Background(), serve(t, newToolServer(memTools(validating(searchSchema)))), &Options{ProtocolVersion: "2025-11-25"})
	if !res.Liveness.HandshakeCompleted || len(res.Tools) != 2 {
		t.Fatalf("handshake %v, %d tools", res.Liveness.HandshakeCompleted, len(res.Tools))
	}
	methods := map[string]int{}
	for _, m := range res.Received {
		methods[m.Method]++
		if m.Kind == "result" && isListMethod(m.Method) {
			t.Errorf("a %s page was kept (%d bytes)", m.Method, len(m.Body))
		}
	}
	if methods["initialize"] == 0 || methods["tools/call"] == 0 {
		t.Errorf("kept messages by method %v, want the handshake and the probe answers", methods)
	}
}
