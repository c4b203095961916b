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
}

// Prepare validates the scenario, builds it once and checks that the mix
// can be drawn for it. An empty mix is the control group: no faults at
// all.
func Prepare(sc Scenario, mix faults.Mix) (*Prepared, error) {
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
	return sh.under(mix)
}

// topologyOf is what faults may strike in the scenario's cluster c: its
// controllers, or those of them it names in FaultTargets, and its edits
// and rivals. Without FaultTargets, the platform's controllers are left
// out unless the scenario opts in or has no other controller.
func topologyOf(sc Scenario, c *model.Cluster) (faults.Topology, error) {
	topo := faults.TopologyOf(c, sc.Edits, sc.Rivals)
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
