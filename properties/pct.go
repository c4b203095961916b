package properties

import (
	"cmp"
	"slices"

	"github.com/converge-sim/converge/model"
	"pgregory.net/rapid"
)

// pctLayout numbers the sources of a scenario's actions, PCT's "threads":
// each informer, each controller's queue, the garbage collector, the
// clock, each actor, and one slot for any other kind of action.
type pctLayout struct {
	informers, controllers, actors int
	// steps is PCT's k, the range the change points are drawn from.
	steps int
}

func (l pctLayout) sources() int { return l.informers + l.controllers + l.actors + 3 }

// source returns the source of an action.
func (l pctLayout) source(a model.Action) int {
	s := l.sources() - 1
	switch a.Kind {
	case model.ActDeliver, model.ActRewatch:
		s = a.Index
	case model.ActReconcile:
		s = l.informers + a.Index
	case model.ActCollect:
		s = l.informers + l.controllers
	case model.ActTimer:
		s = l.informers + l.controllers + 1
	case model.ActActor:
		s = l.informers + l.controllers + 2 + a.Index
	}
	if s < 0 || s >= l.sources() {
		return l.sources() - 1
	}
	return s
}

// staticLayout reads the sources of a scenario's actions from a built,
// started cluster; its steps are estimateSteps' to fill in.
func staticLayout(c *model.Cluster) pctLayout {
	l := pctLayout{informers: len(c.Informers()), controllers: len(c.Controllers())}
	for _, a := range c.Enabled(nil) {
		if a.Kind == model.ActActor {
			l.actors = max(l.actors, a.Index+1)
		}
	}
	return l
}

// estimateSteps estimates PCT's k for layout l of the shape's scenario as
// the length of the fault phase of one fault-free dry run in which every
// source gets to act: actors first, the clock last.
func (sh *shape) estimateSteps(l pctLayout) (pctLayout, error) {
	prio := make([]int, l.sources())
	for s := range prio {
		prio[s] = s
	}
	prio[l.informers+l.controllers+1] = -1 // the clock
	for i := range l.actors {
		prio[l.informers+l.controllers+2+i] = len(prio) + i
	}
	l.steps = sh.b.faultSteps
	dry := &pctChooser{Chooser: firstChoice{}, layout: l, prio: prio}
	out, err := executeWith(sh.sc, &sh.b, nil, dry, RunOptions{DiscardTrace: true})
	if err != nil {
		return pctLayout{}, err
	}
	l.steps = min(max(out.FaultSteps, l.sources()), sh.b.faultSteps)
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
	n := l.sources()
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

func (p *pctChooser) chooseStep(acts []model.Action, busy bool) int {
	best := 0
	for i := range acts {
		if p.prio[p.layout.source(acts[i])] > p.prio[p.layout.source(acts[best])] {
			best = i
		}
	}
	p.step++
	for i, k := range p.change {
		if k == p.step {
			p.prio[p.layout.source(acts[best])] = i + 1
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
