package faults

import (
	"errors"
	"fmt"

	"github.com/converge-sim/converge/model"
	"pgregory.net/rapid"
)

// Target is a controller that faults may strike and the kinds it watches.
type Target struct {
	Controller string
	Kinds      []string
}

// Topology is what faults can aim at in one scenario: its controllers and
// the outside edits that make sense.
type Topology struct {
	Targets []Target
	Edits   []EditTarget
}

// TopologyOf reads the controllers and informer kinds of c.
func TopologyOf(c *model.Cluster, edits []EditTarget) Topology {
	topo := Topology{Edits: edits}
	for _, name := range c.Controllers() {
		t := Target{Controller: name}
		for _, inf := range c.Informers() {
			if inf.Controller() == name {
				t.Kinds = append(t.Kinds, inf.Kind())
			}
		}
		topo.Targets = append(topo.Targets, t)
	}
	return topo
}

// Budget bounds a schedule: at most MaxFaults faults, at times in
// [0, Horizon], restarts down for 1..MaxDown ticks.
type Budget struct {
	MaxFaults int
	Horizon   model.Time
	MaxDown   model.Time
}

// Check reports whether every kind of mix can be drawn for topo within b.
func Check(mix Mix, topo Topology, b Budget) error {
	var errs []error
	if len(mix) == 0 {
		errs = append(errs, errors.New("empty fault mix"))
	}
	if b.MaxFaults < 1 || b.Horizon < 0 || b.MaxDown < 1 {
		errs = append(errs, fmt.Errorf("budget needs MaxFaults >= 1, Horizon >= 0, MaxDown >= 1; got %+v", b))
	}
	if len(topo.Targets) == 0 {
		errs = append(errs, errors.New("no controllers to aim faults at"))
	}
	for _, k := range mix {
		switch k {
		case KindDrop, KindRestart:
		case KindEdit:
			if len(topo.Edits) == 0 {
				errs = append(errs, errors.New("fault kind edit needs edit targets in the scenario"))
			}
			for _, e := range topo.Edits {
				if err := e.validate(); err != nil {
					errs = append(errs, err)
				}
			}
		default:
			errs = append(errs, fmt.Errorf("unknown fault kind %q", k))
		}
	}
	return errors.Join(errs...)
}

// Schedules returns a generator of schedules for mix, aimed at topo, within
// b. It draws the list of faults first; each fault draws its kind, its time
// and then its parameters, each shrinking toward the first target, time 0
// and the smallest value, so rapid shrinks a failure to the fewest, earliest,
// simplest faults. Call Check first: an impossible mix panics here.
func Schedules(mix Mix, topo Topology, b Budget) *rapid.Generator[Schedule] {
	if err := Check(mix, topo, b); err != nil {
		panic("faults: " + err.Error())
	}
	one := rapid.Custom(func(t *rapid.T) Timed {
		kind := mix[rapid.IntRange(0, len(mix)-1).Draw(t, "kind")]
		at := model.Time(rapid.Int64Range(0, int64(b.Horizon)).Draw(t, "at"))
		return Timed{At: at, Fault: drawFault(t, kind, topo, b)}
	})
	return rapid.Custom(func(t *rapid.T) Schedule {
		return Schedule(rapid.SliceOfN(one, 0, b.MaxFaults).Draw(t, "schedule"))
	})
}

func drawFault(t *rapid.T, kind Kind, topo Topology, b Budget) Fault {
	switch kind {
	case KindDrop:
		target := topo.Targets[rapid.IntRange(0, len(topo.Targets)-1).Draw(t, "controller")]
		resource := target.Kinds[rapid.IntRange(0, len(target.Kinds)-1).Draw(t, "resource")]
		return Drop{Controller: target.Controller, Resource: resource}
	case KindRestart:
		target := topo.Targets[rapid.IntRange(0, len(topo.Targets)-1).Draw(t, "controller")]
		down := model.Time(rapid.Int64Range(1, int64(b.MaxDown)).Draw(t, "down"))
		return Restart{Controller: target.Controller, Down: down}
	case KindEdit:
		target := topo.Edits[rapid.IntRange(0, len(topo.Edits)-1).Draw(t, "edit")]
		pick := rapid.IntRange(0, 7).Draw(t, "pick")
		var value int64
		if target.Field != "" {
			value = rapid.Int64Range(target.Min, target.Max).Draw(t, "value")
		}
		return Edit{Target: target, Pick: pick, Value: value}
	}
	panic(fmt.Sprintf("faults: no generator for kind %q", kind))
}
