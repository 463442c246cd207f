package results

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcpvet/mcpvet/internal/safe"
	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/vocab"
)

// DefaultDiffScoreDrop is the default [DiffOptions.ScoreDrop]: a score
// that fell by more than 5 points is a regression.
const DefaultDiffScoreDrop = 5

// DiffOptions configures [DiffScans]. A nil *DiffOptions means the
// defaults.
type DiffOptions struct {
	// ScoreDrop is how many points a server's actionability score must
	// fall by, strictly more, to count as a regression. Unlike most
	// options its zero value is used as given (any drop counts); a nil
	// *DiffOptions means DefaultDiffScoreDrop.
	ScoreDrop float64
}

// Change kinds of a [DiffChange]. They are stable: scripts match on them.
const (
	// DiffDied: the handshake completed in the old scan, not in the new.
	DiffDied = "died"
	// DiffRevived: the handshake failed in the old scan and completed in
	// the new.
	DiffRevived = "revived"
	// DiffVersion: the target or server version changed.
	DiffVersion = "version"
	// DiffVerdict: the keep / fix / drop decision changed.
	DiffVerdict = "verdict"
	// DiffToolAdded and DiffToolRemoved: a tool appeared or disappeared.
	DiffToolAdded   = "tool_added"
	DiffToolRemoved = "tool_removed"
	// DiffSchemaChanged: a tool's inputSchema changed.
	DiffSchemaChanged = "schema_changed"
	// DiffOutputSchemaChanged: a tool's outputSchema changed.
	DiffOutputSchemaChanged = "output_schema_changed"
	// DiffAnnotationsChanged: a tool's annotations changed.
	DiffAnnotationsChanged = "annotations_changed"
	// DiffFindingAppeared and DiffFindingDisappeared: a finding code
	// appeared on or disappeared from the server.
	DiffFindingAppeared    = "finding_appeared"
	DiffFindingDisappeared = "finding_disappeared"
	// DiffScoreDropped: the actionability score fell by more than the
	// threshold.
	DiffScoreDropped = "score_dropped"
	// DiffContextChanged: what the server costs a client's context
	// changed (o200k_base tokens, both runs measured); DiffToolTokens: one
	// tool's definition did, for each tool in both runs whose count
	// changed. A tool added with a measurement gets its tokens in the
	// tool_added change's Detail.
	DiffContextChanged = "context_changed"
	DiffToolTokens     = "tool_tokens_changed"
)

// Diff is what changed between two scans. Its JSON encoding (`mcpvet diff
// --format json`) uses the field names below; fields are added, never
// renamed or removed.
type Diff struct {
	Old DiffScan `json:"old"`
	New DiffScan `json:"new"`
	// ScoreDrop is the regression threshold in points.
	ScoreDrop float64 `json:"scoreDrop"`
	// Compared counts the servers found in both scans; Unchanged those of
	// them without a change.
	Compared  int `json:"compared"`
	Unchanged int `json:"unchanged"`
	// Changed are the servers in both scans with at least one change,
	// sorted by name.
	Changed []DiffServerChanges `json:"changed"`
	// Added are the servers only in the new scan, Removed those only in
	// the old, sorted by name.
	Added   []DiffServer `json:"added"`
	Removed []DiffServer `json:"removed"`
}

// DiffScan describes one side of a [Diff].
type DiffScan struct {
	// DB is the database path.
	DB        string    `json:"db"`
	ScanID    int64     `json:"scanId"`
	Kind      string    `json:"kind"`
	Source    string    `json:"source"`
	Status    string    `json:"status"`
	StartedAt time.Time `json:"startedAt"`
	// Servers counts the scan's runs.
	Servers int `json:"servers"`
}

// DiffServer identifies a server in one scan.
type DiffServer struct {
	// Key is the scan target key.
	Key     string       `json:"key"`
	Name    string       `json:"name"`
	Version string       `json:"version,omitempty"`
	Source  string       `json:"source"`
	Status  vocab.Status `json:"status"`
	// Decision is the verdict, empty when not graded, and Actor who must
	// act on it.
	Decision string      `json:"decision,omitempty"`
	Actor    vocab.Actor `json:"actor,omitempty"`
}

// DiffServerChanges are the changes of one server found in both scans.
type DiffServerChanges struct {
	Name string `json:"name"`
	// Source is the new run's target source.
	Source string `json:"source"`
	// OldKey and NewKey are the target keys in each scan; they differ
	// when the server was matched by identity (a new version, a moved
	// config).
	OldKey  string       `json:"oldKey"`
	NewKey  string       `json:"newKey"`
	Changes []DiffChange `json:"changes"`
}

