package report_test

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpvet/mcpvet/results"
	"github.com/mcpvet/mcpvet/results/internal/fixture"
	"github.com/mcpvet/mcpvet/results/report"
)

func TestFormats(t *testing.T) {
	for _, tc := range []struct {
		kind report.Kind
		want []string
	}{
		{report.KindCensus, []string{"md", "html", "json", "csv"}},
		{report.KindTriage, []string{"table", "json", "junit", "sarif"}},
		{report.KindDiff, []string{"text", "json"}},
		{report.KindGrade, []string{"jsonl", "table"}},
		{"other", nil},
	} {
		if diff := cmp.Diff(tc.want, report.Formats(tc.kind)); diff != "" {
			t.Errorf("Formats(%s) (-want +got):\n%s", tc.kind, diff)
		}
	}
}

func TestFormat(t *testing.T) {
	for _, tc := range []struct {
		name       string
		kind       report.Kind
		in, want   string
		wantErrMsg string
	}{
		{"canonical", report.KindCensus, "md", "md", ""},
		{"alias", report.KindCensus, "Markdown", "md", ""},
		{"alias upper", report.KindCensus, "HTM", "html", ""},
		{"space", report.KindCensus, " csv ", "csv", ""},
		{"triage", report.KindTriage, "SARIF", "sarif", ""},
		{"diff", report.KindDiff, "json", "json", ""},
		{"census unknown", report.KindCensus, "pdf", "", `unknown report format "pdf": use one of md, html, json, csv`},
		{"triage unknown", report.KindTriage, "html", "", `unknown triage format "html": use one of table, json, junit, sarif`},
		{"diff unknown", report.KindDiff, "sarif", "", `unknown diff format "sarif": use one of text, json`},
		{"alias of another kind", report.KindTriage, "markdown", "", `unknown triage format "markdown": use one of table, json, junit, sarif`},
		{"empty", report.KindDiff, "", "", `unknown diff format "": use one of text, json`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := report.Format(tc.kind, tc.in)
			if tc.wantErrMsg == "" {
				if err != nil || got != tc.want {
					t.Errorf("Format(%s, %q) = %q, %v; want %q", tc.kind, tc.in, got, err, tc.want)
				}
				return
			}
			if err == nil || err.Error() != tc.wantErrMsg {
				t.Fatalf("Format(%s, %q) error = %v, want %q", tc.kind, tc.in, err, tc.wantErrMsg)
			}
			var ue *report.UnknownFormatError
			if !errors.Is(err, report.ErrUnknownFormat) || !errors.As(err, &ue) || ue.Kind != tc.kind || ue.Name != tc.in {
				t.Errorf("Format(%s, %q) error %#v is not an UnknownFormatError of its kind matching ErrUnknownFormat", tc.kind, tc.in, err)
			}
		})
	}
}

// TestRegistry: every registered format has a reporter of its kind, so
// the typed lookups never fail on a name Formats lists.
func TestRegistry(t *testing.T) {
	for _, name := range report.Formats(report.KindCensus) {
		if r, err := report.Census(name); err != nil || r == nil {
			t.Errorf("Census(%q) = %v, %v", name, r, err)
		}
	}
	for _, name := range report.Formats(report.KindTriage) {
		if r, err := report.Triage(name); err != nil || r == nil {
			t.Errorf("Triage(%q) = %v, %v", name, r, err)
		}
	}
	for _, name := range report.Formats(report.KindDiff) {
		if r, err := report.Diff(name); err != nil || r == nil {
			t.Errorf("Diff(%q) = %v, %v", name, r, err)
		}
	}
}

// TestUnknownFormatWritesNothing: each kind of report rejects an unknown
// format the same way, before writing a byte.
func TestUnknownFormatWritesNothing(t *testing.T) {
	st, _, id := fixture.Store(t)
	for name, write := range map[string]func(*bytes.Buffer) error{
		"census": func(b *bytes.Buffer) error {
			return report.WriteScan(context.Background(), b, st, id, "xml", nil)
		},
		"triage": func(b *bytes.Buffer) error { return report.WriteTriage(b, &results.Triage{}, "xml", nil) },
		"diff":   func(b *bytes.Buffer) error { return report.WriteDiff(b, &results.Diff{}, "xml") },
	} {
		var b bytes.Buffer
		err := write(&b)
		if !errors.Is(err, report.ErrUnknownFormat) {
			t.Errorf("%s: error %v, want ErrUnknownFormat", name, err)
		}
		if b.Len() != 0 {
			t.Errorf("%s: wrote %d bytes", name, b.Len())
		}
	}
}
