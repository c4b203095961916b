package fuzzrun

import (
	"fmt"
	"time"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
	"pgregory.net/rapid"
)

// job is a batch of runs for a worker: seeds of one row, each searched by
// rapid with one check and shrunk if it fails. Batches keep workers busy
// between round trips to the campaign; the worker still reports every
// seed as soon as it is done, and ends the job once it has run for Budget
// (a failing seed takes far longer than a passing one, as it shrinks), so
// that jobs stay short. The campaign runs the seeds left over later.
type job struct {
	ID       int           `json:"id"`
	Row      int           `json:"row"`
	Scenario string        `json:"scenario"`
	Faults   string        `json:"faults"`
	Seeds    []uint64      `json:"seeds"`
	Budget   time.Duration `json:"budget"`
	Strategy string        `json:"strategy,omitempty"`
	Depth    int           `json:"pct_depth,omitempty"`
	// Deviations is the exhaustive strategy's deviation bound.
	Deviations int `json:"deviations,omitempty"`
	// PlanFrom is, in a random campaign that runs the plan, the
	// campaign's first seed (-seed): the seed PlanFrom+2k+1 is then the
	// row's planned run k+1 (properties.SearchOptions.PlanRun), in the
	// order PlanFrom gives the plan, while the plan has runs, and a seed
	// of rapid's otherwise (planRun; docs/design.md, "The plan in
	// campaigns"). Zero: seeds alone (-no-plan, another strategy).
	PlanFrom uint64 `json:"plan_from,omitempty"`
}

// planRun is the run of the row's plan that seed stands for in a job
// whose PlanFrom is from, from 1, or 0 for a seed of rapid's: the odd
// offsets from the campaign's first seed are the plan's runs, in turn,
// while the plan (of planned runs) lasts. The offset, not the job or the
// shard, decides: every shard and retry agrees on it.
func planRun(from, seed uint64, planned int) int {
	if from == 0 || seed < from {
		return 0
	}
	off := seed - from
	if off%2 == 0 || (off-1)/2 >= uint64(planned) {
		return 0
	}
	return int((off-1)/2) + 1
}

func (j *job) strategy() properties.Strategy {
	name := j.Strategy
	if name == "" {
		name = properties.StrategyRandom
	}
	return properties.Strategy{Name: name, Depth: j.Depth, Deviations: j.Deviations}
}

// result is what a worker reports for one seed of a job: a finding when
// the run failed, an error when it could not run at all (which ends the
// job). A last result with Done ends the job.
type result struct {
	Job     int      `json:"job"`
	Seed    uint64   `json:"seed,omitempty"`
	Finding *Finding `json:"finding,omitempty"`
	Error   string   `json:"error,omitempty"`
	Done    bool     `json:"done,omitempty"`
	// ConvergeTime is a passing run's time to converge, in ticks.
	ConvergeTime *model.Time `json:"converge_time,omitempty"`
}

// plans are the scenarios a worker runs, each prepared once per fault mix
// (properties.Prepare) the first time a job needs it: a worker serves
// many jobs of a campaign's rows, and every seed of a row reuses its
// preparation.
type plans struct {
	scenarios []properties.Scenario
	prepared  map[planKey]*properties.Prepared
	// corpora are the coverage-guided strategy's corpora, one per row:
	// each seed of a row mutates what the seeds the worker ran before it
	// found (docs/design.md, "Coverage-guided search").
	corpora map[planKey]*properties.Corpus
	// wrap is every search's Wrap: a testing/synctest bubble in a test
	// binary's worker (MainTest), else nil.
	wrap func(func(*rapid.T)) func(*rapid.T)
}

type planKey struct{ scenario, faults string }

func newPlans(scenarios []properties.Scenario, wrap func(func(*rapid.T)) func(*rapid.T)) *plans {
	return &plans{scenarios: scenarios, prepared: map[planKey]*properties.Prepared{}, corpora: map[planKey]*properties.Corpus{}, wrap: wrap}
}

