package fuzzrun

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/internal/echo"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
)

// replayFile replays a finding file exactly, from its schedule and
// recorded choices, and prints the report and the trace. It exits 1 when
// the replay fails other than the scenario must under the finding's mix
// (and for a hang, crash or oom that never reported back, which replay
// only by seed), or when two replays differ (nondeterministic); 0 when it
// fails as it must or passes; 2 when the file is unusable or does not
// fit the scenario, including a replay that leaves the recorded path.
func replayFile(stdout, stderr io.Writer, opts *options, scenarios []properties.Scenario) int {
	f, err := ReadFinding(opts.replay)
	if err != nil {
		fmt.Fprintf(stderr, "fuzzrun: %v\n", err)
		return ExitUsage
	}
	sc, ok := find(scenarios, f.Scenario)
	if !ok {
		fmt.Fprintf(stderr, "fuzzrun: finding file %s is for scenario %s, which this program does not have (it has: %s)\n", opts.replay, echo.Quote(f.Scenario), names(scenarios))
		return ExitUsage
	}
	if err := f.fit(sc, opts.host.searchWrap()); err != nil {
		fmt.Fprintf(stderr, "fuzzrun: finding file %s does not fit scenario %s: %v\n", opts.replay, sc.Name, err)
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
		if f.ReplaySeed == "" && !f.strategy().KeepsCorpus() {
			fmt.Fprintf(report, "%s\nthis run never reported back, and no seed replay makes it again\n", f.Report)
			return ExitUnexpected
		}
		if f.ReplaySeed == "" {
			fmt.Fprintf(report, "%s\nthis run never reported back, and it mutated the corpus its worker had built (-strategy coverage), which went with the worker: it cannot be made again; run the campaign's row under -strategy random to search for it by seed\n", f.Report)
			return ExitUnexpected
		}
		fmt.Fprintf(report, "%s\nthis run never reported back, so it replays only by re-running its seed:\n  %s\n", f.Report, f.ReplaySeed)
		return ExitUnexpected
	}
	// Two replays: a controller that reads something outside the model
	// (a clock, a global, map order) shows as two runs of the same
	// schedule and choices that differ.
	out, divergence, err := replayOnce(sc, f, opts.host.runWrap())
	if err != nil {
		fmt.Fprintf(stderr, "fuzzrun: %v\n", err)
		return ExitUsage
	}
	again := out
	if !hung(out) { // a hang costs its time limit: once is enough
		if again, _, err = replayOnce(sc, f, opts.host.runWrap()); err != nil {
			fmt.Fprintf(stderr, "fuzzrun: %v\n", err)
			return ExitUsage
		}
	}
	if diff := firstDifference(out, again); diff != "" {
		fmt.Fprintf(stderr, "fuzzrun: nondeterministic: the controller reads something outside the model: two replays of the same schedule and choices differ %s\n", diff)
		return ExitUnexpected
	}
	if divergence != "" {
		again := "search its seed again with: " + echo.Clip(f.ReplaySeed, 1000)
		if f.ReplaySeed == "" {
			again = "its run mutated a coverage corpus, so its seed alone does not search for it again"
		}
		fmt.Fprintf(stderr, "fuzzrun: finding file %s does not fit scenario %s: the replay left the recorded path: %s; the scenario or its controllers changed since the finding, or the file was edited; %s\n", opts.replay, sc.Name, divergence, again)
		return ExitUsage
	}
	if f.TraceSHA256 != "" && out.Cluster.Trace().Hash() != f.TraceSHA256 && !hung(out) {
		fmt.Fprintf(stderr, "fuzzrun: nondeterministic: the replay followed the recorded choices but its trace differs from the recorded one: the controller reads something outside the model that differs between processes, or the code changed since the finding\n")
		return ExitUnexpected
	}
	if out.Failure != nil {
		fmt.Fprint(report, out.Failure.Report(f.Schedule))
	} else {
		fmt.Fprintln(report, "the run passed: the finding no longer reproduces")
	}
	if code := printTrace(stdout, stderr, out.Cluster.Trace(), opts.traceJSON); code != ExitOK {
		return code
	}
	if opts.html != "" {
		run := out.Timeline(findingTitle(f), fmt.Sprintf("%s -replay %s", command(), opts.replay))
		if code := writeReplayTimeline(report, stderr, opts.html, run); code != ExitOK {
			return code
		}
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
	// Each run of the search has its own time limit (a hang is then a
	// counterexample); -run-timeout bounds the whole search, shrinking
	// included.
	sr, err := withTimeout(opts.runTimeout, func() (*properties.SearchResult, error) {
		return properties.Search(sc, mix, properties.SearchOptions{
			Checks:        1,
			Seed:          opts.seed,
			Strategy:      opts.strategy,
			ReplayCommand: func(seed uint64) string { return seedCommand(sc.Name, mix, opts.strategy, seed) },
			Wrap:          opts.host.searchWrap(),
		})
	})
	if errors.Is(err, errTimedOut) {
		fmt.Fprintf(stderr, "fuzzrun: hang: scenario %s, faults %s, seed %d: the search did not finish within -run-timeout %v\n", sc.Name, mix, opts.seed, opts.runTimeout)
		return ExitUnexpected
	}
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
			// A passing run gets its page too, marked "No property
			// violated", like a finding that no longer reproduces.
			title := fmt.Sprintf("scenario %s, faults %s, seed %d", sc.Name, mix, opts.seed)
			run := sr.Passed.Timeline(title, seedCommand(sc.Name, mix, opts.strategy, opts.seed))
			if code := writeReplayTimeline(report, stderr, opts.html, run); code != ExitOK {
				return code
			}
		}
		return ExitOK
	}
	fmt.Fprint(report, cx.Report())
	if code := printTrace(stdout, stderr, cx.Trace, opts.traceJSON); code != ExitOK {
		return code
	}
	if opts.html != "" {
		run, err := cx.TimelineIn(sc, opts.host.runWrap())
		if err != nil {
			fmt.Fprintf(stderr, "fuzzrun: -html: %v\n", err)
			return ExitUsage
		}
		if code := writeReplayTimeline(report, stderr, opts.html, run); code != ExitOK {
			return code
		}
	}
	return judgeReplay(sc, mix, cx.Failure)
}

