package results

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/vocab"
)

// Tests written to kill the survivors of session 5's mutation run on the
// results package that session 6 took up (docs/testing.md, "Survivors of
// session 5 (results), session 6"): report_sample.go, merge_check.go,
// diff_items.go, open_checked.go, migrate.go, triage_portfolio.go. All in
// process, no server.

func near(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Abs(a-b) < 1e-12
}

// TestS6ClusteredCIValues pins the interval's formula on two small sets
// worked by hand, and two clusters as the fewest that have an interval.
func TestS6ClusteredCIValues(t *testing.T) {
	for _, c := range []struct {
		k, n   []int
		lo, hi float64
	}{
		// p = 4/8; d = 0, -1, 1; ss = 2; se = sqrt(3/2 * 2) / 8.
		{[]int{1, 0, 3}, []int{2, 2, 4}, 0.5 - Z95*math.Sqrt(3)/8, 0.5 + Z95*math.Sqrt(3)/8},
		// p = 4/6; d = -1/3, 1/3; ss = 2/9; se = sqrt(2/1 * 2/9) / 6 = 1/9.
		{[]int{1, 3}, []int{2, 4}, 2.0/3 - Z95/9, 2.0/3 + Z95/9},
		// Clipped at 1: p = 5/6; d = 1/3, -1/3; se = 1/9 again.
		{[]int{2, 3}, []int{2, 4}, 5.0/6 - Z95/9, 1},
		{[]int{3}, []int{4}, math.NaN(), math.NaN()},
		{[]int{0, 0}, []int{0, 0}, math.NaN(), math.NaN()},
	} {
		lo, hi := ClusteredCI(c.k, c.n)
		if !near(lo, c.lo) || !near(hi, c.hi) {
			t.Errorf("ClusteredCI(%v, %v) = [%v, %v], want [%v, %v]", c.k, c.n, lo, hi, c.lo, c.hi)
		}
	}
}

// TestS6SampleIntervals: the plan-level figures of a sample get intervals
// clustered by entry, over the entries that have trials; figures where
// every entry has the rate of the whole get the Wilson interval of the
// entries; the verdict shares are of keep+fix+drop per entry.
func TestS6SampleIntervals(t *testing.T) {
	tl := NewTally()
	tl.perEntry = map[string]*entryCounts{
		"a": {plans: 3, launched: 3, handshake: 2, groups: map[string]int{"g": 3},
			verdicts: map[string]int{vocab.DecisionKeep: 1, vocab.DecisionFix: 1, vocab.DecisionDrop: 1}},
		"b": {plans: 2, launched: 1, handshake: 1, groups: map[string]int{"g": 2},
			verdicts: map[string]int{vocab.DecisionKeep: 2}},
		// Never launched: no trial for the handshake of launched plans.
		"c": {plans: 1, launched: 0, handshake: 0, groups: map[string]int{"g": 1},
			verdicts: map[string]int{vocab.DecisionDrop: 1}},
	}
	c := &Census{
		Handshake:           Prop(3, 6),
		HandshakeOfLaunched: Prop(3, 4),
		Liveness:            []GroupFigure{{Group: "g", Share: Prop(6, 6)}, {Group: "none", Share: Prop(0, 6)}},
		Verdicts:            VerdictFigures{Keep: Prop(3, 6), Fix: Prop(1, 6), Drop: Prop(2, 6)},
	}
	tl.sampleIntervals(c)
	wilson := func(k, n int) [2]float64 { lo, hi := Wilson(k, n, Z95); return [2]float64{lo, hi} }
	clustered := func(k, n []int) [2]float64 { lo, hi := ClusteredCI(k, n); return [2]float64{lo, hi} }
	for _, f := range []struct {
		name string
		p    Proportion
		want [2]float64
	}{
		{"handshake", c.Handshake, clustered([]int{2, 1, 0}, []int{3, 2, 1})},
		{"handshake of launched (entry c has no trial)", c.HandshakeOfLaunched, clustered([]int{2, 1}, []int{3, 1})},
		{"group g: every entry at 1", c.Liveness[0].Share, wilson(3, 3)},
		{"group none: every entry at 0", c.Liveness[1].Share, wilson(0, 3)},
		{"keep", c.Verdicts.Keep, clustered([]int{1, 2, 0}, []int{3, 2, 1})},
		{"fix", c.Verdicts.Fix, clustered([]int{1, 0, 0}, []int{3, 2, 1})},
		{"drop", c.Verdicts.Drop, clustered([]int{1, 0, 1}, []int{3, 2, 1})},
	} {
		if !near(f.p.Low, f.want[0]) || !near(f.p.High, f.want[1]) {
			t.Errorf("%s: [%v, %v], want [%v, %v]", f.name, f.p.Low, f.p.High, f.want[0], f.want[1])
		}
	}
}

