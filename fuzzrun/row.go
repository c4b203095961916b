package fuzzrun

import (
	"fmt"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/internal/quantile"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
)

// Row is one line of a campaign: a scenario under one fault mix.
type Row struct {
	Scenario properties.Scenario
	Mix      faults.Mix
	// Expect is what the scenario must show under Mix; Known is false when
	// the scenario declares nothing for this mix.
	Expect properties.Expectation
	Known  bool
}

// expects reports whether a failure with verdict v is what the row must
// show.
func (row Row) expects(v string) bool {
	return row.Known && row.Expect.Fails != "" && string(row.Expect.Fails) == v
}

// RowResult is what a campaign found for one row.
type RowResult struct {
	Scenario string `json:"scenario"`
	Faults   string `json:"faults"`
	Runs     int    `json:"runs"`
	Failures int    `json:"failures"`
	// Unexpected counts the failures whose verdict the row does not
	// expect.
	Unexpected int `json:"unexpected"`
	// Adversarial counts the failures whose shrunk schedule needs an
	// adversarial fault: handler bugs, not what real clusters do.
	Adversarial int `json:"adversarial"`
	// FirstFailingSeed is the lowest failing seed, 0 if none.
	FirstFailingSeed uint64 `json:"first_failing_seed,omitempty"`
	// ShrunkFaults is the number of faults in that failure's shrunk
	// schedule, -1 if none failed.
	ShrunkFaults int `json:"shrunk_faults"`
	// ShrunkTransitions is the number of state transitions in that
	// failure's shrunk input, for a scenario with inputs.
	ShrunkTransitions int `json:"shrunk_transitions,omitempty"`
	// FirstVerdict is that failure's verdict.
	FirstVerdict string `json:"first_verdict,omitempty"`
	// FirstLost is set when that failure is a lost run (Finding.Lost):
	// it has no shrunk schedule.
	FirstLost bool   `json:"first_lost,omitempty"`
	Expect    string `json:"expect"`
	OK        bool   `json:"ok"`
	// NotShown is set when the row must fail and no run failed within its
	// budget: not a wrong verdict, the budget ran out (ExitNotShown).
	NotShown bool `json:"not_shown,omitempty"`
	// Error is set when the row could not run at all.
	Error string `json:"error,omitempty"`
	// Converge summarizes the passing runs' times to converge.
	Converge *ConvergeStats `json:"converge,omitempty"`

	first, firstUnexpected *Finding
	// times summarizes the passing runs' times to converge in bounded
	// memory, however many runs the row has.
	times quantile.Sketch
}

// ConvergeStats are percentiles of the virtual time passing runs took to
// converge after the cluster healed (properties.Outcome.ConvergeTime),
// from a quantile.Sketch: Max is exact, and so are P50 and P99 below 256
// ticks; above, each is at most the exact nearest-rank percentile and
// less than 1/128 (0.79%) below it (docs/design.md, "Time to converge").
type ConvergeStats struct {
	Runs int        `json:"runs"`
	P50  model.Time `json:"p50"`
	P99  model.Time `json:"p99"`
	Max  model.Time `json:"max"`
}

// String renders "p50/p99/max", in ticks.
func (s *ConvergeStats) String() string {
	if s == nil {
		return "-"
	}
	return fmt.Sprintf("%d/%d/%d", s.P50, s.P99, s.Max)
}

// converged records a passing run's time to converge. A negative one, which
// a worker of this program never reports, means the row's results cannot
// be trusted: it is the row's error.
func (r *RowResult) converged(t model.Time) {
	if err := r.times.Add(int64(t)); err != nil && r.Error == "" {
		r.Error = fmt.Sprintf("a worker reported a time to converge of %d ticks: %v", t, err)
	}
}

// convergeStats summarizes times by the nearest-rank percentiles; nil when
// there are none.
func convergeStats(times *quantile.Sketch) *ConvergeStats {
	if times.Count() == 0 {
		return nil
	}
	return &ConvergeStats{Runs: int(times.Count()), P50: model.Time(times.Quantile(50)), P99: model.Time(times.Quantile(99)), Max: model.Time(times.Max())}
}

// failed records a failure of the row.
func (r *RowResult) failed(f *Finding) {
	r.Failures++
	if f.FaultClass == string(faults.Adversarial) {
		r.Adversarial++
	}
	if !f.Expected {
		r.Unexpected++
		if r.firstUnexpected == nil || f.Seed < r.firstUnexpected.Seed {
			r.firstUnexpected = f
		}
	}
	if r.first != nil && r.first.Seed <= f.Seed {
		return
	}
	r.first = f
	r.FirstFailingSeed = f.Seed
	r.ShrunkFaults = len(f.Schedule)
	r.ShrunkTransitions = len(f.Transitions)
	r.FirstVerdict = f.Verdict
	r.FirstLost = f.Lost()
}

// judge sets OK: a row that must converge has no failure; a row that must
// fail has failed, always with the expected verdict; a row without an
// expectation is ok when nothing failed. A row that must fail and has no
// failure at all is not OK but NotShown.
func (r *RowResult) judge(row Row) {
	r.Converge = convergeStats(&r.times)
	r.Expect = "converges"
	if row.Known {
		r.Expect = row.Expect.String()
	}
	switch {
	case r.Error != "":
		r.OK = false
	case !row.Known || row.Expect.Fails == "":
		r.OK = r.Failures == 0
	default:
		r.OK = r.Failures > 0 && r.Unexpected == 0
		r.NotShown = r.Failures == 0
	}
}

// rows lists the campaign's rows: each scenario under each mix it declares,
// or under the one mix given with -faults.
func rows(opts *options) []Row {
	var out []Row
	for _, sc := range opts.scenarios {
		if opts.mix != nil {
			e, ok := sc.ExpectationFor(opts.mix)
			out = append(out, Row{Scenario: sc, Mix: opts.mix, Expect: e, Known: ok})
			continue
		}
		for _, e := range sc.Expect {
			out = append(out, Row{Scenario: sc, Mix: e.Faults, Expect: e, Known: true})
		}
	}
	return out
}
