package properties

import (
	"fmt"
	"slices"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
	"pgregory.net/rapid"
)

// Prepared is a scenario made ready, once, for searches under one fault
// mix: validated, built once to read its bounds and topology, the mix
// checked against them and its schedule generator made. The first PCT
// search also reads the scenario's PCT layout, with a dry run, and keeps
// it. Every run and every shrink step of every search made with it reuses
// all of this: a search prepares its scenario once, and fuzzrun once per
// campaign row, not once per seed.
//
// A Prepared is used by one search at a time, as Search serializes
// searches.
type Prepared struct {
	shape *shape
	mix   faults.Mix
	plan  Plan
	// gen draws the schedules of the mix; nil for the empty mix.
	gen *rapid.Generator[faults.Schedule]
	// faithful is the scenario prepared under the mix's faithful kinds,
	// for the second search of "one bug, one finding"; made when first
	// needed.
	faithful *Prepared
}

// shape is what every mix of a prepared scenario shares: the scenario,
// its bounds and topology, and its PCT layout once read.
type shape struct {
	sc       Scenario
	b        bounds
	topology faults.Topology
	// layout is the PCT layout with its step estimate, nil until a PCT
	// search first needs it; static is the layout without the estimate,
	// read from the cluster Prepare built.
	layout *pctLayout
	static pctLayout
	// inputs draws the transitions of the scenario's inputs, nil without
	// them; refs is the differential oracle's reference-run memo.
	inputs *rapid.Generator[Transitions]
	refs   *referenceMemo
	// dry is what the fault-free dry run measured, nil until a mix with
	// faults first needs it (measure).
	dry *dryRun
}

// dryRun is what one fault-free run of a scenario, every choice 0,
// measured: the time of the controllers' last write and how many writes
// they made (docs/design.md, "Faults", "Counts and durations from the
// run").
type dryRun struct {
	settle model.Time
	writes int
	// landmarks are the run's writes, events and children, which the
	// plan of faults is read off (plan.go).
	landmarks *landmarks
}

// PrepareOptions are the options of PrepareWith.
type PrepareOptions struct {
	// Wrap wraps the fault-free dry run Prepare makes to scale the
	// budget's defaults to the run, as SearchOptions.Wrap wraps every
	// run: a scenario whose controllers read the clock must be measured
	// in the bubble its searches run in, or its budget would depend on
	// the wall clock.
	Wrap func(prop func(*rapid.T)) func(*rapid.T)
}

// Prepare validates the scenario, builds it once and checks that the mix
// can be drawn for it. An empty mix is the control group: no faults at
// all.
//
// Budget fields the scenario leaves zero are scaled, for a mix with
// faults, to the scenario's own fault-free run, made once here with every
// choice 0 (docs/design.md, "Faults", "Counts and durations from the
// run"): apierror's count up to the writes the controllers make, the
// durations up to the time they take to settle, and, in a world without
// actors or inputs, half the faults' times to that time. A scenario that declares
// no edit targets gets one that deletes a child its controllers made
// (faults.OwnedChildren).
func Prepare(sc Scenario, mix faults.Mix) (*Prepared, error) {
	return PrepareWith(sc, mix, PrepareOptions{})
}

// PrepareWith is Prepare with options: the dry run inside opts.Wrap.
func PrepareWith(sc Scenario, mix faults.Mix, opts PrepareOptions) (*Prepared, error) {
	return prepare(sc, mix, runWrap(opts.Wrap))
}

// prepare is PrepareWith with a run's Wrap.
func prepare(sc Scenario, mix faults.Mix, wrap func(func())) (*Prepared, error) {
	return prepareShape(sc, mix, wrap, true)
}

// prepareStatic prepares sc under mix with the budget's fixed defaults,
// without the dry run (PlanFor).
func prepareStatic(sc Scenario, mix faults.Mix) (*Prepared, error) {
	return prepareShape(sc, mix, nil, false)
}

