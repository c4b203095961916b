package fuzzrun

import (
	"time"

	"github.com/converge-sim/converge/faults"
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

// RowResult is what a campaign found for one row.
type RowResult struct {
	Scenario string `json:"scenario"`
	Faults   string `json:"faults"`
	Runs     int    `json:"runs"`
	Failures int    `json:"failures"`
	// FirstFailingSeed is the seed of the first failing run, 0 if none.
	FirstFailingSeed uint64 `json:"first_failing_seed,omitempty"`
	// ShrunkFaults is the number of faults in the first failure's shrunk
	// schedule, -1 if none failed.
	ShrunkFaults int `json:"shrunk_faults"`
	// FirstVerdict is the first failure's verdict.
	FirstVerdict string `json:"first_verdict,omitempty"`
	Expect       string `json:"expect"`
	OK           bool   `json:"ok"`
	// Error is set when the row could not run at all.
	Error string `json:"error,omitempty"`

	first *properties.Counterexample
}

// judge sets OK: a row that must converge has no failure; a row that must
// fail has failed with the expected verdict; a row without an expectation
// is ok when nothing failed.
func (r *RowResult) judge(row Row) {
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
		r.OK = r.Failures > 0 && r.FirstVerdict == string(row.Expect.Fails)
	}
}

// runRow runs seeds start, start+1, … of the row until the deadline, one
// rapid run per seed; every failure is shrunk.
func runRow(row Row, start uint64, deadline time.Time) RowResult {
	res := RowResult{Scenario: row.Scenario.Name, Faults: row.Mix.String(), ShrunkFaults: -1}
	for seed := start; res.Runs == 0 || time.Now().Before(deadline); seed++ {
		sr, err := properties.Search(row.Scenario, row.Mix, properties.SearchOptions{Checks: 1, Seed: seed})
		if err != nil {
			res.Error = err.Error()
			break
		}
		res.Runs++
		if cx := sr.Counterexample; cx != nil {
			res.Failures++
			if res.first == nil {
				res.first = cx
				res.FirstFailingSeed = cx.Seed
				res.ShrunkFaults = len(cx.Schedule)
				res.FirstVerdict = string(cx.Failure.Verdict)
			}
		}
	}
	res.judge(row)
	return res
}
