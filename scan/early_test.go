package scan

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3"

	"github.com/mcpvet/mcpvet/internal/testfixture"
	"github.com/mcpvet/mcpvet/results"
	"github.com/mcpvet/mcpvet/vocab"
)

// TestRunOneLaunchesBeforeTheScanRow: a probe's server is launched while
// its scan row waits for the database (issue 25, probe cost: the row's
// commit, the first after opening, syncs the WAL header), and the result
// is stored once the row is. Another connection holds the write lock until
// the server has started; before, the launch waited for the row, so it
// never came while the lock was held.
func TestRunOneLaunchesBeforeTheScanRow(t *testing.T) {
	bins := testfixture.Build(t, "wellbehaved")
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "scan.db")
	st, err := results.Open(ctx, path, &results.Options{BusyTimeout: 2 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	lock, err := sql.Open("sqlite3", "file:"+path+"?_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	tx, err := lock.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()

	mark := filepath.Join(dir, "launched")
	plan := vocab.Plan{Key: "early", Name: "early", Source: "test", Transport: vocab.TransportStdio,
		Command: "/bin/sh", Args: []string{"-c", `: > "$0"; exec "$1"`, mark, bins["wellbehaved"]}}
	type outcome struct {
		res *vocab.Status
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := RunOne(ctx, &plan, &Options{Store: st, Probe: *fastOptions("none"),
			Info: results.ScanInfo{Kind: results.KindProbe, Source: "test"}})
		var status *vocab.Status
		if res != nil {
			status = &res.Liveness.Status
		}
		done <- outcome{status, err}
	}()
	// The deadline bounds the failing case only: the launch does not wait
	// for anything the test holds.
	deadline := time.Now().Add(time.Minute)
	for {
		if _, err := os.Stat(mark); err == nil {
			break
		}
		if time.Now().After(deadline) {
			_ = tx.Rollback()
			<-done
			t.Fatal("the server was not launched while the scan row waited for the database")
		}
		time.Sleep(10 * time.Millisecond)
	}
	select {
	case o := <-done:
		t.Fatalf("RunOne returned (%v) before its scan row could be written", o.err)
	default:
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	o := <-done
	if o.err != nil || o.res == nil || *o.res != vocab.StatusOK {
		t.Fatalf("RunOne = %v, %v; want a stored ok result", o.res, o.err)
	}
	scans, err := st.Scans(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(scans) != 1 || scans[0].Status != results.ScanDone || scans[0].Done != 1 {
		t.Errorf("scans = %+v, want one done probe", scans)
	}
}
