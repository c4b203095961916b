package fuzzrun

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/properties"
)

// RequireFixed turns a finding file into a regression test: it fails t
// while the bug the finding recorded is still there (see Fixed).
//
//	func TestEdgeDropIsFixed(t *testing.T) {
//		fuzzrun.RequireFixed(t, "testdata/finding-replicaset-edge-goal-unmet-6122bddfe348.json", scenarios.All()...)
//	}
func RequireFixed(t testing.TB, path string, scenarios ...properties.Scenario) {
	t.Helper()
	if err := Fixed(path, scenarios...); err != nil {
		t.Fatal(err)
	}
}

// Fixed returns nil when the bug of the finding in path is gone from
// scenarios, and an error saying why not otherwise: the file cannot be
// read, its scenario is missing, the recorded run (its schedule and
// interleaving choices, replayed exactly) still violates the same
// property, or its seed, searched again, still does. The second check
// catches the bug when a code change has moved it off the recorded path.
// A hang is still there when its seed's run does not finish within the
// recorded -run-timeout; a crash, when re-running its seed crashes the
// test binary.
func Fixed(path string, scenarios ...properties.Scenario) error {
	f, err := ReadFinding(path)
	if err != nil {
		return err
	}
	sc, ok := find(scenarios, f.Scenario)
	if !ok {
		return fmt.Errorf("finding file %s is for scenario %q, which is not among %s", path, f.Scenario, names(scenarios))
	}
	if err := f.fit(sc, nil); err != nil {
		return fmt.Errorf("finding file %s does not fit scenario %s: %w", path, sc.Name, err)
	}
	mix, _ := faults.ParseMix(f.Faults) // validated by ReadFinding
	if !f.Lost() {
		out, _, err := properties.Replay(sc, f.Schedule, f.Choices, properties.RunOptions{Inputs: f.Transitions})
		if err != nil {
			return err
		}
		if out.Failure != nil && out.Failure.Property == f.Property {
			return fmt.Errorf("%s: the bug is still there: the recorded run fails again:\n%s", path, out.Failure.Report(f.Schedule))
		}
	}
	search := func() (*properties.SearchResult, error) {
		return properties.Search(sc, mix, properties.SearchOptions{
			Checks: 1, Seed: f.Seed, Strategy: f.strategy(),
			ReplayCommand: func(seed uint64) string { return seedCommand(sc.Name, mix, f.strategy(), seed) },
		})
	}
	var res *properties.SearchResult
	if f.Verdict == VerdictHang {
		res, err = withTimeout(time.Duration(f.RunTimeout*float64(time.Second)), search)
		if err != nil {
			return fmt.Errorf("%s: the bug is still there: %w", path, err)
		}
	} else if res, err = search(); err != nil {
		return err
	}
	if cx := res.Counterexample; cx != nil && cx.Failure.Property == f.Property {
		return fmt.Errorf("%s: the bug is still there: seed %d fails again:\n%s", path, f.Seed, cx.Report())
	}
	return nil
}

// errTimedOut is withTimeout's error when it gives up.
var errTimedOut = errors.New("timed out")

// withTimeout runs search and gives up on it after d. A search given up on
// keeps its goroutine, and rapid's settings with it: no other search can
// run in the process, which is failing anyway.
func withTimeout(d time.Duration, search func() (*properties.SearchResult, error)) (*properties.SearchResult, error) {
	type outcome struct {
		res *properties.SearchResult
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := search()
		done <- outcome{res, err}
	}()
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case o := <-done:
		return o.res, o.err
	case <-timer.C:
		return nil, fmt.Errorf("%w: the run still does not finish within %v", errTimedOut, d)
	}
}
