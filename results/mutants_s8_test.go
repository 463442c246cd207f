package results

import (
	"testing"
	"time"
)

// TestParseTimeForms: a stored time reads back as written, a time someone
// wrote by hand in any RFC 3339 form is read too (in UTC), and anything
// else is an error naming the text (store.go:442:9 `err != nil` -> `==`
// returned the zero time for a hand-written time; :444:56 `err2 == nil`
// -> `!=` refused it; both lived).
func TestParseTimeForms(t *testing.T) {
	at := time.Date(2026, 12, 2, 3, 4, 5, 123456000, time.UTC)
	for _, c := range []struct {
		in   string
		want time.Time
	}{
		{formatTime(at), at},
		{"2026-12-02T03:04:05Z", time.Date(2026, 12, 2, 3, 4, 5, 0, time.UTC)},
		{"2026-12-02T05:04:05.5+02:00", time.Date(2026, 12, 2, 3, 4, 5, 500000000, time.UTC)},
	} {
		got, err := parseTime(c.in)
		if err != nil || !got.Equal(c.want) || got.Location() != time.UTC {
			t.Errorf("parseTime(%q) = %v, %v; want %v in UTC", c.in, got, err, c.want)
		}
	}
	if _, err := parseTime("yesterday"); err == nil {
		t.Errorf("parseTime(yesterday): no error")
	}
}
