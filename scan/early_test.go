package scan

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
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

// launchMarked is a plan whose server, when started, writes its process id
// to mark, then runs the wellbehaved fixture.
func launchMarked(t *testing.T, key, mark string) vocab.Plan {
	t.Helper()
	bins := testfixture.Build(t, "wellbehaved")
	return vocab.Plan{Key: key, Name: key, Source: "test", Transport: vocab.TransportStdio,
		Command: "/bin/sh", Args: []string{"-c", `echo $$ > "$0.tmp"; mv "$0.tmp" "$0"; exec "$1"`, mark, bins["wellbehaved"]}}
}

// awaitMark waits for the file launchMarked's server writes and returns
// the process id in it; ok is false when it did not come within a minute
// (which bounds the failing case only).
func awaitMark(ctx context.Context, mark string) (pid int, ok bool) {
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		if b, err := os.ReadFile(mark); err == nil {
			pid, err = strconv.Atoi(strings.TrimSpace(string(b)))
			return pid, err == nil
		}
		time.Sleep(10 * time.Millisecond)
	}
	return 0, false
}

// TestRunOneOpensTheStoreBesideTheLaunch: with OpenStore, RunOne opens the
// store while the server starts (issue 25, probe cost: `mcpvet probe`
// opened the database, with its migrations and integrity check, before
// the launch). The store here opens only once the server has started;
// the result is then stored as before.
func TestRunOneOpensTheStoreBesideTheLaunch(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	mark := filepath.Join(dir, "launched")
	plan := launchMarked(t, "beside", mark)
	var st *results.Store
	open := func(ctx context.Context) (*results.Store, error) {
		if _, ok := awaitMark(ctx, mark); !ok {
			return nil, errors.New("the server was not launched while the store was being opened")
		}
		var err error
		st, err = results.Open(ctx, filepath.Join(dir, "scan.db"), nil)
		return st, err
	}
	res, err := RunOne(ctx, &plan, &Options{OpenStore: open, Probe: *fastOptions("none"),
		Info: results.ScanInfo{Kind: results.KindProbe, Source: "test"}})
	if err != nil || res == nil || res.Liveness.Status != vocab.StatusOK {
		t.Fatalf("RunOne = %v, %v; want a stored ok result", res, err)
	}
	defer st.Close()
	scans, err := st.Scans(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(scans) != 1 || scans[0].Status != results.ScanDone || scans[0].Done != 1 {
		t.Errorf("scans = %+v, want one done probe", scans)
	}
}

// TestRunOneOpenStoreFails: a store that cannot be opened stops the probe
// whose server is already running: RunOne returns the store's error and
// no result, and the server is gone.
func TestRunOneOpenStoreFails(t *testing.T) {
	ctx := context.Background()
	mark := filepath.Join(t.TempDir(), "launched")
	plan := launchMarked(t, "fails", mark)
	bad := errors.New("the database is not usable")
	pid := 0
	open := func(ctx context.Context) (*results.Store, error) {
		pid, _ = awaitMark(ctx, mark)
		return nil, bad
	}
	res, err := RunOne(ctx, &plan, &Options{OpenStore: open, Probe: *fastOptions("none"),
		Info: results.ScanInfo{Kind: results.KindProbe, Source: "test"}})
	if !errors.Is(err, bad) || res != nil {
		t.Fatalf("RunOne = %v, %v; want no result and %v", res, err, bad)
	}
	if pid == 0 {
		t.Fatal("the server was not launched")
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("the server (pid %d) is still there after RunOne returned: kill 0 = %v", pid, err)
	}
}

// TestRunOneStoresBeforeTheTeardown: the result is graded and stored while
// the sandbox tears the server's launch down (issue 25, probe cost), and
// RunOne returns only once the teardown is done. The teardown here waits
// until the result is stored; before, it came first, so it waited in vain.
func TestRunOneStoresBeforeTheTeardown(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st, err := results.Open(ctx, filepath.Join(dir, "scan.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	plan := launchMarked(t, "teardown", filepath.Join(dir, "launched"))
	stored := make(chan struct{})
	storedFirst := false
	beforeTeardown = func() {
		select {
		case <-stored:
			storedFirst = true
		case <-time.After(30 * time.Second): // bounds the failing case only
		}
	}
	defer func() { beforeTeardown = nil }()
	res, err := RunOne(ctx, &plan, &Options{Store: st, Probe: *fastOptions("none"),
		Info:     results.ScanInfo{Kind: results.KindProbe, Source: "test"},
		Progress: func(Progress) { close(stored) }})
	if err != nil || res == nil || res.Liveness.Status != vocab.StatusOK {
		t.Fatalf("RunOne = %v, %v; want a stored ok result", res, err)
	}
	if !storedFirst {
		t.Error("the launch was torn down before the result was stored")
	}
}
