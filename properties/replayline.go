package properties

import (
	"fmt"
	"strings"

	"github.com/converge-sim/converge/faults"
)

// ReplayLine renders the command that re-runs, and re-shrinks, one seed of
// a search with a fuzzrun-like program (fuzzrun's own, or a
// Scenario.Program): "program -scenario S -faults M -seed N", with
// the strategy's own flags before the seed ("-strategy pct", and
// "-pct-depth d" only when d is not DefaultPCTDepth). It is the one place such a line is rendered, for
// Search and for fuzzrun alike.
func ReplayLine(program, scenario string, mix faults.Mix, s Strategy, seed uint64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s -scenario %s -faults %s", program, scenario, mix)
	if impl, ok := s.impl(); ok {
		if f := impl.replayFlags(s); f != "" {
			b.WriteString(" " + f)
		}
	}
	fmt.Fprintf(&b, " -seed %d", seed)
	return b.String()
}

// ExploreLine renders the command that finds an exploration's
// counterexample again with a fuzzrun-like program: "program -strategy
// exhaustive -scenario S -faults M -depth D -max-faults F -duration 0",
// with "-deviations K" when K binds at depth D. D is the counterexample's
// depth: deepening explores depths 1 to D-1 again, as the exploration
// that found it did, without a counterexample, and depth D in the same
// order, so the line finds the same one; without a budget (-duration 0),
// so that a slower machine finds it too, in about the time the
// exploration took to. The other bounds are opts': a bound of D
// deviations or more binds at no depth up to D and is left out, and for a
// scenario with inputs "-inputs N" is there when N is not
// DefaultExploreInputs ("-inputs 0" for NoInputs). It is the one place
// such a line is rendered, for Explore and for fuzzrun alike.
func ExploreLine(program string, sc Scenario, mix faults.Mix, depth int, opts ExploreOptions) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s -strategy %s -scenario %s", program, StrategyExhaustive, sc.Name)
	if len(mix) > 0 {
		fmt.Fprintf(&b, " -faults %s", mix)
	}
	fmt.Fprintf(&b, " -depth %d -max-faults %d", depth, opts.maxFaults())
	if k := binding(opts.Deviations, depth); k > 0 {
		fmt.Fprintf(&b, " -deviations %d", k)
	}
	switch {
	case sc.Inputs == nil:
	case opts.NoInputs:
		b.WriteString(" -inputs 0")
	case opts.inputSpecs() != DefaultExploreInputs:
		fmt.Fprintf(&b, " -inputs %d", opts.inputSpecs())
	}
	b.WriteString(" -duration 0")
	return b.String()
}

// replayer is how a search renders the line that replays its finding:
// the caller's SearchOptions.ReplayCommand, else the scenario's Program
// line (ReplayLine), else the go test line of SearchOptions.Test.
type replayer struct {
	command  func(seed uint64) string
	program  string
	scenario string
	strategy Strategy
	// goTest is the go test line without its seed; start is the seed
	// the search starts from.
	goTest string
	start  uint64
}

// newReplayer chooses the replay line of a search of sc with opts, whose
// Seed is already the one the search starts from. A search whose
// findings no line could replay is an error.
func newReplayer(sc Scenario, opts SearchOptions) (replayer, error) {
	r := replayer{command: opts.ReplayCommand, program: sc.Program, scenario: sc.Name, strategy: opts.Strategy, start: opts.Seed}
	if opts.Test != nil {
		// Also with a command or a Program line: a planned run's finding
		// replays by the go test line (planned).
		line, err := goTestLine(opts.Test.Name())
		if err != nil && r.command == nil && r.program == "" {
			return replayer{}, err
		}
		r.goTest = line
	}
	switch {
	case r.command != nil, r.program != "", r.goTest != "":
	default:
		return replayer{}, fmt.Errorf("scenario %s: a finding could not be replayed: declare Scenario.Program (the fuzzrun-like program that knows the scenario), or set SearchOptions.Test or SearchOptions.ReplayCommand", sc.Name)
	}
	return r, nil
}

// under returns the replay line of a seed that fails a search under mix;
// second says the search is the second of one bug, one finding, under the
// faithful kinds alone. A caller's command (fuzzrun's, which re-runs one
// seed with one check under the whole mix, repeating both searches) is
// kept. A go test line cannot name another mix: for the second search it
// names the seed both searches started from, which repeats them.
func (r replayer) under(mix faults.Mix, second bool) func(seed uint64) string {
	switch {
	case r.command != nil:
		return r.command
	case r.program != "":
		return func(seed uint64) string { return ReplayLine(r.program, r.scenario, mix, r.strategy, seed) }
	case second:
		return func(uint64) string { return fmt.Sprintf("%s -rapid.seed=%d", r.goTest, r.start) }
	default:
		return func(seed uint64) string { return fmt.Sprintf("%s -rapid.seed=%d", r.goTest, seed) }
	}
}

// planned gives a planned run's counterexample the go test line, which
// re-runs the whole search from the seed it started from and makes the
// planned run again, and no line without a test: a caller's command or a
// Program's line re-runs one seed with one run, which is rapid's, not
// the plan's (docs/design.md, "Faults planned from the reference run").
func (r replayer) planned(cx *Counterexample) {
	if cx == nil || cx.Planned == 0 {
		return
	}
	cx.Replay = ""
	if r.goTest != "" {
		cx.Replay = fmt.Sprintf("%s -rapid.seed=%d", r.goTest, r.start)
	}
}
