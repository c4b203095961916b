package properties

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// blindStrategy is a strategy that lives in this test file only: it
// shows that a new strategy is one file and a row of the table, and that
// the oracle (runner, verdicts, deletion of faults, one bug, one finding,
// reports) takes it without a change (docs/design.md, "Strategies"). It
// searches blind, outside rapid and with no feedback: run i draws its
// schedule and inputs from the mix's generators seeded by (seed, i), as
// the coverage-guided strategy's fresh runs do, and each choice among n
// is 0 half the time, else uniform among the others.
type blindStrategy struct{}

// blind is the test strategy's name.
const blind = "blind"

func (blindStrategy) validate(s Strategy) error { return noDepth(s) }
func (blindStrategy) describe(Strategy) string  { return blind }
func (blindStrategy) replayFlags(Strategy) string {
	return "-strategy " + blind
}
func (blindStrategy) seeded() bool      { return true }
func (blindStrategy) keepsCorpus() bool { return false }

func (blindStrategy) search(p *Prepared, s Strategy, opts SearchOptions, replay func(uint64) string) (*SearchResult, error) {
	checks := opts.Checks
	if checks == 0 {
		checks = rapidChecks()
	}
	res := &SearchResult{}
	for i := range checks {
		rng := rand.New(rand.NewPCG(opts.Seed, uint64(i)))
		sched, inputs := p.freshSchedule(rng), p.freshInputs(rng)
		ch := &blindChooser{rng: rng}
		out, err := p.execute(sched, ch, RunOptions{Logger: opts.Logger, Timeout: opts.RunTimeout, Inputs: inputs, Wrap: runWrap(opts.Wrap)})
		if err != nil {
			return nil, err
		}
		res.Runs++
		if out.Failure == nil {
			res.Passed = out
			continue
		}
		fr, choices, shrunk, deletions, err := p.deleteUnneeded(out, ch.log, opts)
		if err != nil {
			return nil, err
		}
		res.Counterexample = p.counterexample(fr, choices, s, opts.Seed, replay(opts.Seed), shrunk, deletions)
		return res, nil
	}
	return res, nil
}

// blindChooser makes each choice among n from rng: 0 half the time, else
// uniform among the others; it records them for Replay.
type blindChooser struct {
	rng *rand.Rand
	log []int
}

func (c *blindChooser) Choose(n int, _ string) int {
	v := 0
	if n > 1 && c.rng.IntN(2) == 1 {
		v = 1 + c.rng.IntN(n-1)
	}
	c.log = append(c.log, v)
	return v
}

// PlugBlind adds the blind strategy to the table for the test's
// duration.
func PlugBlind(t testing.TB) string {
	saved := strategies
	strategies = append(slices.Clip(strategies), strategyRow{name: blind, help: "every run drawn afresh, no feedback (a test's)", impl: blindStrategy{}})
	t.Cleanup(func() { strategies = saved })
	return blind
}
