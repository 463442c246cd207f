package main

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpvet/mcpvet/vocab"
)

// TestReadmeStatuses keeps the README's liveness table equal to
// vocab.Statuses, the one place the statuses are defined.
func TestReadmeStatuses(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	begin := strings.Index(s, "<!-- statuses:begin -->\n")
	end := strings.Index(s, "<!-- statuses:end -->")
	if begin < 0 || end < begin {
		t.Fatal("README.md lacks the <!-- statuses:begin/end --> markers")
	}
	got := s[begin+len("<!-- statuses:begin -->\n") : end]
	var b strings.Builder
	b.WriteString("| status | meaning |\n| --- | --- |\n")
	for _, st := range vocab.Statuses {
		fmt.Fprintf(&b, "| `%s` | %s |\n", st.Status, st.Meaning)
	}
	if diff := cmp.Diff(b.String(), got); diff != "" {
		t.Errorf("README liveness table differs from vocab.Statuses (-want +got):\n%s", diff)
	}
}
