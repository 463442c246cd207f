// Package source turns the places MCP servers are listed into launch plans
// ([vocab.Plan]): the official MCP Registry API, snapshot files of it, and
// the MCP client configs users keep (Claude Desktop, VS Code, Cursor).
//
// Everything read here is untrusted. Responses and files are size-capped,
// every string ends up as an argv element or a header value and never in a
// shell, and a malformed entry is an error that names where it was found.
//
// # Crawling the registry
//
// [Crawl] pages through GET /v0.1/servers (falling back to /v0 when that
// answers 404) and yields entries as they arrive, so a caller can store them
// before a later page fails:
//
//	for e, err := range source.Crawl(ctx, &source.CrawlOptions{Version: "latest"}) {
//		if err != nil {
//			return err // entries already yielded are kept
//		}
//		store(e)
//	}
//
// [Fetch] collects the same entries into a slice and returns what it got
// together with the error.
//
// # Snapshots
//
// [ReadSnapshot] reads a JSON array of registry server responses (a UTF-8 BOM
// is allowed), an API page ({"servers": [...], "metadata": {...}}), or NDJSON
// (one response or page per line). [WriteSnapshot] writes a JSON array that
// [ReadSnapshot] reads back identically.
//
// # Launch plans
//
// [Plans] (or a [Planner] fed one entry at a time) builds one plan per package
// and per remote of each kept entry and counts what it kept and skipped in
// [Stats]. Required inputs without a value make a plan needs_configuration;
// secrets become [vocab.Plan.Secrets], which the sandbox fills with canaries.
//
// # Client configs
//
// [ReadConfig] detects and reads claude_desktop_config.json, VS Code mcp.json
// and Cursor mcp.json.
//
// # Sampling and sharding
//
// [Sample] picks a deterministic random subset; [Shard] partitions plans by a
// hash of [vocab.Plan.Key].
package source