// prepareShape is prepare, making the dry run when measure is set.
func prepareShape(sc Scenario, mix faults.Mix, wrap func(func()), measure bool) (*Prepared, error) {
	c, err := build(sc, RunOptions{DiscardTrace: true})
	if err != nil {
		return nil, err
	}
	topo, err := topologyOf(sc, c)
	if err != nil {
		return nil, err
	}
	sh := &shape{sc: sc, b: sc.bounds(c), topology: topo, static: staticLayout(c), refs: newReferenceMemo()}
	if sc.Inputs != nil {
		sh.inputs = sc.Inputs.generator()
	}
	if measure && len(mix) > 0 {
		if err := sh.measure(wrap); err != nil {
			return nil, err
		}
	}
	return sh.under(mix)
}

// Limits of the budget drawn from the run.
const (
	// leastFailures and mostFailures bound apierror's count drawn from
	// the run: at least the fixed default, at most this many writes.
	leastFailures, mostFailures = 3, 64
	// mostDown bounds a duration drawn from the run.
	mostDown = 1000
)

// measure makes the shape's fault-free dry run, once, and scales the
// budget fields the scenario left zero to it:
//   - MaxFailures, apierror's count, to the writes the controllers made,
//     within [3, 64]: a count past every write of the run fails nothing
//     more;
//   - MaxDown to the time they took to settle, within [10, 1000], so
//     that a partition or a restart can outlast the whole of their work;
//   - in a world without actors or inputs, Busy to that settle time
//     plus MaxDown: half the faults are drawn in [0, Busy], while the
//     controllers still work, the other half in [0, Horizon] as before
//     (faults.Budget.Busy). A fault drawn long after the controllers
//     settled strikes a cluster where nothing is left for it to
//     disturb. A world with actors, or with inputs (transitions applied
//     through the fault phase), has work until the horizon, which a dry
//     run that makes every choice 0 and applies no input does not show,
//     so it keeps the uniform draw. The Horizon itself stays: a shorter
//     one, tried, made the faults that mask a bug overlap it more often,
//     and lost two classes more than it won (docs/design.md).
//
// The dry run's failure, if it fails, does not matter here: only its
// times and writes do.
func (sh *shape) measure(wrap func(func())) error {
	if sh.dry != nil {
		return nil
	}
	static := sh.b
	out, err := executeWith(sh.sc, &static, nil, firstChoice{}, RunOptions{Wrap: wrap})
	if err != nil {
		return err
	}
	sh.dry = &dryRun{settle: out.settledAt, writes: out.controllerWrites, landmarks: landmarksOf(out.Cluster.Trace(), sh.topology.Targets, out.settledAt)}
	set := sh.sc.Budget
	b := &sh.b.budget
	if set.MaxFailures == 0 {
		b.MaxFailures = min(max(sh.dry.writes, leastFailures), mostFailures)
	}
	if set.MaxDown == 0 {
		b.MaxDown = min(max(sh.dry.settle, b.MaxDown), mostDown)
	}
	if set.Busy == 0 && sh.static.Actors == 0 && sh.sc.Inputs == nil {
		b.Busy = sh.dry.settle + b.MaxDown
	}
	return nil
}

