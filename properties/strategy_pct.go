package properties

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/converge-sim/converge/model"
	"pgregory.net/rapid"
)

// pctStrategy is StrategyPCT: its runs are rapid's (rapidSearch), each
// with a pctChooser whose priorities and change points rapid draws first.
type pctStrategy struct{}

func (pctStrategy) validate(s Strategy) error {
	if s.Depth < 0 || s.Depth > MaxPCTDepth {
		return fmt.Errorf("PCT depth %d: must be in [1, %d]", s.Depth, MaxPCTDepth)
	}
	return nil
}

func (pctStrategy) describe(s Strategy) string {
	if s.Depth == 0 || s.Depth == DefaultPCTDepth {
		return StrategyPCT
	}
	return fmt.Sprintf("%s depth %d", StrategyPCT, s.Depth)
}

// replayFlags are "-strategy pct", and "-pct-depth d" only when d is not
// DefaultPCTDepth.
func (pctStrategy) replayFlags(s Strategy) string {
	if d := s.depth(); d != DefaultPCTDepth {
		return fmt.Sprintf("-strategy %s -pct-depth %d", StrategyPCT, d)
	}
	return "-strategy " + StrategyPCT
}

func (pctStrategy) seeded() bool      { return true }
func (pctStrategy) keepsCorpus() bool { return false }

func (pctStrategy) search(p *Prepared, _ Strategy, opts SearchOptions, replay func(uint64) string) (*SearchResult, error) {
	return p.rapidSearch(opts, replay)
}

func (pctStrategy) chooser(sh *shape, s Strategy) (func(*rapid.T, *rapidChooser) model.Chooser, error) {
	layout, err := sh.pctLayout()
	if err != nil {
		return nil, err
	}
	return func(t *rapid.T, ch *rapidChooser) model.Chooser {
		return newPCTChooser(t, ch, layout, s.depth())
	}, nil
}

// depth returns PCT's d with the default filled in.
func (s Strategy) depth() int {
	if s.Depth == 0 {
		return DefaultPCTDepth
	}
	return s.Depth
}

// pctLayout is a scenario's PCT layout: its sources (PCT's "threads",
// numbered by model.Sources) and the number of steps the change points
// are drawn from.
type pctLayout struct {
	model.Sources
	// steps is PCT's k, the range the change points are drawn from.
	steps int
}

// staticLayout reads the sources of a scenario's actions from a built,
// started cluster; its steps are estimateSteps' to fill in.
func staticLayout(c *model.Cluster) pctLayout { return pctLayout{Sources: c.Sources()} }

// estimateSteps estimates PCT's k for layout l of the shape's scenario as
// the length of the fault phase of one fault-free dry run in which every
// source gets to act: actors first, the clock last.
func (sh *shape) estimateSteps(l pctLayout) (pctLayout, error) {
	prio := make([]int, l.Len())
	for s := range prio {
		prio[s] = s
	}
	prio[l.Clock()] = -1
	for i := range l.Actors {
		prio[l.Actor(i)] = len(prio) + i
	}
	l.steps = sh.b.faultSteps
	dry := &pctChooser{Chooser: firstChoice{}, layout: l, prio: prio}
	out, err := executeWith(sh.sc, &sh.b, nil, dry, RunOptions{DiscardTrace: true})
	if err != nil {
		return pctLayout{}, err
	}
	l.steps = min(max(out.FaultSteps, l.Len()), sh.b.faultSteps)
	return l, nil
}

// pctChooser schedules the fault phase as PCT does: every source has a
// priority, the enabled action of highest priority runs, and at each of
// d−1 change points the source that runs drops below every other. The
// priorities and change points are drawn before the run, a fixed number
// of draws, so rapid shrinks them like any other value; the choices
// actors make still come from the embedded Chooser during the run.
type pctChooser struct {
	model.Chooser
	// record, if set, records each step choice for replay.
	record func(choice int)
	layout pctLayout
	prio   []int
	// change[i] is the step after which the running source drops to
	// priority i+1, below every initial priority.
	change []int
	step   int
}

// newPCTChooser draws the priorities and change points of one run from t.
func newPCTChooser(t *rapid.T, rc *rapidChooser, l pctLayout, depth int) *pctChooser {
	n := l.Len()
	keys := make([]int, n)
	for s := range keys {
		keys[s] = rapid.IntRange(0, 1<<16).Draw(t, "pct priority")
	}
	change := make([]int, depth-1)
	for i := range change {
		change[i] = rapid.IntRange(1, l.steps).Draw(t, "pct change point")
	}
	// Initial priorities are d … d+n−1 in the order of the keys; equal
	// keys (what shrinking leads to) rank earlier sources higher, so that
	// a shrunk run delivers, reconciles and collects before the clock
	// moves and before actors act.
	order := make([]int, n)
	for s := range order {
		order[s] = s
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(keys[a], keys[b]) })
	prio := make([]int, n)
	for rank, s := range order {
		prio[s] = depth + n - 1 - rank
	}
	return &pctChooser{
		Chooser: rc,
		record:  func(choice int) { rc.log = append(rc.log, choice) },
		layout:  l,
		prio:    prio,
		change:  change,
	}
}

// memoKey is what the chooser drew before the run: a run's steps follow
// from it and the rapid choices of the run.
func (p *pctChooser) memoKey() string { return fmt.Sprint(p.prio, p.change) }

func (p *pctChooser) chooseStep(r *runner, _ int, busy bool) int {
	acts := r.acts
	best := 0
	for i := range acts {
		if p.prio[p.layout.Of(acts[i])] > p.prio[p.layout.Of(acts[best])] {
			best = i
		}
	}
	p.step++
	for i, k := range p.change {
		if k == p.step {
			p.prio[p.layout.Of(acts[best])] = i + 1
		}
	}
	choice, n := best, len(acts)
	if busy {
		choice, n = choice+1, n+1
	}
	if n > 1 && p.record != nil {
		p.record(choice)
	}
	return choice
}

// firstChoice makes every choice but the step 0, for the dry run.
type firstChoice struct{}

func (firstChoice) Choose(int, string) int { return 0 }