// TestS6ClusteredSameRate: the Wilson fallback is for clusters whose rates
// are all the rate of the whole, found in integers, and not for an
// interval that is only narrow: a sample of 100,000 plans with one
// success has a real, tiny clustered interval (7.8e-10 wide), which a
// float tolerance of 1e-9 took for certainty and replaced by [0, 66%].
func TestS6ClusteredSameRate(t *testing.T) {
	for _, c := range []struct {
		name   string
		k, n   []int
		wilson bool
	}{
		{"two entries, both at 0", []int{0, 0}, []int{3, 1}, true},
		{"two entries, both at 1", []int{3, 1}, []int{3, 1}, true},
		{"three entries at one half", []int{1, 2, 3}, []int{2, 4, 6}, true},
		{"one entry apart", []int{1, 2, 2}, []int{2, 4, 6}, false},
		{"a large sample, one success", []int{1, 0}, []int{99999, 1}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			tl := NewTally()
			var sk, sn int
			for i := range c.k {
				tl.perEntry[fmt.Sprint(i)] = &entryCounts{plans: c.n[i], handshake: c.k[i]}
				sk, sn = sk+c.k[i], sn+c.n[i]
			}
			p := Prop(sk, sn)
			tl.clustered(&p, func(ec *entryCounts) int { return ec.handshake }, func(ec *entryCounts) int { return ec.plans })
			lo, hi := ClusteredCI(c.k, c.n)
			if c.wilson {
				lo, hi = Wilson(int(math.Round(p.Rate*float64(len(c.k)))), len(c.k), Z95)
			}
			if !near(p.Low, lo) || !near(p.High, hi) {
				t.Errorf("[%v, %v], want [%v, %v]", p.Low, p.High, lo, hi)
			}
		})
	}
}

// TestS6SampledAndConditions reads the sample size and run conditions a
// scan recorded in its options.
func TestS6SampledAndConditions(t *testing.T) {
	for in, want := range map[string]bool{`{"sample":5}`: true, `{"sample":0}`: false, `{}`: false, `not json`: false} {
		if got := Sampled([]byte(in)); got != want {
			t.Errorf("Sampled(%s) = %v, want %v", in, got, want)
		}
	}
	c := ConditionsOf([]byte(`{"runConditions":{"checkedAt":"2026-01-02T03:04:05Z"}}`))
	if c == nil || c.CheckedAt != "2026-01-02T03:04:05Z" {
		t.Errorf("ConditionsOf: %+v, want checkedAt 2026-01-02T03:04:05Z", c)
	}
	if c := ConditionsOf([]byte(`{"sample":1}`)); c != nil {
		t.Errorf("ConditionsOf of options without conditions: %+v, want nil", c)
	}
	if c := ConditionsOf([]byte(`not json`)); c != nil {
		t.Errorf("ConditionsOf of bad options: %+v, want nil", c)
	}
}

