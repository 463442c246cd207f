package results

// The next steps NewTriageServer chooses from, for the external tests
// (package results_test), which check that it picks the right one.
var (
	TriageElementSteps = triageElementSteps
	TriageStatusSteps  = triageStatusSteps
)
