package fuzzrun

import (
	"fmt"
	"io"
	"strings"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
)

// replayFile replays a finding file exactly, from its schedule and
// recorded choices, and prints the report and the trace. It exits 1 when
// the replay fails other than the scenario must under the finding's mix
// (and for a hang or a crash, which replay only by seed), 0 when it fails
// as it must or passes, 2 when the file or the scenario is unusable.
func replayFile(stdout, stderr io.Writer, opts *options, scenarios []properties.Scenario) int {
	f, err := ReadFinding(opts.replay)
	if err != nil {
		fmt.Fprintf(stderr, "fuzzrun: %v\n", err)
		return ExitUsage
	}
	sc, ok := find(scenarios, f.Scenario)
	if !ok {
		fmt.Fprintf(stderr, "fuzzrun: finding file %s is for scenario %q, which this program does not have (it has: %s)\n", opts.replay, f.Scenario, names(scenarios))
		return ExitUsage
	}
	mix, _ := faults.ParseMix(f.Faults) // validated by ReadFinding
	report := stdout
	if opts.traceJSON {
		report = stderr
	}
	fmt.Fprintf(report, "replay of %s: scenario %s, faults %s, seed %d, strategy %s, found by converge %s\n",
		opts.replay, f.Scenario, f.Faults, f.Seed, f.strategy(), f.Version)
	if f.Lost() {
		fmt.Fprintf(report, "%s\nthis run never reported back, so it replays only by re-running its seed:\n  %s\n", f.Report, f.ReplaySeed)
		return ExitUnexpected
	}
	out, diverged, err := properties.Replay(sc, f.Schedule, f.Choices, properties.RunOptions{})
	if err != nil {
		fmt.Fprintf(stderr, "fuzzrun: %v\n", err)
		return ExitUsage
	}
	if out.Failure != nil {
		fmt.Fprint(report, out.Failure.Report(f.Schedule))
	} else {
		fmt.Fprintln(report, "the run passed: the finding no longer reproduces")
	}
	switch {
	case diverged:
		fmt.Fprintf(report, "warning: the run left the recorded path: the scenario or its controllers changed since the finding; search its seed again with:\n  %s\n", f.ReplaySeed)
	case f.TraceSHA256 != "" && out.Cluster.Trace().Hash() != f.TraceSHA256:
		fmt.Fprintln(report, "warning: the trace differs from the recorded one, though the run followed the recorded choices")
	}
	if code := printTrace(stdout, stderr, out.Cluster.Trace(), opts.traceJSON); code != ExitOK {
		return code
	}
	if opts.html != "" {
		run := out.Timeline(findingTitle(f), fmt.Sprintf("%s -replay %s", command(), opts.replay))
		if err := writeTimeline(opts.html, run); err != nil {
			fmt.Fprintf(stderr, "fuzzrun: -html: %v\n", err)
			return ExitUsage
		}
		fmt.Fprintf(report, "timeline: %s\n", opts.html)
	}
	return judgeReplay(sc, mix, out.Failure)
}

// replaySeed re-runs one seed of one scenario, shrinks a failure as the
// campaign did, and prints the report and the full trace.
func replaySeed(stdout, stderr io.Writer, opts *options) int {
	sc := opts.scenarios[0]
	mix := opts.mix
	if mix == nil {
		if len(sc.Expect) == 0 {
			fmt.Fprintf(stderr, "fuzzrun: scenario %s declares no fault mix; give one with -faults\n", sc.Name)
			return ExitUsage
		}
		mix = sc.Expect[0].Faults
	}
	sr, err := properties.Search(sc, mix, properties.SearchOptions{
		Checks:        1,
		Seed:          opts.seed,
		Strategy:      opts.strategy,
		ReplayCommand: func(seed uint64) string { return seedCommand(sc.Name, mix.String(), opts.strategy, seed) },
	})
	if err != nil {
		fmt.Fprintf(stderr, "fuzzrun: %v\n", err)
		return ExitUsage
	}
	report := stdout
	if opts.traceJSON {
		report = stderr
	}
	cx := sr.Counterexample
	if cx == nil {
		fmt.Fprintf(report, "scenario %s, faults %s, seed %d: converged\n", sc.Name, mix, opts.seed)
		if opts.html != "" {
			fmt.Fprintf(report, "no timeline written: -html draws a failing run\n")
		}
		return ExitOK
	}
	fmt.Fprint(report, cx.Report())
	if code := printTrace(stdout, stderr, cx.Trace, opts.traceJSON); code != ExitOK {
		return code
	}
	if opts.html != "" {
		run, err := cx.Timeline(sc)
		if err == nil {
			err = writeTimeline(opts.html, run)
		}
		if err != nil {
			fmt.Fprintf(stderr, "fuzzrun: -html: %v\n", err)
			return ExitUsage
		}
		fmt.Fprintf(report, "timeline: %s\n", opts.html)
	}
	return judgeReplay(sc, mix, cx.Failure)
}

// printTrace prints the trace as text, or as JSON lines.
func printTrace(stdout, stderr io.Writer, tr *model.Trace, asJSON bool) int {
	var err error
	if asJSON {
		err = tr.WriteJSON(stdout)
	} else {
		fmt.Fprintf(stdout, "trace (%d steps):\n", len(tr.Records))
		err = tr.WriteText(stdout)
	}
	if err != nil {
		fmt.Fprintf(stderr, "fuzzrun: writing the trace: %v\n", err)
		return ExitUsage
	}
	return ExitOK
}

// judgeReplay returns ExitUnexpected when a replay failed other than the
// scenario must under mix, and ExitOK when it failed as it must or passed
// (one passing run shows nothing unexpected).
func judgeReplay(sc properties.Scenario, mix faults.Mix, failure *properties.Failure) int {
	if failure == nil {
		return ExitOK
	}
	if e, known := sc.ExpectationFor(mix); known && e.Fails == failure.Verdict {
		return ExitOK
	}
	return ExitUnexpected
}

func names(scenarios []properties.Scenario) string {
	out := make([]string, len(scenarios))
	for i, sc := range scenarios {
		out[i] = sc.Name
	}
	return strings.Join(out, ", ")
}
