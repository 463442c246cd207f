// Package archtest holds the test that keeps docs/ARCHITECTURE.md true: it
// reads the import rules table of that page and checks each rule against
// `go list`. It has no code of its own.
package archtest
