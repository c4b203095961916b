package properties

import (
	"io"

	"github.com/converge-sim/converge/faults"
)

// FaultPerTree returns opts exploring each fault in trees of its own, as
// the explorer once did: the reference tests compare shared fault trees
// with.
func FaultPerTree(opts ExploreOptions) ExploreOptions {
	opts.faultPerTree = true
	return opts
}

// WithoutMemo returns opts making every run of a search, even one that
// repeats a run that passed.
func WithoutMemo(opts SearchOptions) SearchOptions {
	opts.noMemo = true
	return opts
}

// ExploreWithStats explores as Explore does and writes where the work
// went to w.
func ExploreWithStats(sc Scenario, mix faults.Mix, opts ExploreOptions, w io.Writer) (ExploreResult, error) {
	opts.stats = newExploreStats()
	res, err := Explore(sc, mix, opts)
	opts.stats.write(w)
	return res, err
}

// Eager returns opts choosing every fault when it strikes, as the
// explorer once did: the reference tests compare deciding API errors,
// restarts between writes and delays where they act with.
func Eager(opts ExploreOptions) ExploreOptions {
	opts.eager = true
	return opts
}

// WithExecutionBudget returns opts whose budget is spent once n
// executions have run, a point tests can choose, unlike a time.
func WithExecutionBudget(opts ExploreOptions, n int) ExploreOptions {
	opts.executionBudget = n
	return opts
}

// ObservingRuns returns opts calling observe with every run the search
// makes or its memo answers, and the choices it made.
func ObservingRuns(opts SearchOptions, observe func(out *Outcome, choices []int)) SearchOptions {
	opts.observe = observe
	return opts
}

// PlanOf returns the faults planned from the reference run of p for a
// search from seed (plan.go), before the search's share cuts it.
func PlanOf(p *Prepared, seed uint64) []faults.Schedule {
	return plannedSchedules(p.shape.dry.landmarks, p.mix, p.plan.Topology, p.plan.Budget, seed)
}

// RunPlanned makes one planned run of sched in p, as a search does.
func RunPlanned(p *Prepared, sched faults.Schedule) (*Outcome, []int, error) {
	ch := &planChooser{}
	out, err := p.execute(sched, ch, RunOptions{})
	return out, ch.log, err
}

// WithoutPlan makes a random search without the faults planned from
// the reference run, as before them.
func WithoutPlan(opts SearchOptions) SearchOptions {
	opts.NoPlan = true
	return opts
}

// PlannedRunsOf returns the schedules of the planned runs of p for a
// search from seed, in the order a search runs them (plannedRounds).
func PlannedRunsOf(p *Prepared, seed uint64) []faults.Schedule {
	var out []faults.Schedule
	for _, run := range p.wholePlan(seed) {
		out = append(out, run.sched)
	}
	return out
}
