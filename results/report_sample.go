package results

import (
	"encoding/json"
	"math"
	"reflect"

	"github.com/mcpvet/mcpvet/vocab"
)

// entryCounts are one registry entry's plans, for intervals clustered by
// entry: the plans of one entry (an entry may have a dozen remotes) are
// not independent draws.
type entryCounts struct {
	plans, launched, handshake int
	groups                     map[string]int
	verdicts                   map[string]int
}

func (t *Tally) entry(name string) *entryCounts {
	ec := t.perEntry[name]
	if ec == nil {
		ec = &entryCounts{groups: map[string]int{}, verdicts: map[string]int{}}
		t.perEntry[name] = ec
	}
	return ec
}

// ClusteredCI returns the 95% interval of the ratio sum(k)/sum(n) over
// clusters, with the cluster-robust (linearised) variance
// m/(m-1) * sum((k_i - p*n_i)^2) / (sum n_i)^2, clipped to [0, 1]. Fewer
// than two clusters or no trials have no interval (NaN).
func ClusteredCI(k, n []int) (lo, hi float64) {
	m := len(k)
	var sk, sn float64
	for i := range k {
		sk += float64(k[i])
		sn += float64(n[i])
	}
	if m < 2 || sn == 0 {
		return math.NaN(), math.NaN()
	}
	p := sk / sn
	var ss float64
	for i := range k {
		d := float64(k[i]) - p*float64(n[i])
		ss += d * d
	}
	se := math.Sqrt(float64(m)/float64(m-1)*ss) / sn
	return math.Max(0, p-Z95*se), math.Min(1, p+Z95*se)
}

// clustered sets p's interval clustered by entry, counting with k and n
// per entry; entries without trials (n = 0) are left out.
func (t *Tally) clustered(p *Proportion, k, n func(*entryCounts) int) {
	var ks, ns []int
	for _, ec := range t.perEntry {
		if nn := n(ec); nn > 0 {
			ks, ns = append(ks, k(ec)), append(ns, nn)
		}
	}
	p.Low, p.High = ClusteredCI(ks, ns)
	if len(ks) >= 2 && sameRate(ks, ns) {
		// Every entry at the rate of the whole (all at 0, or all at 1):
		// the linearised variance is 0, which claims certainty; state the
		// Wilson interval of the entries instead, as if each were one
		// trial.
		p.Low, p.High = Wilson(int(math.Round(p.Rate*float64(len(ks)))), len(ks), Z95)
	}
}

// sameRate reports whether every cluster has the rate of the whole,
// k_i/n_i = sum(k)/sum(n), compared in integers: exactly the clusters
// whose linearised variance is 0. (In floating point that variance can
// come out a rounding error above 0, and a real interval of a very large
// sample can be narrower than any tolerance.)
func sameRate(k, n []int) bool {
	var sk, sn int
	for i := range k {
		sk += k[i]
		sn += n[i]
	}
	for i := range k {
		if k[i]*sn != sk*n[i] {
			return false
		}
	}
	return true
}

// sampleIntervals replaces the Wilson intervals of the plan-level figures
// (handshake, liveness groups, verdict shares) by intervals clustered by
// registry entry, for a sample. Entry-level figures keep their Wilson
// interval: entries are the units a sample draws.
func (t *Tally) sampleIntervals(c *Census) {
	plans := func(ec *entryCounts) int { return ec.plans }
	t.clustered(&c.Handshake, func(ec *entryCounts) int { return ec.handshake }, plans)
	t.clustered(&c.HandshakeOfLaunched, func(ec *entryCounts) int { return ec.handshake }, func(ec *entryCounts) int { return ec.launched })
	for i := range c.Liveness {
		g := c.Liveness[i].Group
		t.clustered(&c.Liveness[i].Share, func(ec *entryCounts) int { return ec.groups[g] }, plans)
	}
	assessed := func(ec *entryCounts) int {
		return ec.verdicts[vocab.DecisionKeep] + ec.verdicts[vocab.DecisionFix] + ec.verdicts[vocab.DecisionDrop]
	}
	for d, p := range map[string]*Proportion{vocab.DecisionKeep: &c.Verdicts.Keep, vocab.DecisionFix: &c.Verdicts.Fix, vocab.DecisionDrop: &c.Verdicts.Drop} {
		t.clustered(p, func(ec *entryCounts) int { return ec.verdicts[d] }, assessed)
	}
}

// markExact marks every [Proportion] reachable from v as exact: a complete
// census has no sampling error, so it states counts and rates without
// intervals.
func markExact(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			markExact(v.Elem())
		}
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[Proportion]() {
			if v.CanSet() {
				v.FieldByName("Exact").SetBool(true)
			}
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				markExact(v.Field(i))
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			markExact(v.Index(i))
		}
	}
}

// Sampled reports whether a scan's options say it ran a --sample of its
// source (only then do reports state confidence intervals).
func Sampled(options []byte) bool {
	var o struct {
		Sample int `json:"sample"`
	}
	return json.Unmarshal(options, &o) == nil && o.Sample > 0
}

// ConditionsOf reads the run conditions a scan recorded in its options,
// or nil for a scan made before they were recorded.
func ConditionsOf(options []byte) *vocab.Conditions {
	var o struct {
		C *vocab.Conditions `json:"runConditions"`
	}
	if json.Unmarshal(options, &o) != nil {
		return nil
	}
	return o.C
}