// replayOnce runs the finding's schedule and choices once, inside wrap
// when it is not nil, and says how the run left the recorded path ("" if
// it did not).
func replayOnce(sc properties.Scenario, f *Finding, wrap func(func())) (*properties.Outcome, string, error) {
	ch := &properties.ReplayChooser{Choices: f.Choices}
	out, err := properties.Execute(sc, f.Schedule, ch, properties.RunOptions{Inputs: f.Transitions, Wrap: wrap})
	if err != nil {
		return nil, "", err
	}
	if hung(out) {
		return out, "", nil // a hang stops where it hung: its choices end there too
	}
	return out, ch.Divergence(), nil
}

// hung reports whether the run was given up on as a hang.
func hung(out *properties.Outcome) bool {
	return out.Failure != nil && out.Failure.Verdict == properties.Hang
}

// firstDifference describes where two runs of the same input differ
// ("at step 7: ... / ..."), or returns "".
func firstDifference(a, b *properties.Outcome) string {
	ra, rb := a.Cluster.Trace().Records, b.Cluster.Trace().Records
	for i := range min(len(ra), len(rb)) {
		if x, y := ra[i].String(), rb[i].String(); x != y {
			return fmt.Sprintf("at step %d:\n  first:  %s\n  second: %s", ra[i].Step, x, y)
		}
	}
	switch {
	case len(ra) != len(rb):
		return fmt.Sprintf("in length: %d steps, then %d", len(ra), len(rb))
	case (a.Failure == nil) != (b.Failure == nil):
		return "in outcome: one failed, the other passed"
	case a.Failure != nil && a.Failure.Report(nil) != b.Failure.Report(nil):
		return fmt.Sprintf("in outcome:\n  first:  %s\n  second: %s", a.Failure.Summary, b.Failure.Summary)
	}
	return ""
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
