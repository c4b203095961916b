package fuzzrun

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"time"

	"github.com/converge-sim/converge/properties"
)

// DefaultExploreDepth is -depth's default: the number of decisions the
// exhaustive strategy explores.
const DefaultExploreDepth = 8

// explore runs -strategy exhaustive: each row (a scenario under one fault
// mix) is explored to -depth with at most -max-faults faults, deepening
// from 1, and prints its guarantee, or its counterexample, which is
// written to -out as an ordinary finding file; a last line counts the
// rows. With -json each row is an "explored" event and the count an
// "explore-summary" event, one JSON object a line. The exit code is
// ExitUnexpected when a row shows a counterexample it must not (a row
// that must converge, or a mix the scenario does not declare).
func explore(stdout, stderr io.Writer, opts *options) int {
	all := rows(opts)
	if len(all) == 0 {
		fmt.Fprintln(stderr, "fuzzrun: no rows: the selected scenarios declare no fault mixes; pick one with -faults")
		return ExitUsage
	}
	st, warnings, err := openStore(opts.out, all)
	if err != nil {
		fmt.Fprintf(stderr, "fuzzrun: %v\n", err)
		return ExitUsage
	}
	st.wrap = opts.host.runWrap()
	for _, w := range warnings {
		fmt.Fprintf(stderr, "fuzzrun: %s\n", w)
	}
	var enc *json.Encoder
	if opts.json {
		enc = json.NewEncoder(stdout)
	}
	emit := func(v any) {
		if err := enc.Encode(v); err != nil {
			fmt.Fprintf(stderr, "fuzzrun: writing JSON: %v\n", err)
		}
	}
	// A row's workers are goroutines of this process, which tuneRuntime
	// leaves one thread unless GOMAXPROCS says otherwise.
	if opts.workers > 1 && os.Getenv("GOMAXPROCS") == "" {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(opts.workers))
	}
	began := time.Now()
	// shortWithInputs says a row that stopped short explored inputs.
	shortWithInputs := false
	sum := exploreSummaryEvent{Type: "explore-summary", ExitCode: ExitOK}
	// On a terminal, a row being explored shows the depth it has finished
	// on a line the row's result then replaces; in a pipe or a file
	// nothing, so logs hold only results.
	terminal := enc == nil && isTerminal(stdout)
	for _, row := range all {
		start := time.Now()
		var progress func(properties.ExploreResult)
		switch {
		case enc != nil:
			progress = func(r properties.ExploreResult) {
				emit(exploreDepthEvent{Type: "explore-depth", Scenario: row.Scenario.Name, Faults: row.Mix.String(), Depth: r.Depth,
					States: r.States, Executions: r.Executions, Elapsed: time.Since(start).Seconds()})
			}
		case terminal:
			fmt.Fprintf(stdout, "\r%s [%s]: exploring depth 1…\x1b[K", row.Scenario.Name, row.Mix)
			progress = func(r properties.ExploreResult) {
				fmt.Fprintf(stdout, "\r%s\x1b[K", exploringLine(row, r, opts.strategy.Depth, time.Since(start)))
			}
		}
		eo := properties.ExploreOptions{
			Depth:      opts.strategy.Depth,
			Deviations: opts.strategy.Deviations,
			Faults:     opts.exploreFaults,
			Budget:     opts.duration,
			MaxStates:  opts.maxStates,
			Inputs:     opts.exploreInputs,
			NoInputs:   opts.exploreInputs == 0,
			Workers:    opts.workers,
			Progress:   progress,
			Wrap:       opts.host.searchWrap(),
		}
		res, err := properties.Explore(row.Scenario, row.Mix, eo)
		if err != nil {
			fmt.Fprintf(stderr, "fuzzrun: %s under %s: %v\n", row.Scenario.Name, row.Mix, err)
			return ExitUsage
		}
		ev := exploredEvent{Type: "explored", Scenario: row.Scenario.Name, Faults: row.Mix.String(), Depth: res.Depth,
			MaxFaults: res.MaxFaults, Deviations: res.Deviations, TimedOut: res.TimedOut, States: res.States,
			Executions: res.Executions, CacheFull: res.CacheFull, Unfingerprinted: res.Unfingerprinted, Guarantee: res.Guarantee(), Elapsed: time.Since(start).Seconds()}
		if terminal {
			fmt.Fprint(stdout, "\r\x1b[K")
		}
		if enc == nil {
			fmt.Fprintf(stdout, "%s [%s, %.1fs]\n", ev.Guarantee, row.Mix, ev.Elapsed)
		}
		sum.Rows++
		if res.TimedOut {
			sum.Short++
			shortWithInputs = shortWithInputs || res.InputSpecs > 0
		}
		cx := res.Counterexample
		if cx == nil {
			sum.Without++
			if enc != nil {
				emit(ev)
			}
			continue
		}
		sum.With++
		rerun := properties.ExploreLine(command(), row.Scenario, row.Mix, res.Depth, eo)
		cx.Replay = rerun
		j := &job{Scenario: row.Scenario.Name, Faults: row.Mix.String(), Strategy: properties.StrategyExhaustive, Depth: opts.strategy.Depth, Deviations: opts.strategy.Deviations}
		f := newFinding(j, cx)
		f.ReplaySeed = rerun
		f.Expected = row.expects(string(cx.Failure.Verdict))
		if !f.Expected {
			sum.ExitCode = ExitUnexpected
			sum.Unexpected++
		}
		stored, _, err := st.add(f)
		file := stored.path
		if err != nil {
			// As in a campaign: said once, and no row after it is
			// explored (docs/ci.md).
			fmt.Fprintf(stderr, "fuzzrun: cannot write finding %s: %v; stopping\n", stored.path, err)
			sum.ExitCode, sum.WriteErrors, file = ExitUsage, 1, ""
		}
		if file != "" {
			cx.Replay = stored.f.Replay
		}
		if enc != nil {
			ev.Counterexample = &exploredCounterexample{Property: cx.Failure.Property, Verdict: string(cx.Failure.Verdict),
				Summary: cx.Failure.Summary, Expected: f.Expected, File: file, Replay: cx.Replay, Report: cx.Report()}
			emit(ev)
		} else {
			fmt.Fprint(stdout, cx.Report())
			if file != "" {
				fmt.Fprintf(stdout, "finding written to %s (its timeline page beside it, .html)\n", file)
			}
		}
		if err != nil {
			break
		}
	}
	sum.Elapsed = time.Since(began).Seconds()
	if enc != nil {
		emit(sum)
	} else {
		fmt.Fprintf(stdout, "exhaustive: rows without a counterexample within their bounds: %d; with one: %d, unexpected: %d\n", sum.Without, sum.With, sum.Unexpected)
		if sum.WriteErrors > 0 {
			fmt.Fprintf(stdout, "exhaustive: stopped after %d of %d rows: a finding could not be written to %s (see the error above)\n", sum.Rows, len(all), opts.out)
		}
		if sum.Short > 0 {
			ways := "a longer -duration or a deviation bound (-deviations K)"
			if shortWithInputs {
				ways = "a longer -duration, a deviation bound (-deviations K) or fewer input specs (-inputs N)"
			}
			fmt.Fprintf(stdout, "exhaustive: rows that spent their budget (-duration %v) before depth %d: %d; %s explores deeper\n", opts.duration, opts.strategy.Depth, sum.Short, ways)
		}
	}
	return sum.ExitCode
}