// DiffChange is one change with its evidence.
type DiffChange struct {
	// Kind is one of the Diff* kinds.
	Kind string `json:"kind"`
	// Subject is the tool name for tool changes and the finding code for
	// finding changes.
	Subject string `json:"subject,omitempty"`
	// Old and New are the values before and after; absent when there is no
	// value on that side.
	Old string `json:"old,omitempty"`
	New string `json:"new,omitempty"`
	// Detail adds context: the deciding rule of a new verdict, the size of
	// a score drop, the severity of a finding.
	Detail string `json:"detail,omitempty"`
	// Fields are the changed places of a schema or annotations, as JSON
	// pointers into the object with compact JSON values (Old or New absent
	// for a member only on one side); MoreFields counts those left out.
	Fields     []DiffField `json:"fields,omitempty"`
	MoreFields int         `json:"moreFields,omitempty"`
}

// DiffField is one changed place inside a JSON value.
type DiffField struct {
	// Pointer is an RFC 6901 JSON pointer; "" is the whole value.
	Pointer string `json:"pointer"`
	Old     string `json:"old,omitempty"`
	New     string `json:"new,omitempty"`
}

// Bounds on diff evidence, so one huge schema cannot flood a report.
const (
	diffMaxFields     = 10
	diffMaxValueBytes = 200
)

// DiffInput is one side of a comparison: a scan and its runs.
type DiffInput struct {
	// DB names the database in the report.
	DB   string
	Scan Scan
	Runs []Record
}

// LoadDiffInput reads a scan and all its runs.
func LoadDiffInput(ctx context.Context, st *Store, scanID int64) (DiffInput, error) {
	sc, err := st.Scan(ctx, scanID)
	if err != nil {
		return DiffInput{}, err
	}
	in := DiffInput{DB: st.Path(), Scan: sc}
	for rec, err := range st.Runs(ctx, scanID) {
		if err != nil {
			return DiffInput{}, err
		}
		in.Runs = append(in.Runs, rec)
	}
	return in, nil
}

// DiffScans compares two scans. Servers are matched by target key, then by
// server identity (target name and source), then by name alone when it is
// unique on both sides. For servers that completed the handshake in both
// scans it compares tools, schemas, annotations, descriptions, prompts,
// resources, templates, instructions and findings; for all it
// compares liveness, version, verdict and score.
func DiffScans(before, after DiffInput, opts *DiffOptions) *Diff {
	threshold := float64(DefaultDiffScoreDrop)
	if opts != nil {
		threshold = opts.ScoreDrop
	}
	d := &Diff{
		Old:       diffScanOf(before),
		New:       diffScanOf(after),
		ScoreDrop: threshold,
		Changed:   []DiffServerChanges{},
		Added:     []DiffServer{},
		Removed:   []DiffServer{},
	}
	pairs, onlyOld, onlyNew := diffMatch(before.Runs, after.Runs)
	for _, p := range pairs {
		d.Compared++
		changes := diffServer(p[0].Result, p[1].Result, threshold)
		if len(changes) == 0 {
			d.Unchanged++
			continue
		}
		d.Changed = append(d.Changed, DiffServerChanges{
			Name:    p[1].Result.Target.Name,
			Source:  p[1].Result.Target.Source,
			OldKey:  p[0].TargetKey,
			NewKey:  p[1].TargetKey,
			Changes: changes,
		})
	}
	for _, r := range onlyOld {
		d.Removed = append(d.Removed, diffServerOf(r))
	}
	for _, r := range onlyNew {
		d.Added = append(d.Added, diffServerOf(r))
	}
	slices.SortStableFunc(d.Changed, func(a, b DiffServerChanges) int {
		return cmp.Or(strings.Compare(a.Name, b.Name), strings.Compare(a.NewKey, b.NewKey))
	})
	byName := func(a, b DiffServer) int {
		return cmp.Or(strings.Compare(a.Name, b.Name), strings.Compare(a.Key, b.Key))
	}
	slices.SortStableFunc(d.Added, byName)
	slices.SortStableFunc(d.Removed, byName)
	return d
}

func diffScanOf(in DiffInput) DiffScan {
	return DiffScan{
		DB:        in.DB,
		ScanID:    in.Scan.ID,
		Kind:      in.Scan.Kind,
		Source:    in.Scan.Source,
		Status:    in.Scan.Status,
		StartedAt: in.Scan.StartedAt,
		Servers:   len(in.Runs),
	}
}

