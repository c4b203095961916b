package model

import "fmt"

// A reconcile that waits (docs/design.md, "A reconcile that waits").
//
// Some reconcilers sleep, or poll their cache until something shows up,
// before they go on. In the model a reconcile is one step, so without help
// such a reconcile would spin on a frozen cache. Client.Wait lets virtual
// time pass inside a reconcile, and defines exactly what happens meanwhile:
//
//   - the waiting controller's own informers deliver every event in flight
//     to them and re-establish broken watches, first and in full (watch
//     latency stays below a tick, as everywhere in the model);
//   - for each tick of the wait, the rest of the cluster takes one fair
//     round: every other informer delivers what it has in flight, and every
//     other source that owes work (a controller with a queued key, the
//     garbage collector, a rival) takes one action, in model.Sources order;
//   - timers due up to the wait's end fire in order: requeues, resyncs,
//     faults. A fault that crashes the waiting controller ends the wait, and
//     the reconcile unwinds at once, as with a crash between writes;
//   - nothing draws a choice: outside actors do not act, and the waiting
//     controller processes no other key (it is busy, as controller-runtime's
//     single worker is). So a wait never changes how rapid shrinks a run.
//
// Every step of a wait is an ordinary step of the trace, between the part of
// the reconcile before the wait and the part after it. Invariants and the
// step bound are checked when the whole reconcile ends.

// waitState is the bookkeeping of a controller's reconcile in progress.
type waitState struct {
	// reconciling says a reconcile of the controller is on the stack.
	reconciling bool
	// waited counts the effective writes other sources made during the
	// reconcile's waits, which are not the reconcile's own.
	waited int
	// crash, when set, is a crash that struck while the reconcile waited;
	// the reconcile unwinds when the wait returns. travel, when set, is the
	// time travel that came with it (Faults.TimeTravel).
	crash  bool
	travel *travelOrder
}

// Wait lets d ticks of virtual time pass inside the reconcile in progress,
// as described above, and returns when they have. It returns an error when
// called outside a reconcile of the controller (from an event handler, a
// mapping function or a constructor) or with a negative d; d of zero only
// lets the controller's informers deliver what is in flight.
func (cl *client) Wait(d Time) error {
	ctl := cl.ctl
	if d < 0 {
		return fmt.Errorf("%s: wait of %d ticks: a wait cannot be negative", ctl.spec.Name, d)
	}
	if !ctl.wait.reconciling || !ctl.up {
		return fmt.Errorf("%s: Wait outside a reconcile: only a reconcile may wait", ctl.spec.Name)
	}
	c := ctl.c
	c.notef("waits %d ticks", d)
	target, began := c.cur.Target, c.clock.Now()
	c.end()
	writes := c.writes
	deadline := c.clock.Now() + d
	wake := c.clock.At(deadline, ctl.spec.Name+" wakes", func() {})
	lastRound := Time(-1)
	for !ctl.wait.crash {
		ctl.deliverInFlight()
		if wake.Fired() || ctl.wait.crash {
			break
		}
		if lastRound != c.clock.Now() && c.owes(ctl) {
			lastRound = c.clock.Now()
			c.round(ctl)
			continue
		}
		if c.owes(ctl) && c.clock.Now()+1 < deadline {
			if next := c.clock.Next(); next == nil || next.At > c.clock.Now()+1 {
				c.clock.After(1, ctl.spec.Name+" waits", func() {})
			}
		}
		c.Do(Action{Kind: ActTimer})
	}
	wake.Cancel()
	ctl.wait.waited += c.writes - writes
	c.begin(ctl.spec.Name, "reconcile", "")
	c.cur.Target, c.cur.Kind = target, ActReconcile
	if ctl.wait.crash {
		panic(crashSignal{controller: ctl.spec.Name})
	}
	c.notef("resumes after waiting %d ticks", c.clock.Now()-began)
	return nil
}

// deliverInFlight delivers every event in flight to the controller's
// informers and re-establishes their broken watches, each as a step. The
// controller is mid-reconcile, so its handlers only queue keys: nothing
// new is written and the loop ends.
func (ctl *controller) deliverInFlight() {
	for i, inf := range ctl.c.informers {
		if inf.ctrl != ctl {
			continue
		}
		for ctl.up && !ctl.wait.crash {
			k := inf.watchAction()
			if k == 0 {
				break
			}
			ctl.c.Do(Action{Kind: k, Index: i})
		}
	}
}

// round gives the rest of the cluster one fair round while a controller
// waits: every other informer delivers what it has in flight, then every
// controller with a queued key, the garbage collector and every rival with
// something to restore take one action each, in Sources order. Each action
// is done only if it is still enabled when its turn comes.
func (c *Cluster) round(waiting *controller) {
	for i, inf := range c.informers {
		if inf.ctrl == waiting {
			continue
		}
		// Pending bounds the deliveries: an edge-triggered handler that
		// writes adds events this round does not wait for.
		for n := inf.Pending() + len(inf.replay) + 1; n > 0 && !waiting.wait.crash; n-- {
			k := inf.watchAction()
			if k == 0 {
				break
			}
			c.Do(Action{Kind: k, Index: i})
		}
	}
	for i, ctl := range c.ctrls {
		if waiting.wait.crash {
			return
		}
		if ctl.reconcilable() {
			c.Do(Action{Kind: ActReconcile, Index: i})
		}
	}
	if c.server.GCPending() && !waiting.wait.crash {
		c.Do(Action{Kind: ActCollect})
	}
	for i, r := range c.rivals {
		if waiting.wait.crash {
			return
		}
		if r.enabled(c.server) {
			c.Do(Action{Kind: ActRival, Index: i})
		}
	}
}