// topologyOf is what faults may strike in the scenario's cluster c: its
// controllers, or those of them it names in FaultTargets, and its edits
// (faults.OwnedChildren when it declares none) and rivals. Without
// FaultTargets, the platform's controllers are left out unless the
// scenario opts in or has no other controller.
func topologyOf(sc Scenario, c *model.Cluster) (faults.Topology, error) {
	edits := sc.Edits
	if len(edits) == 0 {
		edits = []faults.EditTarget{faults.OwnedChildren}
	}
	topo := faults.TopologyOf(c, edits, sc.Rivals)
	if len(sc.FaultTargets) == 0 {
		if sc.FaultPlatform {
			return topo, nil
		}
		own := slices.DeleteFunc(slices.Clone(topo.Targets), func(t faults.Target) bool {
			spec, _ := c.Spec(t.Controller)
			return spec.Platform
		})
		if len(own) > 0 {
			topo.Targets = own
		}
		return topo, nil
	}
	var aimed []faults.Target
	for _, name := range sc.FaultTargets {
		i := slices.IndexFunc(topo.Targets, func(t faults.Target) bool { return t.Controller == name })
		if i < 0 {
			return faults.Topology{}, fmt.Errorf("scenario %q: FaultTargets names %q, which is not a controller of its cluster", sc.Name, name)
		}
		if slices.ContainsFunc(aimed, func(t faults.Target) bool { return t.Controller == name }) {
			return faults.Topology{}, fmt.Errorf("scenario %q: FaultTargets names %q twice", sc.Name, name)
		}
		aimed = append(aimed, topo.Targets[i])
	}
	topo.Targets = aimed
	return topo, nil
}

// under prepares the shape's scenario under mix.
func (sh *shape) under(mix faults.Mix) (*Prepared, error) {
	p := &Prepared{shape: sh, mix: mix, plan: Plan{Topology: sh.topology, Budget: sh.b.budget}}
	if len(mix) == 0 {
		return p, nil
	}
	if err := faults.Check(mix, p.plan.Topology, p.plan.Budget); err != nil {
		return nil, err
	}
	p.gen = faults.Schedules(mix, p.plan.Topology, p.plan.Budget)
	return p, nil
}

// underAtMost prepares the shape's scenario under mix with schedules of
// at most maxFaults faults (at least one): a schedule it draws fits the
// shape's own budget too.
func (sh *shape) underAtMost(mix faults.Mix, maxFaults int) (*Prepared, error) {
	b := sh.b.budget
	b.MaxFaults = max(1, min(b.MaxFaults, maxFaults))
	p := &Prepared{shape: sh, mix: mix, plan: Plan{Topology: sh.topology, Budget: b}}
	if len(mix) == 0 {
		return p, nil
	}
	if err := faults.Check(mix, p.plan.Topology, p.plan.Budget); err != nil {
		return nil, err
	}
	p.gen = faults.Schedules(mix, p.plan.Topology, p.plan.Budget)
	return p, nil
}

// Plan returns the topology and budget schedules are drawn with.
func (p *Prepared) Plan() Plan { return p.plan }

// faithfulOnly returns the scenario prepared under the faithful kinds of
// its mix, preparing it the first time; nil when the mix has none.
func (p *Prepared) faithfulOnly() (*Prepared, error) {
	if p.faithful == nil {
		faithful, _ := p.mix.Split()
		if len(faithful) == 0 {
			return nil, nil
		}
		f, err := p.shape.under(faithful)
		if err != nil {
			return nil, err
		}
		p.faithful = f
	}
	return p.faithful, nil
}

// execute is Execute of the prepared scenario: the run starts from its
// bounds instead of validating it and reading them again.
func (p *Prepared) execute(sched faults.Schedule, ch model.Chooser, opts RunOptions) (*Outcome, error) {
	opts.refs = p.shape.refs
	return executeWith(p.shape.sc, &p.shape.b, sched, ch, opts)
}

// replay is Replay of the prepared scenario.
func (p *Prepared) replay(sched faults.Schedule, choices []int, opts RunOptions) (out *Outcome, diverged bool, err error) {
	ch := &ReplayChooser{Choices: choices}
	out, err = p.execute(sched, ch, opts)
	if err != nil {
		return nil, false, err
	}
	return out, ch.Diverged(), nil
}

// pctLayout returns the scenario's PCT layout, reading its step estimate
// with a dry run the first time.
func (sh *shape) pctLayout() (pctLayout, error) {
	if sh.layout == nil {
		l, err := sh.estimateSteps(sh.static)
		if err != nil {
			return pctLayout{}, err
		}
		sh.layout = &l
	}
	return *sh.layout, nil
}