// TestS6CheckShardSet: the shard-set check on its own (no database): one
// plan set, every shard, each finished.
func TestS6CheckShardSet(t *testing.T) {
	fin := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	sc := func(i, n int, planSet, status string) Scan {
		s := Scan{ScanInfo: ScanInfo{ShardIndex: i, ShardCount: n, Options: []byte(`{"planSetDigest":"` + planSet + `"}`)}, Status: status, Targets: 4, Done: 4}
		if status == ScanDone {
			s.FinishedAt = fin
		}
		return s
	}
	for _, c := range []struct {
		name    string
		scans   []Scan
		problem string // "" complete; "error" for an error
	}{
		{"two shards of one plan set", []Scan{sc(0, 2, "d", ScanDone), sc(1, 2, "d", ScanDone)}, ""},
		{"shards of two plan sets", []Scan{sc(0, 2, "d", ScanDone), sc(1, 2, "e", ScanDone)}, "error"},
		{"one shard of two", []Scan{sc(1, 2, "d", ScanDone)}, "1 of 2 shards given, missing 0/2"},
		{"one unsharded scan", []Scan{sc(0, 0, "d", ScanDone)}, ""},
		{"two unsharded scans", []Scan{sc(0, 0, "d", ScanDone), sc(0, 0, "d", ScanDone)}, "2 unsharded scans are not the shards of one scan"},
		{"an unfinished shard", []Scan{sc(0, 2, "d", ScanDone), sc(1, 2, "d", ScanInterrupted)}, "shard 1/2 (p1) is not finished"},
	} {
		paths := make([]string, len(c.scans))
		for i := range paths {
			paths[i] = fmt.Sprintf("p%d", i)
		}
		got, err := checkShardSet(c.scans, paths)
		switch {
		case c.problem == "error":
			if err == nil || !strings.Contains(err.Error(), "another plan set") {
				t.Errorf("%s: error %v, want another plan set", c.name, err)
			}
		case err != nil:
			t.Errorf("%s: error %v", c.name, err)
		case c.problem == "" && got.problem != "", c.problem != "" && !strings.HasPrefix(got.problem, c.problem):
			t.Errorf("%s: problem %q, want %q", c.name, got.problem, c.problem)
		case err == nil && got.planSet != "d":
			t.Errorf("%s: plan set %q, want d", c.name, got.planSet)
		}
	}
}

// TestS6DiffInstructions: instructions that appear or go away are a
// change, except against a run stored before instructions were kept (it
// has their size but not their text).
func TestS6DiffInstructions(t *testing.T) {
	with := &probe.Result{Liveness: probe.Liveness{Instructions: "Use t.", InstructionsBytes: 6}}
	without := &probe.Result{}
	sizeOnly := &probe.Result{Liveness: probe.Liveness{InstructionsBytes: 6}}
	for _, c := range []struct {
		name string
		a, b *probe.Result
		want string
	}{
		{"added", without, with, `instructions_changed server "" -> "Use t."`},
		{"added to a run that kept only the size", sizeOnly, with, ""},
		{"removed", with, without, `instructions_changed server "Use t." -> ""`},
		{"gone from the text, size still recorded", with, sizeOnly, ""},
	} {
		var got []string
		for _, d := range diffItems(c.a, c.b) {
			got = append(got, fmt.Sprintf("%s %s %q -> %q", d.Kind, d.Subject, d.Old, d.New))
		}
		if strings.Join(got, "|") != c.want {
			t.Errorf("%s: %q, want %q", c.name, strings.Join(got, "|"), c.want)
		}
	}
}

// TestS6DiffItemFieldsCap: a changed item lists at most diffMaxFields
// pointers over all its fields and counts the rest.
func TestS6DiffItemFieldsCap(t *testing.T) {
	ann := func(v int) string {
		var parts []string
		for i := range diffMaxFields {
			parts = append(parts, fmt.Sprintf(`"k%02d":%d`, i, v))
		}
		return "{" + strings.Join(parts, ",") + "}"
	}
	res := func(desc string, v int) *probe.Result {
		return &probe.Result{Resources: []probe.Resource{{URI: "x://a", Raw: json.RawMessage(`{"uri":"x://a","description":` + q(desc) + `,"annotations":` + ann(v) + `}`)}}}
	}
	got := diffItems(res("A.", 1), res("B.", 2))
	if len(got) != 1 || got[0].Kind != DiffResourceChanged {
		t.Fatalf("diffItems = %+v, want one resource_changed", got)
	}
	c := got[0]
	if len(c.Fields) != diffMaxFields || c.MoreFields != 1 || c.Fields[0].Pointer != "/description" || c.Fields[9].Pointer != "/annotations/k08" {
		t.Errorf("fields %+v, more %d; want /description then /annotations/k00..k08, 1 more", c.Fields, c.MoreFields)
	}
	if c.Fields[0].Old != `"A."` || c.Fields[0].New != `"B."` {
		t.Errorf("description field %+v", c.Fields[0])
	}
}

