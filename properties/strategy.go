package properties

import (
	"fmt"
	"strings"

	"github.com/converge-sim/converge/internal/echo"
	"github.com/converge-sim/converge/model"
	"pgregory.net/rapid"
)

// The search strategies: how the fault phase's interleaving is chosen.
const (
	// StrategyRandom draws every step from rapid: with the cluster busy,
	// choice 0 lets it settle, the others pick one enabled action. It is
	// the default.
	StrategyRandom = "random"
	// StrategyPCT is probabilistic concurrency testing (Burckhardt et al.,
	// ASPLOS 2010): random priorities per source of actions and d−1
	// priority change points, drawn from rapid before the run; every step
	// then runs the enabled action of highest priority.
	StrategyPCT = "pct"
	// StrategyExhaustive is bounded exhaustive exploration (Explore, or
	// Search to the strategy's bounds): every choice vector up to a
	// depth, not a search of rapid's.
	StrategyExhaustive = "exhaustive"
	// StrategyCoverage is coverage-guided search (strategy_coverage.go,
	// docs/design.md, "Coverage-guided search"): runs that reach new
	// coverage are kept in a corpus, and later runs mutate their fault
	// schedules and choices, as Go's native fuzzing and AFL do. It is run
	// by Search, not by rapid.
	StrategyCoverage = "coverage"
)

// DefaultPCTDepth is the bug depth d PCT aims at when Strategy.Depth is 0.
const DefaultPCTDepth = 3

// MaxPCTDepth bounds PCT's depth: each run draws d-1 change points, and
// PCT's chance of finding a bug of depth d falls as k^-(d-1), so depths
// past a handful find nothing; this bound only keeps a typo from
// allocating gigabytes.
const MaxPCTDepth = 64

// Strategy is how a property chooses the interleaving of a run's fault
// phase. The zero value is StrategyRandom. Either way the faults are drawn
// the same, and the recorded choices replay with Replay.
type Strategy struct {
	// Name is StrategyRandom (also when empty), StrategyPCT,
	// StrategyCoverage or StrategyExhaustive.
	Name string
	// Depth is PCT's bug depth d, the number of ordering constraints a bug
	// needs, or the exhaustive strategy's D, which it requires (see
	// ExploreOptions.Depth). For n threads and k steps, PCT finds a bug of depth d with
	// probability at least 1/(n·k^(d−1)) per run; here the sources of
	// actions stand for threads and k is estimated from a dry run, so the
	// bound is a guide, not a guarantee. Zero means DefaultPCTDepth; the
	// random strategy takes none.
	Depth int
	// Deviations is the exhaustive strategy's deviation bound (see
	// ExploreOptions.Deviations): zero for none; the other strategies take
	// none.
	Deviations int

	_ struct{}
}

// ParseStrategy returns the strategy named name ("random", "pct",
// "coverage" or "exhaustive") with
// PCT depth depth (0 for the default).
func ParseStrategy(name string, depth int) (Strategy, error) {
	s := Strategy{Name: name, Depth: depth}
	return s, s.Validate()
}

// searcher is one search strategy: all that Search, ConvergesWith, a
// report and a replay line need to know of it (docs/design.md,
// "Strategies"). Each strategy is a type in a file of its own
// (strategy_random.go, strategy_pct.go, strategy_coverage.go,
// strategy_exhaustive.go) with a row in strategies; the oracle (the
// runner, verdicts, diagnosis, shrinking by deletion, one bug, one
// finding) knows strategies only through this interface.
type searcher interface {
	// validate reports what is wrong with s's parameters; s names this
	// strategy, and Deviations is already checked.
	validate(s Strategy) error
	// describe renders s, as Strategy.String does.
	describe(s Strategy) string
	// search is one search of p under s: the first of one bug, one
	// finding, or its second under the faithful kinds alone, which Search
	// makes with p under that mix. replay renders the line that replays a
	// failing seed.
	search(p *Prepared, s Strategy, opts SearchOptions, replay func(seed uint64) string) (*SearchResult, error)
	// replayFlags are the flags a fuzzrun-like program needs, past
	// -scenario and -faults, before -seed, to make a seed's run of s
	// again (ReplayLine): "" for the default.
	replayFlags(s Strategy) string
	// seeded says a seed names each run, so that a report names the
	// seed; an exhaustive exploration names its bounds instead.
	seeded() bool
	// keepsCorpus says the strategy learns from the searches before it
	// through SearchOptions.Corpus.
	keepsCorpus() bool
}

// rapidSearcher is a strategy whose runs rapid draws (rapidSearch): a
// rapid property (ConvergesWith) can run it, and rapid shrinks what it
// finds.
type rapidSearcher interface {
	searcher
	// chooser returns how a run of the shape's scenario builds its
	// chooser under s: a function of the run's *rapid.T and its
	// recording rapid chooser, which it draws any up-front choices from.
	chooser(sh *shape, s Strategy) (func(*rapid.T, *rapidChooser) model.Chooser, error)
}

