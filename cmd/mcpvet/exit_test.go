package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/spf13/cobra"

	"github.com/mcpvet/mcpvet/results"
	"github.com/mcpvet/mcpvet/results/report"
	"github.com/mcpvet/mcpvet/scan"
)

// realEINVAL returns the error the kernel gives for a seek with an unknown
// whence: a *PathError wrapping syscall.EINVAL, whose text ends in
// "invalid argument".
func realEINVAL(t *testing.T) error {
	t.Helper()
	f, err := os.Open(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	_, err = f.Seek(0, 99)
	if !errors.Is(err, syscall.EINVAL) {
		t.Fatalf("seek with whence 99: %v, want EINVAL", err)
	}
	return err
}

// TestExitCodeOf maps every sentinel to its documented code (README "Exit
// codes"), by errors.Is alone: an error's text decides nothing.
func TestExitCodeOf(t *testing.T) {
	einval := realEINVAL(t)
	tests := []struct {
		name string
		err  error
		want int
	}{
		{"nil", nil, exitOK},
		{"findings", errFindings, exitFindings},
		{"findings wrapped", fmt.Errorf("gate: %w", errFindings), exitFindings},
		{"grade input", errGradeInput, exitFindings},
		{"usage", usagef("--format %q: not a format", "x"), exitUsage},
		{"usage wrapped", fmt.Errorf("resume: %w", usageError{errors.New("bad")}), exitUsage},
		{"unknown format", fmt.Errorf("writing: %w", &report.UnknownFormatError{Kind: report.KindDiff, Name: "xml", Valid: []string{"text"}}), exitUsage},
		{"infrastructure", errors.New("registry: 502 Bad Gateway"), exitFailed},
		{"database open", &results.OpenError{Path: "x.db", Err: errors.New("file is not a database")}, exitFailed},
		// A scan failing with EINVAL used to exit 2: its text, "invalid
		// argument", looked like one of cobra's usage errors.
		{"EINVAL from a scan", fmt.Errorf("scan: saving run: %w", einval), exitFailed},
		{"cobra-like text is not usage", errors.New(`accepts 1 arg(s), received 2`), exitFailed},
		{"partial scan", errPartial, exitPartial},
		{"partial probe", errProbeInterrupted, exitPartial},
		{"partial triage", errTriageInterrupted, exitPartial},
		{"scan interrupted wrapped", fmt.Errorf("%w (%w)", errPartial, scan.ErrInterrupted), exitPartial},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := exitCodeOf(tt.err); got != tt.want {
				t.Errorf("exitCodeOf(%v) = %d, want %d", tt.err, got, tt.want)
			}
		})
	}
}

// TestRunExitCodes runs the CLI for each documented exit code that a
// command line can reach without a server, and checks that errors cobra
// returns before RunE (flags, arguments, unknown commands) exit 2 without
// matching their text.
func TestRunExitCodes(t *testing.T) {
	dir := t.TempDir()
	notDB := filepath.Join(dir, "notes.db")
	if err := os.WriteFile(notDB, bytes.Repeat([]byte("not a database\n"), 400), 0o600); err != nil {
		t.Fatal(err)
	}
	malformed := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(malformed, []byte("{not json\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		args       []string
		want       int
		wantStderr string // a substring; "" for an empty stderr
	}{
		{"version", []string{"version"}, exitOK, ""},
		{"grade malformed line", []string{"grade", malformed}, exitFindings, "bad.jsonl:1: not a JSON object"},
		{"unknown flag", []string{"version", "--bogus"}, exitUsage, "unknown flag: --bogus"},
		{"unknown shorthand", []string{"report", "-Z"}, exitUsage, "unknown shorthand flag"},
		{"bad flag value", []string{"scan", "--concurrency", "many"}, exitUsage, "invalid argument"},
		{"flag needs an argument", []string{"report", "--db"}, exitUsage, "flag needs an argument"},
		{"unknown command", []string{"bogus"}, exitUsage, `unknown command "bogus"`},
		{"extra argument (NoArgs)", []string{"version", "extra"}, exitUsage, "unknown command"},
		{"too few arguments (MinimumNArgs)", []string{"results", "merge", "out.db"}, exitUsage, "requires at least 2 arg(s)"},
		{"negative timeout", []string{"--timeout", "-1s", "version"}, exitUsage, "--timeout -1s"},
		{"bad format", []string{"grade", "--format", "yaml", malformed}, exitUsage, "--format: unknown grade format \"yaml\""},
		{"database cannot be opened", []string{"report", "--db", notDB, "--format", "csv"}, exitFailed, notDB},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			got := run(tt.args, &out, &errb)
			if got != tt.want {
				t.Errorf("run(%q) = %d, want %d; stderr:\n%s", tt.args, got, tt.want, errb.String())
			}
			if tt.wantStderr != "" && !strings.Contains(errb.String(), tt.wantStderr) {
				t.Errorf("stderr = %q, want it to contain %q", errb.String(), tt.wantStderr)
			}
		})
	}
}

// TestTimeoutCancelledWhenRunEFails checks that the --timeout context is
// released by run even when RunE returns an error, which makes cobra skip
// its post-run hooks.
func TestTimeoutCancelledWhenRunEFails(t *testing.T) {
	g := &globalFlags{}
	var seen context.Context
	root := newRoot(&bytes.Buffer{}, &bytes.Buffer{}, g)
	for _, c := range root.Commands() {
		if c.Name() == "version" {
			c.RunE = func(cmd *cobra.Command, _ []string) error {
				seen = cmd.Context()
				return errors.New("boom")
			}
		}
	}
	root.SetArgs([]string{"--timeout", "1h", "version"})
	func() {
		defer g.release()
		if err := root.ExecuteContext(context.Background()); err == nil {
			t.Fatal("RunE error lost")
		}
	}()
	if seen == nil {
		t.Fatal("RunE did not run")
	}
	if seen.Err() == nil {
		t.Error("--timeout context still live after the command returned")
	}
}
