package scoring

import (
	"testing"
)

func TestZZAccepted(t *testing.T) {
	for _, f := range []string{heldoutFile, heldoutCensusFile, heldoutIssue25File, heldoutIssue25bFile, heldoutIssue25cFile, heldoutIssue25dFile, sdkFile} {
		for _, c := range loadCases(t, f) {
			r, ctx, err := c.Prepare()
			if err != nil {
				t.Fatal(err)
			}
			if r.Class == ClassAccepted && r.Text != "" {
				t.Logf("%s %s %s: %.200q expect %v", f[len("../testdata/errors/"):], string(c.ID), r.Kind, r.Text, c.Expect)
			}
			_ = ctx
		}
	}
	for _, c := range loadCorpus(t) {
		if c.Response.Class == ClassAccepted {
			t.Logf("corpus %s %s: %.200q expect %v", c.file, c.Response.Kind, c.Response.Text, c.Expect)
		}
	}
}
