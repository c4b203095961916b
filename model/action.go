package model

import "fmt"

// ActionKind is the kind of an enabled action.
type ActionKind uint8

// The kinds of action the scheduler chooses among, in the fixed order
// Enabled lists them. Sources numbers the things they serve; a new kind
// must be given its place there.
const (
	// ActDeliver delivers the next watch event to an informer.
	ActDeliver ActionKind = iota + 1
	// ActRewatch re-establishes an informer's broken watch (or relists).
	ActRewatch
	// ActReconcile processes the next key of a level-triggered controller.
	ActReconcile
	// ActCollect lets the garbage collector delete one orphaned dependent.
	ActCollect
	// ActActor lets an outside actor make one change.
	ActActor
	// ActRival lets a rival writer restore its value.
	ActRival
	// ActTimer advances the clock to the next timer and fires it.
	ActTimer
)

// Owed reports whether an action of kind k is work the cluster owes:
// an event to deliver, a watch to re-establish, a key to reconcile,
// garbage to collect, a rival's value to restore. Actors and timers are
// not owed; they happen when the schedule lets them (see Busy).
func (k ActionKind) Owed() bool {
	switch k {
	case ActDeliver, ActRewatch, ActReconcile, ActCollect, ActRival:
		return true
	case ActActor, ActTimer:
		return false
	}
	panic(fmt.Sprintf("model: unknown action kind %d", k))
}

// Watch reports whether an action of kind k serves an informer (a
// delivery or a rewatch).
func (k ActionKind) Watch() bool { return k == ActDeliver || k == ActRewatch }

// Action is one enabled action. Index selects the informer, controller or
// actor, in the cluster's fixed order.
type Action struct {
	Kind  ActionKind
	Index int
}

// Sources numbers the sources of actions, the one numbering the scheduler's
// users share: PCT gives each source a priority (its "threads"), and
// settling round-robins over them. The sources, numbered from 0 in this
// order: each informer (its deliveries and rewatches), each controller's
// queue, the garbage collector, the clock, each actor, then one source
// for every rival.
type Sources struct {
	Informers, Controllers, Actors int
}

// Sources returns the sources of the cluster's actions. Actors counts the
// declared actors up to the last one that still has moves.
func (c *Cluster) Sources() Sources {
	s := Sources{Informers: len(c.informers), Controllers: len(c.ctrls)}
	for i, a := range c.actors {
		if a.moves > 0 {
			s.Actors = i + 1
		}
	}
	return s
}

// Len returns the number of sources.
func (s Sources) Len() int { return s.Informers + s.Controllers + s.Actors + 3 }

// Collector returns the garbage collector's source.
func (s Sources) Collector() int { return s.Informers + s.Controllers }

// Clock returns the clock's source.
func (s Sources) Clock() int { return s.Informers + s.Controllers + 1 }

// Actor returns actor i's source.
func (s Sources) Actor(i int) int { return s.Informers + s.Controllers + 2 + i }

// Rivals returns the rivals' source, the last.
func (s Sources) Rivals() int { return s.Len() - 1 }

// Of returns the source of action a. An index beyond what s counts (an
// actor past the last one s saw with moves) falls in the rivals' source,
// so the result is always below Len.
func (s Sources) Of(a Action) int {
	n := s.Rivals()
	switch a.Kind {
	case ActDeliver, ActRewatch:
		n = a.Index
	case ActReconcile:
		n = s.Informers + a.Index
	case ActCollect:
		n = s.Collector()
	case ActTimer:
		n = s.Clock()
	case ActActor:
		n = s.Actor(a.Index)
	case ActRival:
	default:
		panic(fmt.Sprintf("model: unknown action kind %d", a.Kind))
	}
	if n < 0 || n >= s.Len() {
		return s.Rivals()
	}
	return n
}
