package faults

import (
	"fmt"
	"slices"

	"github.com/converge-sim/converge/internal/echo"
	"github.com/converge-sim/converge/model"
)

// Fits reports whether s could have been drawn by Schedules(mix, topo, b):
// at most b.MaxFaults faults of the mix's kinds, each at a time within the
// horizon, aimed at a controller and a kind it watches, lasting at most
// b.MaxDown, with every count and pick within the generator's limits, and
// every edit or rival one of the declared targets with a value in its
// range. A schedule read from a file must fit before it runs: a count or a
// value past these bounds would make a run allocate or loop without end.
// The error names the entry, the field and its limit.
func (s Schedule) Fits(mix Mix, topo Topology, b Budget) error {
	if len(s) > b.MaxFaults {
		return fmt.Errorf("schedule has %d faults: at most %d (the scenario's budget)", len(s), b.MaxFaults)
	}
	for i, t := range s {
		if err := fits(t, mix, topo, b); err != nil {
			return fmt.Errorf("schedule[%d] (%s): %w", i, t.Fault.Kind(), err)
		}
	}
	return nil
}

func fits(t Timed, mix Mix, topo Topology, b Budget) error {
	if !mix.Has(t.Fault.Kind()) {
		return fmt.Errorf("kind %s is not in the mix %s", t.Fault.Kind(), mix)
	}
	if t.At < 0 || t.At > b.Horizon {
		return fmt.Errorf("at %d: must be in [0, %d] (the scenario's horizon)", t.At, b.Horizon)
	}
	duration := func(name string, v model.Time, least model.Time) error {
		if v < least || v > b.MaxDown {
			return fmt.Errorf("%s %d: must be in [%d, %d]", name, v, least, b.MaxDown)
		}
		return nil
	}
	within := func(name string, v, least, most int64) error {
		if v < least || v > most {
			return fmt.Errorf("%s %d: must be in [%d, %d]", name, v, least, most)
		}
		return nil
	}
	switch f := t.Fault.(type) {
	case Drop:
		return watched(topo, f.Controller, f.Resource)
	case Duplicate:
		return watched(topo, f.Controller, f.Resource)
	case Expire:
		return watched(topo, f.Controller, f.Resource)
	case Delay:
		if err := watched(topo, f.Controller, f.Resource); err != nil {
			return err
		}
		return duration("for", f.For, 1)
	case Stale:
		if err := watched(topo, f.Controller, f.Resource); err != nil {
			return err
		}
		if f.Behind < 1 || f.Behind > maxBehind {
			return fmt.Errorf("behind %d: must be in [1, %d]", f.Behind, maxBehind)
		}
		return duration("for", f.For, 1)
	case Restart:
		if err := controller(topo, f.Controller); err != nil {
			return err
		}
		if err := duration("down", f.Down, 1); err != nil {
			return err
		}
		return within("after_writes", int64(f.AfterWrites), 0, maxAfterWrites)
	case Partition:
		if err := controller(topo, f.Controller); err != nil {
			return err
		}
		return duration("for", f.For, 1)
	case TimeTravel:
		if err := controller(topo, f.Controller); err != nil {
			return err
		}
		if err := duration("down", f.Down, 1); err != nil {
			return err
		}
		if f.Landmark != 0 {
			if f.Behind != 0 {
				return fmt.Errorf("behind %d and landmark %d: a time travel takes one of them", f.Behind, f.Landmark)
			}
			return within("landmark", int64(f.Landmark), 1, maxLandmark)
		}
		return within("behind", int64(f.Behind), 1, maxTravel)
	case APIError:
		if err := controller(topo, f.Controller); err != nil {
			return err
		}
		if !slices.Contains(ErrorKinds(), f.Error) {
			return fmt.Errorf("error %s: must be one of %v", echo.Quote(string(f.Error)), ErrorKinds())
		}
		return within("count", int64(f.Count), 1, int64(b.failures()))
	case Edit:
		if err := declared("edit", topo.Edits, f.Target); err != nil {
			return err
		}
		if err := within("pick", int64(f.Pick), 0, maxPick); err != nil {
			return err
		}
		if err := within("choice", int64(f.Choice), 0, maxPick); err != nil {
			return err
		}
		if f.Target.Path == "" {
			return within("value", f.Value, 0, 0)
		}
		return within("value", f.Value, f.Target.Min, f.Target.Max)
	case Rival:
		if err := declared("rival", topo.Rivals, f.Target); err != nil {
			return err
		}
		if err := within("pick", int64(f.Pick), 0, maxPick); err != nil {
			return err
		}
		if err := within("choice", int64(f.Choice), 0, maxPick); err != nil {
			return err
		}
		return within("value", f.Value, f.Target.Min, f.Target.Max)
	}
	return fmt.Errorf("unknown fault %T", t.Fault)
}

// controller checks that name is one of the scenario's controllers.
func controller(topo Topology, name string) error {
	if targetOf(topo, name) == nil {
		return fmt.Errorf("controller %s: the scenario has no such controller (it has %v)", echo.Quote(name), controllerNames(topo))
	}
	return nil
}

// watched checks that the controller exists and has an informer of kind.
func watched(topo Topology, name, kind string) error {
	t := targetOf(topo, name)
	if t == nil {
		return controller(topo, name)
	}
	if !slices.Contains(t.Kinds, kind) {
		return fmt.Errorf("resource %s: controller %s watches only %v", echo.Quote(kind), name, t.Kinds)
	}
	return nil
}

func targetOf(topo Topology, name string) *Target {
	for i := range topo.Targets {
		if topo.Targets[i].Controller == name {
			return &topo.Targets[i]
		}
	}
	return nil
}

func controllerNames(topo Topology) []string {
	out := make([]string, len(topo.Targets))
	for i, t := range topo.Targets {
		out[i] = t.Controller
	}
	return out
}

// declared checks that target is exactly one the scenario declares: same
// resource, path and range, so a file cannot widen a range.
func declared(what string, targets []EditTarget, target EditTarget) error {
	if slices.ContainsFunc(targets, target.equal) {
		return nil
	}
	return fmt.Errorf("%s target %s %s [%d, %d]: not one the scenario declares (%v)", what, echo.Clip(target.Resource, echo.Max), echo.Quote(target.Path), target.Min, target.Max, targets)
}