func diffServerOf(r Record) DiffServer {
	s := DiffServer{
		Key:     r.TargetKey,
		Name:    r.Result.Target.Name,
		Version: diffVersion(r.Result),
		Source:  r.Result.Target.Source,
		Status:  r.Result.Liveness.Status,
	}
	if r.Result.Verdict != nil {
		s.Decision, s.Actor = r.Result.Verdict.Decision, r.Result.Verdict.Who()
	}
	return s
}

// diffMatch pairs the runs of two scans: by target key, then by name and
// source (in run order among equals), then by a name unique among the
// unmatched runs of both sides.
func diffMatch(old, cur []Record) (pairs [][2]Record, onlyOld, onlyNew []Record) {
	return diffMatchBy(old, cur, nil)
}

// diffMatchBy is [diffMatch] with a pass by identity (what reaches the
// server, see [vocab.Plan.Identity]) after the pass by target key, when
// identity is not nil; a record whose identity is "" is left to the later
// passes.
func diffMatchBy(old, cur []Record, identity func(r Record, old bool) string) (pairs [][2]Record, onlyOld, onlyNew []Record) {
	oldUsed := make([]bool, len(old))
	newUsed := make([]bool, len(cur))
	pass := func(key func(Record, bool) string, unique bool) {
		idx := map[string][]int{}
		for i, r := range old {
			if !oldUsed[i] {
				k := key(r, true)
				idx[k] = append(idx[k], i)
			}
		}
		newCount := map[string]int{}
		for j, r := range cur {
			if !newUsed[j] {
				newCount[key(r, false)]++
			}
		}
		for j, r := range cur {
			if newUsed[j] {
				continue
			}
			k := key(r, false)
			cands := idx[k]
			if k == "" || len(cands) == 0 || (unique && (len(cands) != 1 || newCount[k] != 1)) {
				continue
			}
			i := cands[0]
			idx[k] = cands[1:]
			oldUsed[i], newUsed[j] = true, true
			pairs = append(pairs, [2]Record{old[i], r})
		}
	}
	pass(func(r Record, _ bool) string { return r.TargetKey }, false)
	if identity != nil {
		pass(identity, false)
	}
	pass(func(r Record, _ bool) string { return r.Result.Target.Name + "\x00" + r.Result.Target.Source }, false)
	pass(func(r Record, _ bool) string { return r.Result.Target.Name }, true)
	for i, r := range old {
		if !oldUsed[i] {
			onlyOld = append(onlyOld, r)
		}
	}
	for j, r := range cur {
		if !newUsed[j] {
			onlyNew = append(onlyNew, r)
		}
	}
	return pairs, onlyOld, onlyNew
}

// diffServer lists the changes between two runs of one server.
func diffServer(a, b *probe.Result, threshold float64) []DiffChange {
	var out []DiffChange
	la, lb := a.Liveness, b.Liveness
	switch {
	case la.HandshakeCompleted && !lb.HandshakeCompleted:
		out = append(out, DiffChange{Kind: DiffDied, Old: diffLiveness(la), New: diffLiveness(lb)})
	case !la.HandshakeCompleted && lb.HandshakeCompleted:
		out = append(out, DiffChange{Kind: DiffRevived, Old: diffLiveness(la), New: diffLiveness(lb)})
	}
	if va, vb, ok := diffVersions(a, b); ok && va != vb {
		out = append(out, DiffChange{Kind: DiffVersion, Old: va, New: vb})
	}
	da, db := diffDecision(a), diffDecision(b)
	if da != db {
		c := DiffChange{Kind: DiffVerdict, Old: da, New: db}
		if r := diffDecidingRule(b); r != "" {
			c.Detail = "decided by " + r
		}
		out = append(out, c)
	}
	if la.HandshakeCompleted && lb.HandshakeCompleted {
		out = append(out, diffTools(a.Tools, b.Tools)...)
		out = append(out, diffItems(a, b)...)
		out = diffContext(a.Context, b.Context, out)
		out = append(out, diffFindings(a.Findings, b.Findings)...)
	}
	if a.Score != nil && b.Score != nil && *a.Score-*b.Score > threshold {
		out = append(out, DiffChange{
			Kind:   DiffScoreDropped,
			Old:    fmt.Sprintf("%.1f", *a.Score),
			New:    fmt.Sprintf("%.1f", *b.Score),
			Detail: fmt.Sprintf("-%.1f points, threshold %g", *a.Score-*b.Score, threshold),
		})
	}
	return out
}

