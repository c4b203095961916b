package fuzzrun

import (
	"fmt"
	"io"
	"time"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/properties"
)

// DefaultExploreDepth is -depth's default: the number of decisions the
// exhaustive strategy explores.
const DefaultExploreDepth = 8

// explore runs -strategy exhaustive: each row (a scenario under one fault
// mix) is explored to -depth with at most -max-faults faults, deepening
// from 1, and prints its guarantee, or its counterexample, which is
// written to -out as an ordinary finding file; a last line counts the
// rows. The exit code is ExitUnexpected when a row shows a counterexample
// it must not (a row that must converge, or a mix the scenario does not
// declare).
func explore(stdout, stderr io.Writer, opts *options) int {
	all := rows(opts)
	if len(all) == 0 {
		fmt.Fprintln(stderr, "fuzzrun: no rows: the selected scenarios declare no fault mixes; pick one with -faults")
		return ExitUsage
	}
	st, warnings, err := openStore(opts.out)
	if err != nil {
		fmt.Fprintf(stderr, "fuzzrun: %v\n", err)
		return ExitUsage
	}
	for _, w := range warnings {
		fmt.Fprintf(stderr, "fuzzrun: %s\n", w)
	}
	code := ExitOK
	var nothing, found, unexpected int
	for _, row := range all {
		start := time.Now()
		res, err := properties.Explore(row.Scenario, row.Mix, properties.ExploreOptions{
			Depth:      opts.strategy.Depth,
			Deviations: opts.strategy.Deviations,
			Faults:     opts.exploreFaults,
			Budget:     opts.duration,
		})
		if err != nil {
			fmt.Fprintf(stderr, "fuzzrun: %s under %s: %v\n", row.Scenario.Name, row.Mix, err)
			return ExitUsage
		}
		fmt.Fprintf(stdout, "%s [%s, %.1fs]\n", res.Guarantee(), row.Mix, time.Since(start).Seconds())
		cx := res.Counterexample
		if cx == nil {
			nothing++
			continue
		}
		found++
		rerun := exploreCommand(row.Scenario.Name, row.Mix, opts)
		cx.Replay = rerun
		j := &job{Scenario: row.Scenario.Name, Faults: row.Mix.String(), Strategy: properties.StrategyExhaustive, Depth: opts.strategy.Depth, Deviations: opts.strategy.Deviations}
		f := newFinding(j, cx)
		f.ReplaySeed = rerun
		f.Expected = row.expects(string(cx.Failure.Verdict))
		if !f.Expected {
			code = ExitUnexpected
			unexpected++
		}
		stored, _, err := st.add(f)
		if err != nil {
			fmt.Fprintf(stderr, "fuzzrun: %v\n", err)
			return ExitUsage
		}
		if stored.path != "" {
			cx.Replay = stored.f.Replay
		}
		fmt.Fprint(stdout, cx.Report())
		if stored.path != "" {
			fmt.Fprintf(stdout, "finding written to %s\n", stored.path)
		}
	}
	fmt.Fprintf(stdout, "exhaustive: rows without a counterexample within their bounds: %d; with one: %d, unexpected: %d\n", nothing, found, unexpected)
	return code
}

// exploreCommand is the command that explores a row again.
func exploreCommand(scenario string, mix faults.Mix, opts *options) string {
	return properties.ExploreLine(command(), scenario, mix, opts.strategy.Depth, opts.exploreFaults, opts.strategy.Deviations)
}