// TestS6JSONText: a canonical JSON string is shown as its text, anything
// else as the JSON.
func TestS6JSONText(t *testing.T) {
	for in, want := range map[string]string{`"a \"b\""`: `a "b"`, `{"x":1}`: `{"x":1}`, `12`: `12`, ``: ``} {
		if got := jsonText(in); got != want {
			t.Errorf("jsonText(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestS6CheckedDir: the records live in the user's cache folder, and
// nowhere without one.
func TestS6CheckedDir(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	if got, want := checkedDir(), filepath.Join(cache, "mcpvet", "db-checked"); got != want {
		t.Errorf("checkedDir() = %q, want %q", got, want)
	}
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("HOME", "")
	if got := checkedDir(); got != "" {
		t.Errorf("checkedDir() without a cache folder = %q, want \"\"", got)
	}
}

// TestS6CheckedRecordOfExactlyTheLimit: a record of exactly 8 KiB (a long
// database path) is read and trusted by the open and by the pruning; one
// byte more is not.
func TestS6CheckedRecordOfExactlyTheLimit(t *testing.T) {
	recs := checkedRecordsIn(t)
	// A path whose record is exactly 8 KiB: %q writes each \x01 as 4
	// bytes, so folders of 200 of them (201 bytes, 802 in the record)
	// reach it within PATH_MAX; a last name of x's makes it exact.
	recLen := func(abs string) int { // the record of a 5-byte file
		return len(fmt.Sprintf("%s %q size=%d crc32c=%08x\n", checkedMagic, abs, 5, 0))
	}
	base := t.TempDir()
	for i := 0; recLen(filepath.Join(base, fmt.Sprintf("%d%s", i, strings.Repeat("\x01", 200)), "x.db")) <= 8<<10-10; i++ {
		base = filepath.Join(base, fmt.Sprintf("%d%s", i, strings.Repeat("\x01", 200)))
	}
	abs := filepath.Join(base, strings.Repeat("x", 8<<10-recLen(filepath.Join(base, ".db")))+".db")
	if recLen(abs) != 8<<10 {
		t.Fatalf("record of %d bytes", recLen(abs))
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(abs, []byte("12345"), 0o600); err != nil {
		t.Fatal(err)
	}
	recordChecked(abs)
	rec, err := os.ReadFile(checkedRecord(abs))
	if err != nil || len(rec) != 8<<10 {
		t.Fatalf("record: %d bytes, %v; want 8192", len(rec), err)
	}
	if !unchangedSinceChecked(abs) {
		t.Error("a record of exactly 8 KiB was not trusted")
	}
	// Pruning reads a record of exactly 8 KiB: that of a database gone is
	// removed.
	old := maxCheckedRecords
	maxCheckedRecords = 0
	t.Cleanup(func() { maxCheckedRecords = old })
	if err := os.Remove(abs); err != nil {
		t.Fatal(err)
	}
	pruneChecked(recs)
	if _, err := os.Stat(checkedRecord(abs)); err == nil {
		t.Error("the 8 KiB record of a database that is gone was kept")
	}
}

// TestS6PruneChecked: nothing is pruned at exactly maxCheckedRecords
// records; past it, records of databases that are gone and records that
// do not parse are removed, those of databases that exist kept.
func TestS6PruneChecked(t *testing.T) {
	recs := checkedRecordsIn(t)
	if err := os.MkdirAll(recs, 0o700); err != nil {
		t.Fatal(err)
	}
	old := maxCheckedRecords
	t.Cleanup(func() { maxCheckedRecords = old })
	dir := t.TempDir()
	live := filepath.Join(dir, "live.db")
	if err := os.WriteFile(live, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(recs, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("live", fmt.Sprintf("%s %q size=1 crc32c=00000000\n", checkedMagic, live))
	write("gone", fmt.Sprintf("%s %q size=1 crc32c=00000000\n", checkedMagic, filepath.Join(dir, "gone.db")))
	write("garbage", "not a record")
	left := func() string {
		ents, _ := os.ReadDir(recs)
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		return strings.Join(names, " ")
	}
	maxCheckedRecords = 3
	pruneChecked(recs)
	if got := left(); got != "garbage gone live" {
		t.Errorf("at exactly the bound: %q left, want all three", got)
	}
	maxCheckedRecords = 2
	pruneChecked(recs)
	if got := left(); got != "live" {
		t.Errorf("past the bound: %q left, want only live", got)
	}
}

// TestS6MigrationVersions: an unknown migration name is past the last
// version; bad file names and gaps are refused with the right message.
func TestS6MigrationVersions(t *testing.T) {
	if got := migrationVersion("no_such_migration"); got != DBSchemaVersion()+1 {
		t.Errorf("migrationVersion of an unknown name = %d, want %d", got, DBSchemaVersion()+1)
	}
	for _, c := range []struct {
		files []string
		want  string
	}{
		{[]string{"0000_zero.sql"}, `migration "0000_zero.sql": name is not NNNN_name.sql`},
		{[]string{"0001_a.sql", "0003_c.sql"}, `migration "0003_c": expected version 2 (versions must be 1..N without gaps)`},
	} {
		fsys := fstest.MapFS{}
		for _, f := range c.files {
			fsys["migrations/"+f] = &fstest.MapFile{Data: []byte("SELECT 1;")}
		}
		_, err := loadMigrations(fsys)
		if err == nil || err.Error() != c.want {
			t.Errorf("loadMigrations(%v) error %v, want %q", c.files, err, c.want)
		}
	}
}

// TestS6MigrateSkipsApplied: migrations at or below the database's version
// are not run, so an up-to-date database starts no transaction (here: a
// closed database, which would fail one).
func TestS6MigrateSkipsApplied(t *testing.T) {
	db, err := sql.Open("sqlite3", filepath.Join(t.TempDir(), "x.db"))
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	if err := migrate(context.Background(), db, migrations, len(migrations)); err != nil {
		t.Errorf("migrate of an up-to-date database: %v, want nothing done", err)
	}
}

// TestS6ApplyMigrationFails: a failing migration rolls its transaction
// back (its connection goes back to the pool) and says which version the
// database was expected at.
func TestS6ApplyMigrationFails(t *testing.T) {
	ctx := context.Background()
	db, err := sql.Open("sqlite3", filepath.Join(t.TempDir(), "x.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = applyMigration(ctx, db, migration{version: 1, name: "0001_bad", sql: "NOT SQL"})
	if err == nil {
		t.Fatal("a migration of bad SQL applied")
	}
	if n := db.Stats().InUse; n != 0 {
		t.Errorf("after a failed migration %d connection(s) still in a transaction, want 0", n)
	}
	err = applyMigration(ctx, db, migration{version: 3, name: "0003_c", sql: "SELECT 1"})
	if err == nil || !strings.Contains(err.Error(), "database is at version 0, expected 2") {
		t.Errorf("a migration past the next: %v, want database is at version 0, expected 2", err)
	}
}

// TestS6ClientSets: servers are grouped by config file, labelled by client
// and file; per-project entries are loaded with the file's top-level ones.
func TestS6ClientSets(t *testing.T) {
	tr := &Triage{Config: "/etc/mcp.json", Servers: []TriageServer{
		{Name: "a", Config: "/h/.cursor/mcp.json", Client: "Cursor"},
		{Name: "b", Config: "/h/.claude.json", Client: "Claude Code"},
		{Name: "c", Config: "/h/.claude.json", Client: "Claude Code", Project: "/p"},
		{Name: "d", Config: "/h/.claude.json", Client: "Claude Code", Project: "/q"},
		{Name: "e", Config: "/h/other.json"},
		{Name: "f"},
	}}
	var got []string
	for _, s := range tr.clientSets() {
		var names []string
		for _, sv := range s.servers {
			names = append(names, sv.Name)
		}
		got = append(got, s.label+": "+strings.Join(names, " "))
	}
	want := []string{
		"Cursor (/h/.cursor/mcp.json): a",
		"Claude Code (/h/.claude.json) project /p: b c",
		"Claude Code (/h/.claude.json) project /q: b d",
		"/h/other.json: e",
		"/etc/mcp.json: f",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("clientSets:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// A client without a config file keeps its name.
	tr = &Triage{Config: "/etc/mcp.json", Servers: []TriageServer{{Name: "g", Client: "VS Code"}}}
	var labels []string
	for _, s := range tr.clientSets() {
		labels = append(labels, s.label)
	}
	if strings.Join(labels, "|") != "VS Code" {
		t.Errorf("client without a file: sets %q, want one, VS Code", labels)
	}
}

// TestS6ReportWithoutStore: a report built without a store says so
// instead of reading through a nil store.
func TestS6ReportWithoutStore(t *testing.T) {
	r := &Report{Rows: []ServerRow{{RunID: 1}}}
	if _, err := r.Result(context.Background(), 0); err == nil {
		t.Error("Result without a store: no error")
	}
	if _, err := r.ResultJSON(context.Background(), 0); err == nil {
		t.Error("ResultJSON without a store: no error")
	}
}

// TestS6RowOf: the summary row counts findings by severity and the graded
// probes, and names the launch by command, else by URL.
func TestS6RowOf(t *testing.T) {
	res := &probe.Result{
		Target: probe.Target{Name: "a", Command: []string{"npx", "-y", "pkg"}, URL: "https://x.example/mcp"},
		Findings: []probe.Finding{
			{Code: "a", Severity: probe.SeverityFatal},
			{Code: "b", Severity: probe.SeverityError}, {Code: "c", Severity: probe.SeverityError},
			{Code: "d", Severity: probe.SeverityWarn}, {Code: "e", Severity: probe.SeverityWarn}, {Code: "f", Severity: probe.SeverityWarn},
			{Code: "g", Severity: probe.SeverityInfo},
		},
		Probes: []probe.ProbeCall{{Kind: "x", Elements: []probe.Element{{Name: "channel", Pass: true}}}, {Kind: "y"}, {Kind: "z", Elements: []probe.Element{{Name: "code"}}}},
	}
	row := RowOf(Record{Result: res})
	if row.Fatal != 1 || row.Errors != 2 || row.Warnings != 3 || row.Findings != 7 || row.Graded != 2 || row.Probes != 3 {
		t.Errorf("RowOf counts: fatal %d, errors %d, warnings %d, findings %d, graded %d of %d; want 1, 2, 3, 7, 2 of 3",
			row.Fatal, row.Errors, row.Warnings, row.Findings, row.Graded, row.Probes)
	}
	if row.Launch != "npx -y pkg" {
		t.Errorf("launch of a command: %q", row.Launch)
	}
	res.Target.Command = nil
	if row := RowOf(Record{Result: res}); row.Launch != "https://x.example/mcp" {
		t.Errorf("launch of a remote: %q", row.Launch)
	}
	res.Target.URL = ""
	if row := RowOf(Record{Result: res}); row.Launch != "" {
		t.Errorf("launch of neither: %q", row.Launch)
	}
}

// TestS6BuildReportOrderAndSections: rows are sorted by name, version and
// key; Servers caps the sections only when it is positive and below the
// row count.
func TestS6BuildReportOrderAndSections(t *testing.T) {
	ctx := context.Background()
	st := s5Open(t)
	id, err := st.NewScan(ctx, ScanInfo{Kind: KindScan, Source: "cli"})
	if err != nil {
		t.Fatal(err)
	}
	servers := []struct{ key, name, version string }{
		{"k4", "b", "1.0.0"}, {"k3", "a", "2.0.0"}, {"k2", "a", "1.0.0"}, {"k1", "a", "1.0.0"},
	}
	var plans []vocab.Plan
	for _, s := range servers {
		plans = append(plans, vocab.Plan{Key: s.key, Name: s.name, Version: s.version, Source: "cli", Transport: vocab.TransportStdio, Command: "/bin/" + s.key})
	}
	if _, err := st.AddTargets(ctx, id, plans); err != nil {
		t.Fatal(err)
	}
	for _, s := range servers {
		res := &probe.Result{Target: probe.Target{Name: s.name, Version: s.version, Source: "cli"}, Liveness: probe.Liveness{HandshakeCompleted: true}}
		if _, err := st.SaveRun(ctx, id, s.key, res); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct{ servers, sections int }{{0, 4}, {-1, 4}, {1, 1}, {3, 3}, {4, 4}, {9, 4}} {
		r, err := BuildReport(ctx, st, id, &ReportOptions{Servers: c.servers})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, row := range r.Rows {
			got = append(got, row.Name+" "+row.Version+" "+row.Key)
		}
		if want := "a 1.0.0 k1|a 1.0.0 k2|a 2.0.0 k3|b 1.0.0 k4"; strings.Join(got, "|") != want {
			t.Errorf("rows %q, want %q", strings.Join(got, "|"), want)
		}
		if r.Sections != c.sections {
			t.Errorf("Servers %d: %d sections, want %d", c.servers, r.Sections, c.sections)
		}
	}
}

// TestS6PublicSource: a local snapshot or config keeps its file name and
// the scan's note after it, whatever the path.
func TestS6PublicSource(t *testing.T) {
	for in, want := range map[string]string{
		"snapshot:/home/u/reg.json (120 entries)": "snapshot:reg.json (120 entries)",
		"config:/home/u/.cursor/mcp.json":         "config:mcp.json",
		"snapshot: (no path)":                     "snapshot:. (no path)",
		"registry:https://registry.example/v0":    "registry:https://registry.example/v0",
	} {
		if got := PublicSource(in); got != want {
			t.Errorf("PublicSource(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestS6SameScanSeed: the seeds of two shards are named in the refusal,
// "none" for a scan without one.
func TestS6SameScanSeed(t *testing.T) {
	five := int64(5)
	err := sameScan(Scan{ScanInfo: ScanInfo{Kind: KindScan, Seed: &five}}, Scan{ScanInfo: ScanInfo{Kind: KindScan}})
	if err == nil || err.Error() != "seed none vs 5" {
		t.Errorf("sameScan error %v, want seed none vs 5", err)
	}
}

// TestS6WilsonAndProp: 0 of n has an interval from 0, n of n one up to
// 1; a proportion
// without a denominator has a NaN rate, whatever its count.
func TestS6WilsonAndProp(t *testing.T) {
	if lo, hi := Wilson(0, 10, Z95); lo != 0 || !(hi > 0.27 && hi < 0.28) {
		t.Errorf("Wilson(0, 10) = [%v, %v], want [0, 0.2775]", lo, hi)
	}
	if lo, hi := Wilson(10, 10, Z95); hi != 1 || !(lo > 0.72 && lo < 0.73) {
		t.Errorf("Wilson(10, 10) = [%v, %v], want [0.7225, 1]", lo, hi)
	}
	if p := Prop(3, 0); !math.IsNaN(p.Rate) || !math.IsNaN(p.Low) || !math.IsNaN(p.High) {
		t.Errorf("Prop(3, 0): rate %v, interval [%v, %v], want NaN", p.Rate, p.Low, p.High)
	}
}

// TestS6QuantileEnds: q at or below 0 is the smallest value itself, even
// next to an infinite one (interpolating would give 0 * Inf = NaN).
func TestS6QuantileEnds(t *testing.T) {
	s := []float64{1, math.Inf(1)}
	if got := Quantile(s, 0); got != 1 {
		t.Errorf("Quantile(%v, 0) = %v, want 1", s, got)
	}
	if got := Quantile(s, 1); !math.IsInf(got, 1) {
		t.Errorf("Quantile(%v, 1) = %v, want +Inf", s, got)
	}
}
