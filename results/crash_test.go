package results

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpvet/mcpvet/vocab"
)

// TestKillWriterHelper is the child process of TestKillDuringSaves: it
// saves the pending targets of a scan, printing each key once committed,
// until it is killed.
func TestKillWriterHelper(t *testing.T) {
	path := os.Getenv("RESULTS_KILL_DB")
	if path == "" {
		t.Skip("helper process for TestKillDuringSaves")
	}
	scan, _ := strconv.ParseInt(os.Getenv("RESULTS_KILL_SCAN"), 10, 64)
	ctx := context.Background()
	st, err := Open(ctx, path, nil)
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(2)
	}
	pending, err := st.PendingTargets(ctx, scan)
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(2)
	}
	for i, p := range pending {
		if _, err := st.SaveRun(ctx, scan, p.Key, fakeResult(i, shape{tools: 8, calls: 20, probes: 10, findings: 8})); err != nil {
			fmt.Println("error:", err)
			os.Exit(2)
		}
		fmt.Println("saved", p.Key)
	}
	os.Exit(0)
}

// TestKillDuringSaves kills a writing process with SIGKILL several times
// and checks that every target ends with exactly one run: no committed run
// is lost, none is duplicated, and a resume finishes the scan.
func TestKillDuringSaves(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "kill.db")
	st, err := Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	scan := newScan(t, st, ScanInfo{})
	var plans []vocab.Plan
	for i := range 300 {
		plans = append(plans, fakePlan(i))
	}
	if _, err := st.AddTargets(ctx, scan, plans); err != nil {
		t.Fatal(err)
	}
	st.Close()

	confirmed := map[string]bool{}
	for round := range 4 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestKillWriterHelper$")
		cmd.Env = append(os.Environ(), "RESULTS_KILL_DB="+path, fmt.Sprint("RESULTS_KILL_SCAN=", scan))
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(out)
		saved := 0
		for sc.Scan() {
			line := sc.Text()
			key, ok := strings.CutPrefix(line, "saved ")
			if !ok {
				t.Errorf("round %d: child said %q", round, line)
				continue
			}
			confirmed[key] = true
			saved++
			if saved == 15+round*7 {
				cmd.Process.Kill() // SIGKILL mid-stream: the next save is in flight
				break
			}
		}
		cmd.Wait()
		if saved == 0 {
			t.Fatalf("round %d: child saved nothing", round)
		}
		// A read-only open (what Merge does to a shard) sees every
		// confirmed run before any writer has recovered the WAL.
		ro, err := Open(ctx, path, &Options{ReadOnly: true})
		if err != nil {
			t.Fatalf("round %d: read-only open after kill: %v", round, err)
		}
		for key := range confirmed {
			if n := count(t, ro, "SELECT count(*) FROM runs WHERE scan_id = ? AND target_key = ?", scan, key); n != 1 {
				t.Errorf("round %d: read-only: confirmed target %q has %d runs, want 1", round, key, n)
			}
		}
		ro.Close()
		checkOneRunPerDoneTarget(t, path, scan, confirmed)
	}

	// Resume in this process and finish.
	st, err = Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	pending, err := st.PendingTargets(ctx, scan)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range pending {
		if confirmed[p.Key] {
			t.Errorf("target %q was confirmed saved but is pending again", p.Key)
		}
		if _, err := st.SaveRun(ctx, scan, p.Key, fakeResult(i, shape{tools: 2, calls: 2})); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	if n := checkOneRunPerDoneTarget(t, path, scan, confirmed); n != len(plans) {
		t.Errorf("%d runs after resume, want %d", n, len(plans))
	}
}

// checkOneRunPerDoneTarget checks the database invariants after a crash
// and returns the number of runs.
func checkOneRunPerDoneTarget(t *testing.T, path string, scan int64, confirmed map[string]bool) int {
	t.Helper()
	st, err := Open(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var ok string
	if err := st.r.QueryRow("PRAGMA integrity_check").Scan(&ok); err != nil || ok != "ok" {
		t.Fatalf("integrity_check = %q, %v", ok, err)
	}
	runs := count(t, st, "SELECT count(*) FROM runs WHERE scan_id = ?", scan)
	done := count(t, st, "SELECT count(*) FROM targets WHERE scan_id = ? AND status = 'done'", scan)
	matched := count(t, st, `SELECT count(*) FROM targets t JOIN runs r ON r.scan_id = t.scan_id AND r.target_key = t.key
		WHERE t.scan_id = ? AND t.status = 'done'`, scan)
	orphans := count(t, st, `SELECT count(*) FROM runs r JOIN targets t ON r.scan_id = t.scan_id AND r.target_key = t.key
		WHERE r.scan_id = ? AND t.status <> 'done'`, scan)
	if runs != done || matched != done || orphans != 0 {
		t.Errorf("after kill: %d runs, %d done targets, %d matched, %d runs of pending targets", runs, done, matched, orphans)
	}
	for key := range confirmed {
		if n := count(t, st, "SELECT count(*) FROM runs WHERE scan_id = ? AND target_key = ?", scan, key); n != 1 {
			t.Errorf("confirmed target %q has %d runs, want 1", key, n)
		}
	}
	for rec, err := range st.Runs(context.Background(), scan) {
		if err != nil {
			t.Fatalf("reading runs after kill: %v", err)
		}
		_ = rec
	}
	return runs
}
