package properties

import (
	"fmt"

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
	// StrategyExhaustive is bounded exhaustive exploration (Explore):
	// every choice vector up to a depth, not a search of rapid's.
	StrategyExhaustive = "exhaustive"
	// StrategyCoverage is coverage-guided search (coverage.go,
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

// Validate reports what is wrong with the strategy.
func (s Strategy) Validate() error {
	if s.Deviations != 0 && s.Name != StrategyExhaustive {
		return fmt.Errorf("strategy %s takes no deviation bound (got %d)", s.Name, s.Deviations)
	}
	switch s.Name {
	case "", StrategyRandom, StrategyCoverage:
		if s.Depth != 0 {
			return fmt.Errorf("strategy %s takes no depth (got %d)", s.String(), s.Depth)
		}
	case StrategyPCT:
		if s.Depth < 0 || s.Depth > MaxPCTDepth {
			return fmt.Errorf("PCT depth %d: must be in [1, %d]", s.Depth, MaxPCTDepth)
		}
	case StrategyExhaustive:
		if err := checkExploreDepth("exhaustive depth", s.Depth); err != nil {
			return err
		}
		return checkDeviations("exhaustive deviations", s.Deviations, s.Depth)
	default:
		return fmt.Errorf("unknown strategy %s (known: %s, %s, %s, %s)", echo.Quote(s.Name), StrategyRandom, StrategyPCT, StrategyExhaustive, StrategyCoverage)
	}
	return nil
}

// PCT reports whether the strategy is PCT.
func (s Strategy) PCT() bool { return s.Name == StrategyPCT }

// depth returns PCT's d with the default filled in.
func (s Strategy) depth() int {
	if s.Depth == 0 {
		return DefaultPCTDepth
	}
	return s.Depth
}

// String renders "random", "pct", "pct depth 2", "exhaustive depth 8" or
// "exhaustive depth 10, ≤3 deviations".
func (s Strategy) String() string {
	switch {
	case s.Name == StrategyExhaustive && s.Deviations > 0:
		return fmt.Sprintf("%s depth %d, ≤%d deviations", StrategyExhaustive, s.Depth, s.Deviations)
	case s.Name == StrategyExhaustive:
		return fmt.Sprintf("%s depth %d", StrategyExhaustive, s.Depth)
	case s.Name == StrategyCoverage:
		return StrategyCoverage
	case !s.PCT():
		return StrategyRandom
	case s.Depth == 0 || s.Depth == DefaultPCTDepth:
		return StrategyPCT
	default:
		return fmt.Sprintf("%s depth %d", StrategyPCT, s.Depth)
	}
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
	if s.Name == StrategyExhaustive {
		return nil, fmt.Errorf("strategy %s is run by Explore, not by a search", StrategyExhaustive)
	}
	if s.Name == StrategyCoverage {
		return nil, fmt.Errorf("strategy %s is run by Search, not by a rapid property", StrategyCoverage)
	}
	if !s.PCT() {
		return func(_ *rapid.T, ch *rapidChooser) model.Chooser { return ch }, nil
	}
	layout, err := sh.pctLayout()
	if err != nil {
		return nil, err
	}
	return func(t *rapid.T, ch *rapidChooser) model.Chooser {
		return newPCTChooser(t, ch, layout, s.depth())
	}, nil
}
