package suite

import (
	"flag"
	"strings"
	"testing"
	"time"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/properties"
)

var quiet = flag.Duration("operators.quiet", 0, "run an input campaign of the goal-free history-dependent oracle for this budget (TestQuiet)")

// QuietBudget returns the budget of -operators.quiet, and skips t when
// the flag is not set: a campaign is a measurement, not a check.
func QuietBudget(t *testing.T) time.Duration {
	t.Helper()
	if *quiet <= 0 {
		t.Skip("an input campaign: run with -operators.quiet=10m")
	}
	return *quiet
}

// Finding is one counterexample of an input campaign.
type Finding struct {
	// Seed is the rapid seed of the run that failed first; the search
	// of one check from it finds the finding again.
	Seed uint64
	// Runs is the number of runs of the campaign up to and including
	// this finding's first failing run.
	Runs int
	// Verdict, Summary and Details are the shrunk failure's.
	Verdict properties.Verdict
	Summary string
	Details []string
	// Report is the counterexample's whole report, replay line last.
	Report string
	// Inputs are the transitions of the shrunk run, its specs in order:
	// a test can tell the real finding from a false one by its inputs.
	Inputs properties.Transitions
}

// Campaign is what an input campaign found.
type Campaign struct {
	// Runs is the number of runs made (not counting shrinking).
	Runs int
	// Elapsed is the wall time the campaign took, shrinking included.
	Elapsed time.Duration
	// Findings are the counterexamples, in the order found.
	Findings []Finding
}

// Quiet runs an input campaign of sc, which must have Inputs: one run per
// seed, seeds 1, 2, 3, … each searched alone (one check) with no fault,
// in its own synctest bubble, until budget has passed or maxRuns runs
// were made (0: no bound). Every counterexample is shrunk, logged with
// its seed, summary, details and runs so far, and the campaign goes on
// from the next seed. It fails t only when a run cannot be made.
//
// The measure of issue 35, "a measure of quietness": the ignores and the
// declared input space (crd.GenOptions) a user needs before such a
// campaign of the goal-free history-dependent oracle (docs/design.md,
// state-transition inputs) shows no false finding.
func Quiet(t *testing.T, sc properties.Scenario, budget time.Duration, maxRuns int) Campaign {
	t.Helper()
	return QuietWith(t, sc, QuietOptions{Budget: budget, MaxRuns: maxRuns})
}

// QuietOptions bound an input campaign (QuietWith).
type QuietOptions struct {
	// Budget is the wall time after which no run starts.
	Budget time.Duration
	// MaxRuns bounds the runs; 0: no bound.
	MaxRuns int
	// MaxFindings ends the campaign after this many findings; 0: no
	// bound.
	MaxFindings int
	// ShrinkTime bounds the shrinking of each finding
	// (properties.SearchOptions.ShrinkTime); 0: to its fixed point, or
	// -rapid.shrinktime's limit.
	ShrinkTime time.Duration
	_          struct{}
}

// QuietWith is Quiet with every bound: a test that asserts what a
// campaign finds keeps its CPU bounded with MaxFindings and ShrinkTime.
func QuietWith(t *testing.T, sc properties.Scenario, o QuietOptions) Campaign {
	t.Helper()
	budget, maxRuns := o.Budget, o.MaxRuns
	if sc.Inputs == nil {
		t.Fatalf("scenario %s has no inputs", sc.Name)
	}
	p, err := properties.Prepare(sc, faults.Mix{})
	if err != nil {
		t.Fatal(err)
	}
	var c Campaign
	start := time.Now()
	for seed := uint64(1); time.Since(start) < budget && (maxRuns == 0 || c.Runs < maxRuns) && (o.MaxFindings == 0 || len(c.Findings) < o.MaxFindings); seed++ {
		res, err := p.Search(properties.SearchOptions{Checks: 1, Seed: seed, Wrap: properties.InBubble(t), Test: t, ShrinkTime: o.ShrinkTime})
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		c.Runs += res.Runs
		cx := res.Counterexample
		if cx == nil {
			continue
		}
		f := Finding{Seed: seed, Runs: c.Runs, Verdict: cx.Failure.Verdict, Summary: cx.Failure.Summary, Details: cx.Failure.Details, Report: cx.Report(), Inputs: cx.Inputs}
		c.Findings = append(c.Findings, f)
		t.Logf("QUIET %s finding %d: seed %d, after %d runs, %s: %s\n  details:\n    %s\n%s", sc.Name, len(c.Findings), f.Seed, f.Runs, f.Verdict, f.Summary, strings.Join(f.Details, "\n    "), f.Report)
	}
	c.Elapsed = time.Since(start)
	t.Logf("QUIET %s: %d runs in %v, %d findings (%.0f runs per 10 min)", sc.Name, c.Runs, c.Elapsed.Round(time.Second), len(c.Findings), float64(c.Runs)/c.Elapsed.Minutes()*10)
	return c
}