// strategyRow is a strategy's row of the table: its name, what it is in
// one line, and its implementation.
type strategyRow struct {
	name string
	help string
	impl searcher
}

// strategies is the table of strategies, in the order they are listed.
// A new strategy is a file with its searcher and a row here.
var strategies = []strategyRow{
	{StrategyRandom, "rapid draws every step of the fault phase (the default)", randomStrategy{}},
	{StrategyPCT, "probabilistic concurrency testing: random priorities per source of actions, d-1 change points (-pct-depth d)", pctStrategy{}},
	{StrategyExhaustive, "bounded exhaustive exploration: every choice of the first D decisions, at most K of them off the canonical schedule, with at most F faults and a scenario's inputs among N specs (-depth D, -deviations K, -max-faults F, -inputs N), deepening from 1 within -duration per row, each depth's fault trees explored by -workers goroutines side by side", exhaustiveStrategy{}},
	{StrategyCoverage, "coverage-guided: runs that reach new coverage are kept in a corpus, and later runs mutate their fault schedules and choices", coverageStrategy{}},
}

// StrategyDoc names a strategy and says what it does, for a command's
// help.
type StrategyDoc struct {
	Name string
	Help string
}

// Strategies lists the strategies ParseStrategy knows, the default first.
func Strategies() []StrategyDoc {
	out := make([]StrategyDoc, len(strategies))
	for i, r := range strategies {
		out[i] = StrategyDoc{Name: r.name, Help: r.help}
	}
	return out
}

// impl returns the strategy's implementation; ok is false for a name
// the table does not have.
func (s Strategy) impl() (_ searcher, ok bool) {
	name := s.Name
	if name == "" {
		name = StrategyRandom
	}
	for _, r := range strategies {
		if r.name == name {
			return r.impl, true
		}
	}
	return nil, false
}

// Validate reports what is wrong with the strategy.
func (s Strategy) Validate() error {
	if s.Deviations != 0 && s.Name != StrategyExhaustive {
		return fmt.Errorf("strategy %s takes no deviation bound (got %d)", s.Name, s.Deviations)
	}
	impl, ok := s.impl()
	if !ok {
		names := make([]string, len(strategies))
		for i, r := range strategies {
			names[i] = r.name
		}
		return fmt.Errorf("unknown strategy %s (known: %s)", echo.Quote(s.Name), strings.Join(names, ", "))
	}
	return impl.validate(s)
}

// noDepth is the validate of a strategy that takes no depth.
func noDepth(s Strategy) error {
	if s.Depth != 0 {
		return fmt.Errorf("strategy %s takes no depth (got %d)", s.String(), s.Depth)
	}
	return nil
}

// PCT reports whether the strategy is PCT.
func (s Strategy) PCT() bool { return s.Name == StrategyPCT }

// Seeded reports whether a seed names each of the strategy's runs, so
// that a seed replays one: true for all but the exhaustive strategy,
// whose runs its bounds name.
func (s Strategy) Seeded() bool {
	impl, ok := s.impl()
	return !ok || impl.seeded()
}

// KeepsCorpus reports whether the strategy learns from earlier searches
// through a Corpus (SearchOptions.Corpus): a command that runs many
// seeds of one row hands them one, and a run that mutated it is not made
// again by its seed alone.
func (s Strategy) KeepsCorpus() bool {
	impl, ok := s.impl()
	return ok && impl.keepsCorpus()
}

// String renders "random", "pct", "pct depth 2", "exhaustive depth 8" or
// "exhaustive depth 10, ≤3 deviations".
func (s Strategy) String() string {
	impl, ok := s.impl()
	if !ok {
		return s.Name
	}
	return impl.describe(s)
}

// stepChooser is a chooser that picks the fault phase's next step from
// the runner's state, not only from the number of choices: PCT from the
// enabled actions, exploration from the state and its sleep set. It
// returns the step in the runner's numbering among n (0 settles a busy
// cluster, as Choose(n, "step") would) and records it, so that a
// ReplayChooser, which knows nothing of strategies, replays it.
type stepChooser interface {
	chooseStep(r *runner, n int, busy bool) int
}

// chooseStep picks the next step of the fault phase among n choices: the
// enabled actions, after a first "settle" choice when the cluster is busy.
func (r *runner) chooseStep(n int, busy bool) int {
	r.gate.enter()
	defer r.gate.leave()
	if sc, ok := r.ch.(stepChooser); ok {
		return sc.chooseStep(r, n, busy)
	}
	if n > 1 {
		return r.ch.Choose(n, "step")
	}
	return 0
}

// chooserFor returns how a property run of the shape's scenario builds its
// chooser under strategy s: a function of the run's *rapid.T and its
// recording rapid chooser, which it draws any up-front choices from.
func (sh *shape) chooserFor(s Strategy) (func(*rapid.T, *rapidChooser) model.Chooser, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	impl, _ := s.impl()
	rs, ok := impl.(rapidSearcher)
	if !ok {
		return nil, fmt.Errorf("strategy %s is run by Search, not by a rapid property", s.Name)
	}
	return rs.chooser(sh, s)
}
