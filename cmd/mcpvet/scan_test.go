package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3"

	"github.com/mcpvet/mcpvet/internal/testfixture"
)

// writeConfig writes a Claude Desktop config with n servers running bin,
// each with its own environment (entries that run the same command the
// same way are one server, probed once).
func writeConfig(t *testing.T, dir, bin string, n int) string {
	t.Helper()
	servers := map[string]any{}
	for i := range n {
		servers[fmt.Sprintf("s%03d", i)] = map[string]any{"command": bin, "args": []string{}, "env": map[string]string{"INSTANCE": fmt.Sprint(i)}}
	}
	data, _ := json.Marshal(map[string]any{"mcpServers": servers})
	path := filepath.Join(dir, "claude_desktop_config.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func countRuns(t *testing.T, db string) (runs, distinct int) {
	t.Helper()
	conn, err := sql.Open("sqlite3", "file:"+db+"?mode=ro&_busy_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.QueryRow("SELECT count(*), count(DISTINCT target_key) FROM runs").Scan(&runs, &distinct); err != nil {
		return 0, 0
	}
	return runs, distinct
}

// TestScanKillAndResume kills a real mcpvet process with SIGKILL halfway
// through 200 targets and resumes: exactly 200 runs, no duplicates.
func TestScanKillAndResume(t *testing.T) {
	if testing.Short() {
		t.Skip("launches 200 servers")
	}
	bin := testfixture.Path(t, "wellbehaved")
	dir := t.TempDir()
	cfg := writeConfig(t, dir, bin, 200)
	db := filepath.Join(dir, "scan.db")
	common := []string{"--db", db, "--sandbox", "none", "--no-inject", "--concurrency", "8", "--quiet"}

	cmd := mcpvetCmd(t, append([]string{"scan", "--config", cfg}, common...)...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		runs, _ := countRuns(t, db)
		if runs >= 60 {
			break
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatalf("only %d runs after 2 minutes", runs)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	killedAt, _ := countRuns(t, db)
	if killedAt >= 200 {
		t.Fatalf("scan finished (%d runs) before it was killed; nothing to resume", killedAt)
	}
	t.Logf("killed with %d of 200 runs stored", killedAt)

	code, stdout, stderr := runCLI(append([]string{"scan", "--resume"}, common...)...)
	if code != 0 {
		t.Fatalf("resume exit %d: %s %s", code, stdout, stderr)
	}
	runs, distinct := countRuns(t, db)
	if runs != 200 || distinct != 200 {
		t.Errorf("after resume: %d runs, %d distinct targets; want 200 and 200", runs, distinct)
	}
	if !strings.Contains(stdout, "200 of 200 targets done") {
		t.Errorf("summary = %q", stdout)
	}
}

// TestScanInterrupt: SIGINT stops a scan within seconds, exit code 4, with
// the finished runs stored and no server left running.
func TestScanInterrupt(t *testing.T) {
	bin := testfixture.Path(t, "wellbehaved")
	dir := t.TempDir()
	cfg := writeConfig(t, dir, bin, 100)
	db := filepath.Join(dir, "scan.db")
	cmd := mcpvetCmd(t, "scan", "--config", cfg, "--db", db, "--sandbox", "none", "--concurrency", "4", "--quiet")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for {
		if runs, _ := countRuns(t, db); runs >= 4 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	start := time.Now()
	_ = cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	took := time.Since(start)
	if took > 10*time.Second {
		t.Errorf("took %v to stop after SIGINT", took)
	}
	if code := cmd.ProcessState.ExitCode(); code != exitPartial {
		t.Errorf("exit code %d (%v), want %d", code, err, exitPartial)
	}
	runs, distinct := countRuns(t, db)
	if runs == 0 || runs != distinct || runs >= 100 {
		t.Errorf("%d runs (%d distinct) stored after interrupt", runs, distinct)
	}
	// No server of this test may outlive the scan.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for ctx.Err() == nil {
		if n := processesRunning(bin); n == 0 {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Errorf("%d %s processes still running after the scan stopped", processesRunning(bin), bin)
}

// processesRunning counts processes whose executable is bin.
func processesRunning(bin string) int {
	entries, _ := os.ReadDir("/proc")
	n := 0
	for _, e := range entries {
		exe, err := os.Readlink(filepath.Join("/proc", e.Name(), "exe"))
		if err == nil && exe == bin {
			n++
		}
	}
	return n
}