// exploringLine is the terminal's line for a row that has finished
// depth r.Depth of depth, after elapsed.
func exploringLine(row Row, r properties.ExploreResult, depth int, elapsed time.Duration) string {
	line := fmt.Sprintf("%s [%s]: depth %d of %d explored (%d states, %d executions, %.1fs)",
		row.Scenario.Name, row.Mix, r.Depth, depth, r.States, r.Executions, elapsed.Seconds())
	if r.Depth < depth {
		line += fmt.Sprintf("; exploring depth %d…", r.Depth+1)
	}
	return line
}

// The JSON events of -strategy exhaustive -json, one object a line.
type (
	// exploredEvent is one row's exploration: its bounds and counts, the
	// guarantee as printed, and its counterexample, if any.
	exploredEvent struct {
		Type            string                  `json:"type"` // "explored"
		Scenario        string                  `json:"scenario"`
		Faults          string                  `json:"faults"`
		Depth           int                     `json:"depth"`
		MaxFaults       int                     `json:"max_faults"`
		Deviations      int                     `json:"deviations,omitempty"`
		TimedOut        bool                    `json:"timed_out"`
		States          int                     `json:"states"`
		Executions      int                     `json:"executions"`
		CacheFull       bool                    `json:"cache_full,omitempty"`
		Unfingerprinted []string                `json:"unfingerprinted,omitempty"`
		Guarantee       string                  `json:"guarantee"`
		Elapsed         float64                 `json:"elapsed_s"`
		Counterexample  *exploredCounterexample `json:"counterexample,omitempty"`
	}
	// exploreDepthEvent is a depth a row's exploration finished without a
	// counterexample, with the states and executions so far, for watching
	// a long exploration.
	exploreDepthEvent struct {
		Type       string  `json:"type"` // "explore-depth"
		Scenario   string  `json:"scenario"`
		Faults     string  `json:"faults"`
		Depth      int     `json:"depth"`
		States     int     `json:"states"`
		Executions int     `json:"executions"`
		Elapsed    float64 `json:"elapsed_s"`
	}
	// exploredCounterexample is a row's counterexample: what it violates,
	// whether the row must show it, its finding file (with -out), the
	// command that finds it again and the full report.
	exploredCounterexample struct {
		Property string `json:"property"`
		Verdict  string `json:"verdict"`
		Summary  string `json:"summary"`
		Expected bool   `json:"expected"`
		File     string `json:"file,omitempty"`
		Replay   string `json:"replay"`
		Report   string `json:"report"`
	}
	// exploreSummaryEvent counts the rows, those whose budget ran out
	// before the requested depth among them, and gives the exit code.
	exploreSummaryEvent struct {
		Type       string `json:"type"` // "explore-summary"
		Rows       int    `json:"rows"`
		Short      int    `json:"short_of_depth"`
		Without    int    `json:"without_counterexample"`
		With       int    `json:"with_counterexample"`
		Unexpected int    `json:"unexpected"`
		// WriteErrors is 1 when a finding could not be written to -out,
		// which stopped the exploration.
		WriteErrors int     `json:"write_errors,omitempty"`
		Elapsed     float64 `json:"elapsed_s"`
		ExitCode    int     `json:"exit_code"`
	}
)