// prepare returns sc prepared under mix, preparing it the first time.
func (ps *plans) prepare(sc properties.Scenario, mix faults.Mix) (*properties.Prepared, error) {
	key := planKey{sc.Name, mix.String()}
	if p, ok := ps.prepared[key]; ok {
		return p, nil
	}
	// The dry run that scales the budget to the run is wrapped as the
	// searches are, so that a controller reading the clock is measured
	// in its bubble.
	p, err := properties.PrepareWith(sc, mix, properties.PrepareOptions{Wrap: ps.wrap})
	if err != nil {
		return nil, err
	}
	ps.prepared[key] = p
	return p, nil
}

// corpus returns the row's corpus under the coverage-guided strategy,
// making it the first time; nil under the others.
func (ps *plans) corpus(sc properties.Scenario, mix faults.Mix, s properties.Strategy) *properties.Corpus {
	if !s.KeepsCorpus() {
		return nil
	}
	key := planKey{sc.Name, mix.String()}
	c := ps.corpora[key]
	if c == nil {
		c = properties.NewCorpus()
		ps.corpora[key] = c
	}
	return c
}

// runJob runs a job's seeds against the scenarios of ps, until its budget
// is spent, reporting each result to report, and the end of the job last.
// It stops after a run that hung, and returns true: the hung run's
// goroutine is still in this process, and only ending the process stops
// it.
func runJob(j *job, ps *plans, report func(result)) (hung bool) {
	defer report(result{Job: j.ID, Done: true})
	sc, ok := find(ps.scenarios, j.Scenario)
	if !ok {
		report(result{Job: j.ID, Error: fmt.Sprintf("unknown scenario %q", j.Scenario)})
		return false
	}
	mix, err := faults.ParseMix(j.Faults)
	if err != nil {
		report(result{Job: j.ID, Error: err.Error()})
		return false
	}
	strategy := j.strategy()
	start := time.Now()
	for i, seed := range j.Seeds {
		if i > 0 && time.Since(start) >= j.Budget {
			return false
		}
		res := result{Job: j.ID, Seed: seed}
		var sr *properties.SearchResult
		planned := 0
		p, err := ps.prepare(sc, mix)
		if err == nil {
			opts := properties.SearchOptions{
				Checks:        1,
				Seed:          seed,
				Strategy:      strategy,
				Corpus:        ps.corpus(sc, mix, strategy),
				ReplayCommand: func(seed uint64) string { return seedCommand(j.Scenario, mix, strategy, seed) },
				Wrap:          ps.wrap,
			}
			if planned = planRun(j.PlanFrom, seed, p.PlannedRuns()); planned > 0 {
				// One run of the plan the campaign's first seed orders:
				// the same run in every worker and shard.
				opts.Seed, opts.PlanRun = j.PlanFrom, planned
			}
			sr, err = p.Search(opts)
		}
		switch {
		case err != nil:
			res.Error = err.Error()
		case sr.Counterexample != nil:
			if planned > 0 {
				// The finding is the campaign's seed's, which a seed
				// replay does not make again: its file does (Replay is
				// empty, the report says so).
				sr.Counterexample.Seed = seed
			}
			res.Finding = newFinding(j, sr.Counterexample)
			res.Finding.Planned = sr.Counterexample.Planned
			res.Finding.ReplaySeed = sr.Counterexample.Replay
		case len(sr.ConvergeTimes) == 1:
			res.ConvergeTime = &sr.ConvergeTimes[0]
		}
		report(res)
		if res.Finding != nil && res.Finding.Verdict == string(properties.Hang) {
			return true
		}
		if res.Error != "" {
			return false
		}
	}
	return false
}

// seedCommand is the command that re-runs (and re-shrinks) one seed with
// this program.
func seedCommand(scenario string, mix faults.Mix, s properties.Strategy, seed uint64) string {
	return properties.ReplayLine(command(), scenario, mix, s, seed)
}
