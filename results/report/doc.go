// Package report writes the reports of a results database: the census
// report of a scan ([results.Report]: md, html, json, csv), the triage of a
// client config ([results.Triage]: table, json, junit, sarif), the
// comparison of two scans ([results.Diff]: text, json), and the terminal
// summary and SARIF of one probe. Package results computes what they show;
// this package only presents it, and results never imports it.
//
// Each kind of report has one reporter interface ([CensusReporter],
// [TriageReporter], [DiffReporter]) and one reporter type per format,
// checked against it at compile time. One registry names the formats of
// every kind ([Formats], [Format]); a name it does not list is an
// [*UnknownFormatError], which matches [ErrUnknownFormat] and lists the
// valid names:
//
//	f, err := report.Format(report.KindTriage, flagValue) // "SARIF" is "sarif"
//	if errors.Is(err, report.ErrUnknownFormat) { ... usage error ... }
//	err = report.WriteTriage(w, t, f, &report.TriageOptions{Width: 100})
package report
