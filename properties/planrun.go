package properties

import (
	"fmt"

	"github.com/converge-sim/converge/faults"
)

// The plan in campaigns (docs/design.md, "Faults planned from the
// reference run", "The plan in campaigns"): a campaign searches one run
// per seed, so the interleave of a search of many runs never happens in
// it; instead each of its planned runs is a search of its own, one run of
// the plan (SearchOptions.PlanRun), spread over workers and shards as the
// seeds are.

// PlannedRuns is the number of runs of the plan of faults read off the
// scenario's reference run, the whole plan (a search of many runs takes
// at most half its runs from it): 0 for a mix without faults, a scenario
// with inputs, or one no dry run measured. Its length does not depend on
// the seed, which orders it.
func (p *Prepared) PlannedRuns() int {
	return len(p.wholePlan(1))
}

// MaxPlannedRuns bounds PlannedRuns under mix, for any scenario: what a
// campaign that does not prepare the scenario itself can know of its
// plan (fuzzrun, for a run that never reported back).
func MaxPlannedRuns(mix faults.Mix) int { return 2 * maxPlanned * len(mix) }

// wholePlan is the plan ordered by seed, untruncated: plannedRuns is its
// prefix, so that run k of a campaign is run k of a search from the same
// seed.
func (p *Prepared) wholePlan(seed uint64) []plannedRun {
	if !p.plannable() {
		return nil
	}
	return plannedRounds(planRounds(p.shape.dry.landmarks, p.mix, p.plan.Topology, p.plan.Budget, seed), p.plan.Budget.MaxFaults)
}

// plannable says the prepared mix has a plan: it has faults, the
// scenario no inputs (its planned runs would have none), and a dry run
// measured it.
func (p *Prepared) plannable() bool {
	dry := p.shape.dry
	return len(p.mix) > 0 && p.shape.sc.Inputs == nil && dry != nil && dry.landmarks != nil
}

// checkPlanRun validates SearchOptions.PlanRun.
func (p *Prepared) checkPlanRun(opts SearchOptions) error {
	switch {
	case opts.PlanRun == 0:
		return nil
	case opts.PlanRun < 0:
		return fmt.Errorf("plan run %d: runs of the plan are numbered from 1", opts.PlanRun)
	case opts.Strategy.Name != "" && opts.Strategy.Name != StrategyRandom:
		return fmt.Errorf("plan run %d: the plan is the random strategy's, not %s's", opts.PlanRun, opts.Strategy.Name)
	case opts.NoPlan:
		return fmt.Errorf("plan run %d with NoPlan: choose one", opts.PlanRun)
	case opts.Seed == 0:
		return fmt.Errorf("plan run %d: a seed must order the plan", opts.PlanRun)
	}
	if n := p.PlannedRuns(); opts.PlanRun > n {
		return fmt.Errorf("plan run %d: scenario %s under %s has %d planned runs", opts.PlanRun, p.shape.sc.Name, p.mix, n)
	}
	return nil
}

// onePlanned makes run opts.PlanRun of the plan that opts.Seed orders, as
// interleave makes it (the same schedule, the same draws), and sees it.
func (p *Prepared) onePlanned(opts *SearchOptions, prog *progress, see func(*Outcome, []int)) (*plannedFailure, error) {
	plan := p.wholePlan(opts.Seed)
	k := opts.PlanRun
	if k > len(plan) {
		return nil, fmt.Errorf("plan run %d: scenario %s under %s has %d planned runs", k, p.shape.sc.Name, p.mix, len(plan))
	}
	return p.runPlanned(plan[k-1], k, opts, prog, see)
}
