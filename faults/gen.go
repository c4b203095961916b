package faults

import (
	"errors"
	"fmt"

	"github.com/converge-sim/converge/draw"
	"github.com/converge-sim/converge/model"
	"pgregory.net/rapid"
)

// Target is a controller that faults may strike and the kinds it watches.
type Target struct {
	Controller string
	Kinds      []string
}

// Topology is what faults can aim at in one scenario: its controllers, the
// outside edits that make sense, and the fields a rival may fight over.
type Topology struct {
	Targets []Target
	Edits   []EditTarget
	Rivals  []EditTarget
}

// TopologyOf reads the controllers and informer kinds of c.
func TopologyOf(c *model.Cluster, edits, rivals []EditTarget) Topology {
	topo := Topology{Edits: edits, Rivals: rivals}
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
// [0, Horizon], each lasting (down, delayed, stale, partitioned) 1..MaxDown
// ticks, an API error failing 1..MaxFailures writes.
type Budget struct {
	MaxFaults int
	Horizon   model.Time
	MaxDown   model.Time
	// MaxFailures bounds an apierror fault's count of failing writes;
	// zero is the fixed default of 3. A scenario's search sets it from
	// the writes of its fault-free run (docs/design.md, "Faults",
	// "Counts and durations from the run").
	MaxFailures int
	// Busy, when in (0, Horizon), is how long the controllers work in
	// the scenario's fault-free run: each fault's time is then drawn, on
	// a coin flip that shrinks toward it, in [0, Busy] rather than in
	// [0, Horizon], so that half the faults strike while there is work to
	// disturb (docs/design.md, "Faults", "Counts and durations from the
	// run"). Zero draws every time in [0, Horizon].
	Busy model.Time
	// Swarm makes each schedule draw first a part of the mix's kinds, of
	// the controllers and of the edit and rival targets, and then its
	// faults from that part alone (swarm testing, Groce et al., ISSTA
	// 2012): a run that leaves out the faults that mask a bug, or aims
	// every fault at one controller, is drawn far more often than under
	// the uniform draw (docs/design.md, section "Faults", "Swarm").
	Swarm bool
}

// Check reports whether every kind of mix can be drawn for topo within b.
func Check(mix Mix, topo Topology, b Budget) error {
	var errs []error
	if len(mix) == 0 {
		errs = append(errs, errors.New("empty fault mix"))
	}
	if b.MaxFaults < 1 || b.Horizon < 0 || b.MaxDown < 1 || b.MaxFailures < 0 || b.Busy < 0 {
		errs = append(errs, fmt.Errorf("budget needs MaxFaults >= 1, Horizon >= 0, MaxDown >= 1, MaxFailures >= 0, Busy >= 0; got %+v", b))
	}
	if len(topo.Targets) == 0 {
		errs = append(errs, errors.New("no controllers to aim faults at"))
	}
	for _, k := range mix {
		switch k {
		case KindDrop, KindDuplicate, KindDelay, KindExpire, KindRestart, KindStale, KindAPIError, KindPartition, KindTimeTravel:
		case KindEdit:
			if len(topo.Edits) == 0 {
				errs = append(errs, errors.New("fault kind edit needs edit targets in the scenario"))
			}
			for _, e := range topo.Edits {
				if err := e.validate(); err != nil {
					errs = append(errs, err)
				}
			}
		case KindRival:
			if len(topo.Rivals) == 0 {
				errs = append(errs, errors.New("fault kind rival needs rival targets in the scenario"))
			}
			for _, e := range topo.Rivals {
				if e.Path == "" {
					errs = append(errs, fmt.Errorf("rival target %s needs a field path", e.Resource))
				} else if err := e.validate(); err != nil {
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
// simplest faults. Every integer, the index of a kind or target included, is
// drawn by package draw, so that no shrink sticks at a range's maximum (the
// last controller, 12 versions behind, t=Horizon) where a smaller value
// fails too. Call Check first: an impossible mix panics here.
//
// With b.Swarm, a schedule first draws which kinds of mix, which
// controllers and which edit and rival targets it leaves out, one bit
// each that shrinks toward keeping it, and then draws its faults from
// what is left, as above. The part comes before the list, so that rapid
// still deletes faults one by one: a shrunk schedule is one fault, of the
// kind and target the failure needs.
func Schedules(mix Mix, topo Topology, b Budget) *rapid.Generator[Schedule] {
	if err := Check(mix, topo, b); err != nil {
		panic("faults: " + err.Error())
	}
	one := func(mix Mix, topo Topology) *rapid.Generator[Timed] {
		return rapid.Custom(func(t *rapid.T) Timed {
			kind := mix[draw.IntRange(0, len(mix)-1).Draw(t, "kind")]
			at := drawAt(t, b)
			return Timed{At: at, Fault: drawFault(t, kind, topo, b)}
		})
	}
	if !b.Swarm {
		all := one(mix, topo)
		return rapid.Custom(func(t *rapid.T) Schedule {
			return Schedule(rapid.SliceOfN(all, 0, b.MaxFaults).Draw(t, "schedule"))
		})
	}
	return rapid.Custom(func(t *rapid.T) Schedule {
		part := Mix(swarmPart(t, "kinds", mix))
		topo := Topology{
			Targets: swarmPart(t, "controllers", topo.Targets),
			Edits:   swarmPart(t, "edits", topo.Edits),
			Rivals:  swarmPart(t, "rivals", topo.Rivals),
		}
		return Schedule(rapid.SliceOfN(one(part, topo), 0, b.MaxFaults).Draw(t, "schedule"))
	})
}

// swarmPart draws the part of xs a swarm schedule keeps: each element is
// left out on a coin flip that shrinks toward keeping it. A part that
// would be empty is all of xs, so that a schedule can still draw every
// kind Check allowed.
func swarmPart[T any](t *rapid.T, label string, xs []T) []T {
	if len(xs) < 2 {
		return xs
	}
	part := make([]T, 0, len(xs))
	for _, x := range xs {
		if !rapid.Bool().Draw(t, "leave-out-"+label) {
			part = append(part, x)
		}
	}
	if len(part) == 0 {
		return xs
	}
	return part
}

// Limits of drawn parameters.
const (
	maxBehind      = 5 // stale: resourceVersions behind
	maxAfterWrites = 2 // restart: writes before a mid-reconcile crash
	maxFailures    = 3 // apierror: failing writes, when Budget.MaxFailures is zero
	maxPick        = 7 // edit, rival: object index
	// timetravel: resourceVersions behind of a short distance, the draw's
	// only form before far time travel (docs/design.md, "Time travel").
	maxShortTravel = 12
	// timetravel: resourceVersions behind of a far distance, clamped at
	// run time to the server's history (its default window is 1000
	// events); a stale-state bug of a real operator needed 52 to 64
	// (docs/design.md, "Time travel").
	maxTravel = 1000
	// timetravel: landmarks back (model.Faults.TimeTravelToLandmark).
	maxLandmark = 10
)

// drawAt draws a fault's time: in [0, b.Busy] or in [0, b.Horizon], the
// first form first, when b.Busy is in (0, Horizon); in [0, Horizon]
// otherwise.
func drawAt(t *rapid.T, b Budget) model.Time {
	end := b.Horizon
	if b.Busy > 0 && b.Busy < b.Horizon && draw.IntRange(0, 1).Draw(t, "at-form") == 0 {
		end = b.Busy
	}
	return model.Time(draw.Int64Range(0, int64(end)).Draw(t, "at"))
}

// failures returns the bound of an apierror's count: MaxFailures, or the
// fixed default when it is zero.
func (b Budget) failures() int {
	if b.MaxFailures > 0 {
		return b.MaxFailures
	}
	return maxFailures
}

// drawValue draws what an edit or rival of target sets: an integer in
// [Min, Max], or the index of one of Values.
func drawValue(t *rapid.T, target EditTarget) (value int64, choice int) {
	switch {
	case target.Path == "":
		return 0, 0
	case len(target.Values) > 0:
		return 0, draw.IntRange(0, len(target.Values)-1).Draw(t, "choice")
	}
	return draw.Int64Range(target.Min, target.Max).Draw(t, "value"), 0
}

func drawFault(t *rapid.T, kind Kind, topo Topology, b Budget) Fault {
	controller := func() Target {
		return topo.Targets[draw.IntRange(0, len(topo.Targets)-1).Draw(t, "controller")]
	}
	resource := func(target Target) string {
		return target.Kinds[draw.IntRange(0, len(target.Kinds)-1).Draw(t, "resource")]
	}
	duration := func(label string) model.Time {
		return model.Time(draw.Int64Range(1, int64(b.MaxDown)).Draw(t, label))
	}
	switch kind {
	case KindDrop:
		target := controller()
		return Drop{Controller: target.Controller, Resource: resource(target)}
	case KindDuplicate:
		target := controller()
		return Duplicate{Controller: target.Controller, Resource: resource(target)}
	case KindDelay:
		target := controller()
		return Delay{Controller: target.Controller, Resource: resource(target), For: duration("for")}
	case KindExpire:
		target := controller()
		return Expire{Controller: target.Controller, Resource: resource(target)}
	case KindStale:
		target := controller()
		behind := uint64(draw.IntRange(1, maxBehind).Draw(t, "behind"))
		return Stale{Controller: target.Controller, Resource: resource(target), Behind: behind, For: duration("for")}
	case KindRestart:
		target := controller()
		down := duration("down")
		after := draw.IntRange(0, maxAfterWrites).Draw(t, "after-writes")
		return Restart{Controller: target.Controller, Down: down, AfterWrites: after}
	case KindPartition:
		return Partition{Controller: controller().Controller, For: duration("for")}
	case KindTimeTravel:
		tt := TimeTravel{Controller: controller().Controller}
		// Three forms, a third of the draws each (docs/design.md, "Time
		// travel"): a short distance, which a stale read right behind the
		// newest state needs and a draw over the whole history rarely
		// gives; a far one; a landmark. The short form comes first, the
		// one a shrink goes toward, and each form's value shrinks toward
		// the nearest version back.
		switch draw.IntRange(0, 2).Draw(t, "travel-form") {
		case 0:
			tt.Behind = uint64(draw.IntRange(1, maxShortTravel).Draw(t, "behind"))
		case 1:
			tt.Behind = uint64(draw.IntRange(1, maxTravel).Draw(t, "behind"))
		default:
			tt.Landmark = draw.IntRange(1, maxLandmark).Draw(t, "landmark")
		}
		tt.Down = duration("down")
		return tt
	case KindAPIError:
		target := controller()
		kinds := ErrorKinds()
		e := kinds[draw.IntRange(0, len(kinds)-1).Draw(t, "error")]
		return APIError{Controller: target.Controller, Error: e, Count: draw.IntRange(1, b.failures()).Draw(t, "count")}
	case KindEdit:
		target := topo.Edits[draw.IntRange(0, len(topo.Edits)-1).Draw(t, "edit")]
		p := draw.IntRange(0, maxPick).Draw(t, "pick")
		e := Edit{Target: target, Pick: p}
		e.Value, e.Choice = drawValue(t, target)
		return e
	case KindRival:
		target := topo.Rivals[draw.IntRange(0, len(topo.Rivals)-1).Draw(t, "rival")]
		p := draw.IntRange(0, maxPick).Draw(t, "pick")
		value, choice := drawValue(t, target)
		persistent := rapid.Bool().Draw(t, "persistent")
		return Rival{Target: target, Pick: p, Value: value, Choice: choice, Persistent: persistent}
	}
	panic(fmt.Sprintf("faults: no generator for kind %q", kind))
}
