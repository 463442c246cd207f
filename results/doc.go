// Package results stores probe results in an SQLite database.
//
// A database holds scans (one `mcpvet probe`, `scan` or `triage`
// invocation each), the targets of each scan (launch plans, stored first so
// an interrupted scan resumes with the pending ones), server identities, and
// runs: one probe of one server, with the whole [probe.Result] as JSON plus
// query copies of its tools, prompts, resources, resource templates,
// findings, call telemetry and failure-injection probes.
//
// # Opening
//
//	st, err := results.Open(ctx, "mcpvet.db", nil)
//	if errors.Is(err, results.ErrOpen) { ... exit code 3 ... }
//	defer st.Close()
//
// Open creates the file or upgrades an older schema with the numbered
// migrations in migrations/ (PRAGMA user_version is the version; a
// schema_migrations row records each). It refuses, without modifying them,
// files that are not SQLite or are corrupt, SQLite files of other programs
// and databases of a newer mcpvet.
//
// # A resumable scan
//
//	id, _ := st.NewScan(ctx, results.ScanInfo{Kind: results.KindScan, Source: "registry"})
//	st.AddTargets(ctx, id, plans)
//	pending, _ := st.PendingTargets(ctx, id)
//	for _, p := range pending {
//		res := probeIt(p)
//		st.SaveRun(ctx, id, p.Key, res) // marks the target done atomically
//	}
//	st.FinishScan(ctx, id, results.ScanDone)
//
// After a crash, [Store.LatestScan], [Store.ResumeScan] and
// [Store.PendingTargets] continue where the scan stopped.
//
// # Reports
//
// The census ([BuildReport], [Tally]), triage ([LoadTriage]) and diff
// ([DiffScans]) are computed here; package results/report writes them in
// each format. The census reads run_summaries, the few fields of each
// result it needs, which [Store.SaveRun] writes next to the whole result.
//
// # Shards
//
// [Merge] combines the databases of the shards of one scan into one
// database equal to a single-machine scan of the same targets.
package results
