package model

import "fmt"

// Enabled appends the actions that may happen next to buf, in a fixed
// order: deliveries and rewatches per informer, reconciles per controller,
// garbage collection, actors, rivals, then the next timer. (Sources
// numbers what these actions serve.)
//
// The clock does not advance while a watch event can be delivered or a
// broken watch re-established: watch latency stays below one tick unless
// a fault (delay, stale, partition) holds events back. A controller may
// still fall behind on its queue while time passes. A fault due now
// strikes even while events are in flight (see Interrupt); one due later
// waits, like every timer, until they are delivered.
func (c *Cluster) Enabled(buf []Action) []Action {
	inFlight := false
	for i, inf := range c.informers {
		if k := inf.watchAction(); k != 0 {
			buf = append(buf, Action{Kind: k, Index: i})
			inFlight = true
		}
	}
	for i, ctl := range c.ctrls {
		if ctl.reconcilable() {
			buf = append(buf, Action{Kind: ActReconcile, Index: i})
		}
	}
	if c.server.GCPending() {
		buf = append(buf, Action{Kind: ActCollect})
	}
	if !c.actorsStopped {
		for i, a := range c.actors {
			if a.moves > 0 {
				buf = append(buf, Action{Kind: ActActor, Index: i})
			}
		}
	}
	for i, r := range c.rivals {
		if r.enabled(c.server) {
			buf = append(buf, Action{Kind: ActRival, Index: i})
		}
	}
	// A fault's timer may fire while events are in flight only at the
	// current time: firing it later would move the clock past the events
	// in flight, and their informer would lag with no fault to say so.
	if next := c.clock.Next(); next != nil && (!inFlight || next.Preempts && next.At <= c.clock.Now()) {
		buf = append(buf, Action{Kind: ActTimer})
	}
	return buf
}

// watchAction returns the action the informer may take next: a delivery,
// a rewatch, or none (0) while it has nothing in flight or its controller
// is down or cut off.
func (inf *Informer) watchAction() ActionKind {
	switch {
	case !inf.ctrl.up:
		return 0
	case inf.canDeliver():
		return ActDeliver
	case inf.broken && !inf.ctrl.partitioned():
		return ActRewatch
	}
	return 0
}

// reconcilable reports whether the controller is a running
// level-triggered one with a key ready in its queue, and not in the middle
// of a reconcile (one that waits, see Client.Wait).
func (ctl *controller) reconcilable() bool {
	return ctl.up && ctl.rec != nil && ctl.queue.Len() > 0 && !ctl.wait.reconciling
}

// Busy reports whether the cluster owes work (see ActionKind.Owed):
// undelivered events, broken watches, queued keys, garbage, or a rival with
// something to restore. It says what Enabled would, without listing.
func (c *Cluster) Busy() bool { return c.owes(nil) }

// owes is Busy leaving out the informers of except, a controller waiting
// inside its reconcile (Client.Wait): what the rest of the cluster owes.
func (c *Cluster) owes(except *controller) bool {
	for _, r := range c.rivals {
		if r.enabled(c.server) {
			return true
		}
	}
	for _, inf := range c.informers {
		if inf.ctrl != except && inf.watchAction() != 0 {
			return true
		}
	}
	for _, ctl := range c.ctrls {
		if ctl.reconcilable() {
			return true
		}
	}
	return c.server.GCPending()
}

// InFlight counts the watch events the cluster's informers have received
// and not yet delivered: in their streams, and held back by a fault.
func (c *Cluster) InFlight() int {
	n := 0
	for _, inf := range c.informers {
		n += len(inf.held)
		if inf.watch != nil {
			n += len(inf.watch.pending)
		}
	}
	return n
}

// RequeuesUntil returns the time of the latest delayed requeue waiting in
// any running controller's queue, if any.
func (c *Cluster) RequeuesUntil() (Time, bool) {
	var last Time
	found := false
	for _, ctl := range c.ctrls {
		if !ctl.up || ctl.queue == nil {
			continue
		}
		if t, ok := ctl.queue.LastWaiting(); ok && (!found || t > last) {
			last, found = t, true
		}
	}
	return last, found
}

