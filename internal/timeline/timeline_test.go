package timeline

import (
	"bytes"
	"regexp"
	"testing"
)

func TestMarkPrintsOnlyWhenOn(t *testing.T) {
	var b bytes.Buffer
	out, enabled = &b, false
	defer func() { enabled = false }()
	Mark("off")
	if b.Len() != 0 {
		t.Fatalf("off: printed %q", b.String())
	}
	enabled = true
	Mark("db open")
	if !regexp.MustCompile(`^timeline +[0-9]+\.[0-9] ms  db open\n$`).MatchString(b.String()) {
		t.Fatalf("on: printed %q", b.String())
	}
}