// diffContext appends the change of the server's context cost and of each
// tool's tokens, and gives the tokens of each added tool, when both runs
// were measured.
func diffContext(a, b *probe.ContextCost, out []DiffChange) []DiffChange {
	if a == nil || b == nil {
		return out
	}
	growth := func(o, n int) string {
		d := fmt.Sprintf("%+d %s tokens", n-o, b.Encoding)
		if o > 0 {
			d += fmt.Sprintf(", %+.1f%%", 100*float64(n-o)/float64(o))
		}
		return d
	}
	if a.Total != b.Total {
		out = append(out, DiffChange{Kind: DiffContextChanged, Old: strconv.Itoa(a.Total), New: strconv.Itoa(b.Total), Detail: growth(a.Total, b.Total)})
	}
	for _, t := range b.PerTool {
		if o, ok := a.Tool(t.Name); ok && o != t.Tokens {
			out = append(out, DiffChange{Kind: DiffToolTokens, Subject: t.Name, Old: strconv.Itoa(o), New: strconv.Itoa(t.Tokens), Detail: growth(o, t.Tokens)})
		}
	}
	for i := range out {
		if out[i].Kind == DiffToolAdded && out[i].Detail == "" {
			if n, ok := b.Tool(out[i].Subject); ok {
				out[i].Detail = fmt.Sprintf("%d %s tokens", n, b.Encoding)
			}
		}
	}
	return out
}

func diffLiveness(l probe.Liveness) string {
	s := string(l.Status)
	if l.Status == vocab.StatusStdoutPollution && l.HandshakeCompleted {
		s += " (handshake completed)"
	}
	if l.Detail != "" && !l.HandshakeCompleted {
		s += ": " + l.Detail
	}
	return safe.Truncate(s, diffMaxValueBytes, safe.Ellipsis)
}

// diffVersion is the target version, or the version the server named in
// the handshake when the target has none.
func diffVersion(r *probe.Result) string {
	if r.Target.Version != "" {
		return r.Target.Version
	}
	if r.Liveness.ServerInfo != nil {
		return r.Liveness.ServerInfo.Version
	}
	return ""
}

// diffVersions returns the versions to compare: the target versions when
// either run has one, else the versions the servers named in the
// handshake when both completed it (a dead server names none, which is not
// a version change).
func diffVersions(a, b *probe.Result) (va, vb string, ok bool) {
	if a.Target.Version != "" || b.Target.Version != "" {
		return a.Target.Version, b.Target.Version, true
	}
	if a.Liveness.ServerInfo != nil && b.Liveness.ServerInfo != nil {
		return a.Liveness.ServerInfo.Version, b.Liveness.ServerInfo.Version, true
	}
	return "", "", false
}

func diffDecision(r *probe.Result) string {
	if r.Verdict == nil || r.Verdict.Decision == "" {
		return "none"
	}
	// With who must act: "fix (author)", "needs_setup (user)".
	return r.Verdict.Decision + " (" + string(r.Verdict.Who()) + ")"
}

func diffDecidingRule(r *probe.Result) string {
	if r.Verdict == nil {
		return ""
	}
	for _, x := range r.Verdict.Rules {
		if x.Fired {
			return x.Name
		}
	}
	return ""
}

// diffTools compares tool lists by name: added, removed, and for tools in
// both, input schema, output schema and annotation drift.
func diffTools(a, b []probe.Tool) []DiffChange {
	var out []DiffChange
	old := map[string]*probe.Tool{}
	for i := range a {
		if _, dup := old[a[i].Name]; !dup {
			old[a[i].Name] = &a[i]
		}
	}
	seen := map[string]bool{}
	for i := range b {
		t := &b[i]
		if seen[t.Name] {
			continue
		}
		seen[t.Name] = true
		o, ok := old[t.Name]
		if !ok {
			out = append(out, DiffChange{Kind: DiffToolAdded, Subject: t.Name})
			continue
		}
		for _, f := range []struct {
			kind string
			a, b json.RawMessage
		}{
			{DiffSchemaChanged, o.InputSchema, t.InputSchema},
			{DiffOutputSchemaChanged, o.OutputSchema, t.OutputSchema},
			{DiffAnnotationsChanged, o.Annotations, t.Annotations},
		} {
			if fields, more, changed := diffRawJSON(f.a, f.b); changed {
				out = append(out, DiffChange{Kind: f.kind, Subject: t.Name, Fields: fields, MoreFields: more})
			}
		}
	}
	for i := range a {
		if !seen[a[i].Name] {
			seen[a[i].Name] = true
			out = append(out, DiffChange{Kind: DiffToolRemoved, Subject: a[i].Name})
		}
	}
	return out
}

