// Package vocab holds the words every other package of mcpvet shares: the
// launch [Plan] of a target, the liveness [Status] values, the verdict
// decisions and rule names, and the MCP protocol revisions, newest first.
//
// It is a leaf: it imports nothing of mcpvet, so the sandbox, the probe,
// the grader, the store and the report writers can all use it without
// importing one another. Each word is declared here and nowhere else; the
// values are stored in databases and compared across scans, so a value
// never changes meaning once shipped.
package vocab
