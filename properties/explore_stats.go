package properties

import (
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/converge-sim/converge/model"
)

// exploreStats breaks an exploration's work down (docs/design.md,
// "Bounded exhaustive exploration": where the work goes): tests and
// measurements set it through an unexported option; Explore leaves it nil
// and pays nothing for it.
type exploreStats struct {
	// byTree, byFault and byStrike sum executions and steps per tree
	// ("fault-free" or a class), per kind of the fault that struck ("none"
	// when none did) and per strike time.
	byTree, byFault map[string]*workStats
	byStrike        map[model.Time]*workStats
	// total splits every execution's steps into the replayed prefix, the
	// decisions within the bound, the fault phase's canonical completion
	// and quiescence.
	total workStats
	// values counts decision points by their number of values, kinds the
	// values by the kind of action they run ("settle" for settling).
	values map[int]int
	kinds  map[string]int
	// asleep counts the values skipped as asleep.
	asleep int
	// prunedWithin and prunedPast count runs pruned within the bound and
	// past it, prunedAt them by the step they stopped at (in buckets of
	// 100).
	prunedWithin, prunedPast int
	prunedAt                 map[int]int
	// newAfterFault and prunedAfterFault count the first decision points
	// after a fault's choice whose state was new, or explored.
	newAfterFault, prunedAfterFault int
}

// workStats is the work of a set of executions.
type workStats struct {
	executions, pruned                          int
	steps, prefix, decisions, completion, quiet int
}

func newExploreStats() *exploreStats {
	return &exploreStats{byTree: map[string]*workStats{}, byFault: map[string]*workStats{}, byStrike: map[model.Time]*workStats{},
		values: map[int]int{}, kinds: map[string]int{}, prunedAt: map[int]int{}}
}

func (w *workStats) add(v workStats) {
	w.executions += v.executions
	w.pruned += v.pruned
	w.steps += v.steps
	w.prefix += v.prefix
	w.decisions += v.decisions
	w.completion += v.completion
	w.quiet += v.quiet
}

func bucket[K comparable](m map[K]*workStats, k K) *workStats {
	w, ok := m[k]
	if !ok {
		w = &workStats{}
		m[k] = w
	}
	return w
}

// execution records one execution of sched's tree: its total steps and,
// for one that reached quiescence, the step it began at.
func (s *exploreStats) execution(treeName string, strike model.Time, struck string, ch *exploreChooser, total, quietFrom int, pruned bool) {
	prefix := min(max(ch.prefixSteps, 0), total)
	if ch.prefixSteps < 0 {
		prefix = total
	}
	within := max(ch.withinSteps, prefix)
	w := workStats{executions: 1, steps: total, prefix: prefix, decisions: within - prefix}
	if quietFrom > 0 {
		w.completion, w.quiet = quietFrom-within, total-quietFrom
	} else {
		w.completion = total - within
	}
	if pruned {
		w.pruned = 1
		if ch.counted < ch.bound {
			s.prunedWithin++
		} else {
			s.prunedPast++
		}
		s.prunedAt[total/100*100]++
	}
	s.total.add(w)
	bucket(s.byTree, treeName).add(w)
	bucket(s.byFault, struck).add(w)
	if treeName != "fault-free" {
		bucket(s.byStrike, strike).add(w)
	}
}

// decision records a new decision point within the bound.
func (s *exploreStats) decision(r *runner, n int, busy bool, asleep []bool) {
	s.values[n]++
	for v := range n {
		if asleep != nil && asleep[v] {
			s.asleep++
		}
		if busy {
			if v == 0 {
				s.kinds["settle"]++
				continue
			}
			v--
		}
		s.kinds[actionKindNames[r.acts[v].Kind]]++
	}
}

// write prints the breakdown.
func (s *exploreStats) write(w io.Writer) {
	row := func(name string, v *workStats) {
		pct := func(x int) float64 { return 100 * float64(x) / float64(max(v.steps, 1)) }
		fmt.Fprintf(w, "  %-14s exec %8d pruned %8d steps %11d  prefix %5.1f%% decisions %5.1f%% completion %5.1f%% quiescence %5.1f%%  steps/exec %6.0f\n",
			name, v.executions, v.pruned, v.steps, pct(v.prefix), pct(v.decisions), pct(v.completion), pct(v.quiet), float64(v.steps)/float64(max(v.executions, 1)))
	}
	fmt.Fprintln(w, "total:")
	row("all", &s.total)
	fmt.Fprintln(w, "by tree:")
	for _, k := range slices.Sorted(maps.Keys(s.byTree)) {
		row(k, s.byTree[k])
	}
	fmt.Fprintln(w, "by fault that struck:")
	for _, k := range slices.Sorted(maps.Keys(s.byFault)) {
		row(k, s.byFault[k])
	}
	fmt.Fprintln(w, "by strike time:")
	for _, k := range slices.Sorted(maps.Keys(s.byStrike)) {
		row(fmt.Sprint("t=", k), s.byStrike[k])
	}
	fmt.Fprintln(w, "decision points by values:")
	for _, k := range slices.Sorted(maps.Keys(s.values)) {
		fmt.Fprintf(w, "  %d: %d\n", k, s.values[k])
	}
	fmt.Fprintf(w, "values by kind (asleep %d):\n", s.asleep)
	for _, k := range slices.Sorted(maps.Keys(s.kinds)) {
		fmt.Fprintf(w, "  %s: %d\n", k, s.kinds[k])
	}
	fmt.Fprintf(w, "first decision point after a fault's choice: new %d, explored %d\n", s.newAfterFault, s.prunedAfterFault)
	fmt.Fprintf(w, "pruned within the bound %d, past it %d; by step:\n", s.prunedWithin, s.prunedPast)
	for _, k := range slices.Sorted(maps.Keys(s.prunedAt)) {
		fmt.Fprintf(w, "  %d-%d: %d\n", k, k+99, s.prunedAt[k])
	}
}

var actionKindNames = map[model.ActionKind]string{model.ActDeliver: "deliver", model.ActRewatch: "rewatch", model.ActReconcile: "reconcile",
	model.ActCollect: "collect", model.ActActor: "actor", model.ActRival: "rival", model.ActTimer: "timer"}