// diffFindings reports the finding codes present in only one run, with the
// worst finding of the code as evidence.
func diffFindings(a, b []probe.Finding) []DiffChange {
	codes := func(fs []probe.Finding) []string {
		var out []string
		for _, f := range fs {
			if !slices.Contains(out, f.Code) {
				out = append(out, f.Code)
			}
		}
		slices.Sort(out)
		return out
	}
	ca, cb := codes(a), codes(b)
	var out []DiffChange
	for _, c := range cb {
		if !slices.Contains(ca, c) {
			ev, sev := diffFindingEvidence(b, c)
			out = append(out, DiffChange{Kind: DiffFindingAppeared, Subject: c, New: ev, Detail: sev})
		}
	}
	for _, c := range ca {
		if !slices.Contains(cb, c) {
			ev, sev := diffFindingEvidence(a, c)
			out = append(out, DiffChange{Kind: DiffFindingDisappeared, Subject: c, Old: ev, Detail: sev})
		}
	}
	return out
}

func diffFindingEvidence(fs []probe.Finding, code string) (evidence, severity string) {
	var first *probe.Finding
	n := 0
	for i := range fs {
		if fs[i].Code == code {
			n++
			if first == nil {
				first = &fs[i]
			}
		}
	}
	s := first.Subject + ": " + first.Message
	if n > 1 {
		s += fmt.Sprintf(" (+%d more)", n-1)
	}
	return safe.Truncate(s, diffMaxValueBytes, safe.Ellipsis), string(first.Severity)
}

// diffRawJSON compares two JSON values structurally (member order and
// insignificant space do not count) and returns the changed places.
func diffRawJSON(a, b json.RawMessage) (fields []DiffField, more int, changed bool) {
	va, oka := diffDecode(a)
	vb, okb := diffDecode(b)
	if !oka || !okb {
		// Not JSON (or absent): compare the bytes.
		if bytes.Equal(bytes.TrimSpace(a), bytes.TrimSpace(b)) {
			return nil, 0, false
		}
		return []DiffField{{Pointer: "", Old: diffShort(string(a)), New: diffShort(string(b))}}, 0, true
	}
	diffWalk("", va, vb, &fields, &more)
	return fields, more, len(fields) > 0 || more > 0
}

// diffAbsent stands for a value missing on one side.
type diffAbsent struct{}

func diffDecode(raw json.RawMessage) (any, bool) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return diffAbsent{}, true
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, false
	}
	return v, true
}

func diffWalk(ptr string, a, b any, out *[]DiffField, more *int) {
	if ma, ok := a.(map[string]any); ok {
		if mb, ok := b.(map[string]any); ok {
			keys := make([]string, 0, len(ma)+len(mb))
			for k := range ma {
				keys = append(keys, k)
			}
			for k := range mb {
				if _, ok := ma[k]; !ok {
					keys = append(keys, k)
				}
			}
			slices.Sort(keys)
			for _, k := range keys {
				va, ina := ma[k]
				vb, inb := mb[k]
				if !ina {
					va = diffAbsent{}
				}
				if !inb {
					vb = diffAbsent{}
				}
				diffWalk(ptr+"/"+diffEscape(k), va, vb, out, more)
			}
			return
		}
	}
	if sa, ok := a.([]any); ok {
		if sb, ok := b.([]any); ok && len(sa) == len(sb) {
			for i := range sa {
				diffWalk(fmt.Sprintf("%s/%d", ptr, i), sa[i], sb[i], out, more)
			}
			return
		}
	}
	ja, jb := diffRender(a), diffRender(b)
	if ja == jb {
		return
	}
	if len(*out) >= diffMaxFields {
		*more++
		return
	}
	*out = append(*out, DiffField{Pointer: ptr, Old: diffShort(ja), New: diffShort(jb)})
}

// diffRender is the compact JSON of v with sorted members, or "" for an
// absent value.
func diffRender(v any) string {
	if _, ok := v.(diffAbsent); ok {
		return ""
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func diffShort(s string) string { return safe.Truncate(s, diffMaxValueBytes, safe.Ellipsis) }

// diffEscape escapes a member name for a JSON pointer (RFC 6901).
func diffEscape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}
