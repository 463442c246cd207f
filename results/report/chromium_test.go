package report_test

import (
	"bytes"
	"context"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcpvet/mcpvet/internal/testenv"
)

// chromiumPath finds a headless-capable Chromium, or "".
func chromiumPath() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// chromium runs a headless Chromium on a file with extra flags and
// returns its stdout and stderr (console messages are logged there).
func chromium(t *testing.T, bin, file string, flags ...string) (stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + t.TempDir(), "--enable-logging=stderr", "--v=0"}, flags...)
	args = append(args, "file://"+file)
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.WaitDelay = 10 * time.Second
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %s: %v\nstderr:\n%s", strings.Join(flags, " "), err, errb.String())
	}
	return out.String(), errb.String()
}

// consoleProblems returns the console messages, uncaught errors and
// policy violations Chromium logged.
func consoleProblems(stderr string) []string {
	var out []string
	for line := range strings.SplitSeq(stderr, "\n") {
		l := strings.ToLower(line)
		if strings.Contains(l, "console") || strings.Contains(l, "uncaught") || strings.Contains(l, "content security policy") {
			out = append(out, line)
		}
	}
	return out
}

// TestReportChromium renders the HTML report of the fixture (with its
// hostile server) in headless Chromium: the DOM must show the hostile
// strings as text with no injected element, the sort script must have
// run under the page's Content-Security-Policy, the console must stay
// silent, and a phone-sized screenshot must be produced.
func TestReportChromium(t *testing.T) {
	bin := chromiumPath()
	if bin == "" {
		testenv.Need(t, "chromium is not installed (apt-get install -y chromium); CI installs it and runs this test")
	}
	if testing.Short() {
		t.Skip("skipping the browser test in -short mode")
	}
	dir := t.TempDir()

	// The console check must be able to fail: a page with an error and a
	// log line is flagged.
	bad := filepath.Join(dir, "bad.html")
	if err := os.WriteFile(bad, []byte(`<!DOCTYPE html><html><body><script>console.log("x"); undefinedFunction()</script></body></html>`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stderr := chromium(t, bin, bad, "--dump-dom"); len(consoleProblems(stderr)) == 0 {
		t.Fatalf("the console check did not notice an uncaught error; chromium stderr:\n%s", stderr)
	}

	out, _ := writeFixtureReport(t, "html", 0)
	page := filepath.Join(dir, "report.html")
	if err := os.WriteFile(page, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	dom, stderr := chromium(t, bin, page, "--dump-dom")
	if p := consoleProblems(stderr); len(p) > 0 {
		t.Errorf("console messages while loading the report:\n%s", strings.Join(p, "\n"))
	}
	if !strings.Contains(dom, "</html>") {
		t.Fatalf("chromium dumped no DOM:\n%.2000s", dom)
	}
	elements := regexp.MustCompile(`<(script|img|iframe|object|embed)\b`).FindAllString(dom, -1)
	if len(elements) != 1 || elements[0] != "<script" {
		t.Errorf("DOM elements of active kinds = %q, want only the report's one <script", elements)
	}
	if strings.ContainsAny(dom, "\x1b\x07") {
		t.Error("DOM contains terminal control characters")
	}
	for _, text := range []string{
		"&lt;script&gt;alert(1)&lt;/script&gt;",             // the tool description, as text
		"io.github.evil/&lt;img src=x onerror=alert(2)&gt;", // the server name, as text
		"syntax error", // the probe text with its escape removed
	} {
		if !strings.Contains(dom, text) {
			t.Errorf("DOM lacks the text %q", text)
		}
	}
	// The sort script makes every header of the server table focusable;
	// tabindex in the DOM proves it ran, so the CSP hash is right.
	table := dom[strings.Index(dom, `id="server-table"`):]
	table = table[:strings.Index(table, "</thead>")]
	if n := strings.Count(table, `tabindex="0"`); n != 10 {
		t.Errorf("server table has %d focusable headers, want 10 (version column included): the sort script did not run", n)
	}

	shot := filepath.Join(dir, "phone.png")
	_, stderr = chromium(t, bin, page, "--screenshot="+shot, "--window-size=390,844", "--hide-scrollbars")
	if p := consoleProblems(stderr); len(p) > 0 {
		t.Errorf("console messages while taking the screenshot:\n%s", strings.Join(p, "\n"))
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot is not a PNG: %v", err)
	}
	b := img.Bounds()
	if b.Dx() != 390 || b.Dy() != 844 {
		t.Errorf("screenshot is %dx%d, want 390x844", b.Dx(), b.Dy())
	}
	// A rendered page has text: many distinct colours, not a blank frame.
	colours := map[[3]uint32]bool{}
	for y := b.Min.Y; y < b.Max.Y; y += 3 {
		for x := b.Min.X; x < b.Max.X; x += 3 {
			r, g, bl, _ := img.At(x, y).RGBA()
			colours[[3]uint32{r >> 8, g >> 8, bl >> 8}] = true
		}
	}
	if len(colours) < 10 {
		t.Errorf("screenshot has %d colours; the page did not render", len(colours))
	}
	if dst := os.Getenv("MCPVET_REPORT_SCREENSHOT"); dst != "" {
		data, _ := os.ReadFile(shot)
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			t.Error(err)
		}
	}
}
