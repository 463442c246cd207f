package scan

import (
	"encoding/json"
	"errors"
	"strings"

	"github.com/mcpvet/mcpvet/scoring"
)

// Graded is one recorded response graded offline by [GradeRecorded]: an
// output line of `mcpvet grade`.
type Graded struct {
	// ID is the input's "id", echoed; null when it had none.
	ID            json.RawMessage `json:"id"`
	Kind          string          `json:"kind"`
	Score         float64         `json:"score"`
	RubricVersion string          `json:"rubricVersion"`
	// Elements holds every rubric element, in the order of
	// [RubricElements]; those that do not apply to Kind say so.
	Elements []GradedElement `json:"elements"`
}

// GradedElement is one rubric element of a [Graded] response.
type GradedElement struct {
	Name     string  `json:"name"`
	Applies  bool    `json:"applies"`
	Pass     bool    `json:"pass"`
	Credit   float64 `json:"credit"`
	Evidence string  `json:"evidence"`
}

// RubricElements returns the names of the rubric's elements, in order.
func RubricElements() []string {
	out := make([]string, len(scoring.Weights))
	for i, w := range scoring.Weights {
		out[i] = w.Element
	}
	return out
}

// RecordedKinds returns the probe kinds a recorded response may have.
func RecordedKinds() []string { return scoring.Kinds() }

// GradeRecorded grades one recorded answer to an invalid request (a JSON
// object, see [scoring.Recorded]) without launching anything. The error
// says, in one line, why the input cannot be graded.
func GradeRecorded(line []byte) (Graded, error) {
	var rec scoring.Recorded
	if err := json.Unmarshal(line, &rec); err != nil {
		return Graded{}, errors.New("not a JSON object: " + err.Error())
	}
	resp, ctx, err := rec.Prepare()
	if err != nil {
		return Graded{}, errors.New(strings.TrimPrefix(err.Error(), scoring.ErrRecorded.Error()+": "))
	}
	g := scoring.Grade(resp, ctx)
	id := rec.ID
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	out := Graded{ID: id, Kind: g.Kind, Score: g.Score, RubricVersion: g.RubricVersion}
	for _, w := range scoring.Weights {
		e := GradedElement{Name: w.Element, Evidence: "does not apply to " + g.Kind}
		for i, el := range g.Elements {
			if el.Name == w.Element {
				e = GradedElement{Name: el.Name, Applies: true, Pass: el.Pass, Credit: g.Credits[i], Evidence: el.Evidence}
			}
		}
		out.Elements = append(out.Elements, e)
	}
	return out, nil
}