// NextTimer returns the next timer, or nil.
func (c *Cluster) NextTimer() *Timer { return c.clock.Next() }

// Do performs one enabled action as one step.
func (c *Cluster) Do(a Action) {
	switch a.Kind {
	case ActDeliver:
		inf := c.informers[a.Index]
		c.begin(inf.ctrl.spec.Name, "watch", "")
		e, outcome := inf.deliver()
		c.cur.Target, c.cur.Event, c.cur.RV, c.cur.Informer = e.Object.Ref(), e.Type, e.RV(), inf.kind
		switch outcome {
		case replayedNow:
			c.cur.action, c.cur.Event, c.cur.RV, c.cur.Replay = "resync", 0, 0, true
		case dropped:
			c.note(Note{Kind: NoteDropped})
			c.dropped = append(c.dropped, Dropped{Controller: inf.ctrl.spec.Name, Event: e, At: c.clock.Now(), Step: c.step})
		case heldBackNow:
			c.note(Note{Kind: NoteHeld})
		}
	case ActRewatch:
		inf := c.informers[a.Index]
		c.begin(inf.ctrl.spec.Name, "rewatch", inf.kind)
		c.cur.Informer = inf.kind
		travel := inf.travel
		if inf.rewatch() && !travel {
			c.note(Note{Kind: NoteExpired, N: int64(inf.cache.len())})
		}
	case ActReconcile:
		ctl := c.ctrls[a.Index]
		key, _ := ctl.queue.Get()
		ctl.reconcile(key)
	case ActCollect:
		c.begin(GarbageCollector, "collect", "")
		ref, _ := c.server.CollectGarbage()
		c.cur.Target = ref
		if did := c.server.gcDid; did != "" {
			c.notef("%s", did)
		}
	case ActActor:
		s := c.actors[a.Index]
		s.moves--
		c.begin(s.actor.Name(), "act", "")
		c.guard(s.actor.Name(), func() {
			if err := s.actor.Act(s.out); err != nil {
				c.noteError(err)
			}
		})
	case ActRival:
		c.rivals[a.Index].act(c)
	case ActTimer:
		c.begin("clock", "timer", "")
		t := c.clock.Fire()
		if c.cur.Timer == 0 {
			c.cur.text = t.Name
		}
	default:
		panic(fmt.Sprintf("model: unknown action %+v", a))
	}
	c.cur.Kind = a.Kind
	c.end()
}

// LastReconciled reports the reconcile made by the last step: controller,
// key and how many effective writes it made. ok is false when the last step
// was not a reconcile.
func (c *Cluster) LastReconciled() (controller, key string, writes int, ok bool) {
	r := c.reconciled
	if r.step != c.step || r.controller == "" {
		return "", "", 0, false
	}
	return r.controller, r.key, r.writes, true
}

// Reconcile makes controller reconcile key now, as one step, taking the key
// out of its queue if it is waiting there. Properties use it to probe a
// reconcile (idempotence); the controller must be up.
func (c *Cluster) Reconcile(controller, key string) error {
	ctl := c.controller(controller)
	if ctl == nil || !ctl.up || ctl.rec == nil {
		return fmt.Errorf("controller %q is not a running level-triggered controller", controller)
	}
	ctl.queue.Take(key)
	ctl.reconcile(key)
	c.end()
	return nil
}

// ActorAction returns the action that makes the named actor move, when it
// has moves left and actors have not stopped: a harness that must let an
// actor finish (the state-transition actor's transitions) takes it
// without a choice.
func (c *Cluster) ActorAction(name string) (Action, bool) {
	if c.actorsStopped {
		return Action{}, false
	}
	for i, a := range c.actors {
		if a.actor.Name() == name && a.moves > 0 {
			return Action{Kind: ActActor, Index: i}, true
		}
	}
	return Action{}, false
}
