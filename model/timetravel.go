package model

import "fmt"

// Travel is one relist from a server behind the newest state the
// controller had seen (the timetravel fault): what the informer listed and
// how far back it was. The diagnosis names the objects it saw in an old
// state.
type Travel struct {
	Controller string
	Kind       string
	At         Time
	Step       int
	// Seen is the newest resourceVersion the controller had seen before
	// it crashed; From is the resourceVersion of the view it listed,
	// Seen-From versions behind.
	Seen, From uint64
	// Old are the objects whose state in the view differs from the
	// server's at the relist: the listed ones in key order, then those the
	// view lacks, in key order.
	Old []Travelled
}

// Behind returns how many resourceVersions behind the newest state it had
// seen the controller listed.
func (t Travel) Behind() uint64 { return t.Seen - t.From }

// Travelled is one object a time travel showed in an old state: Then is
// its state in the view (nil: it did not exist yet), Now its state on the
// server at the relist (nil: it has been deleted since).
type Travelled struct {
	Then, Now *Object
}

// Ref names the object.
func (t Travelled) Ref() Ref {
	if t.Then != nil {
		return t.Then.Ref()
	}
	return t.Now.Ref()
}

// TimeTravel crashes controller for down ticks, as Crash does; when it
// comes back, every informer lists from a server behind resourceVersions
// behind the newest state the controller had seen: an exact past state kept
// from the server's history (Server.ViewAt), clamped to the oldest
// retained resourceVersion. Each informer then watches from the view's
// resourceVersion, so it catches up event by event as the lagging server
// does. This is client-go's time travel: a restarted informer's first list
// may be served by an API server's watch cache that is behind, while a
// running informer relists at its last synced resourceVersion and never
// goes back (docs/design.md, section "Time travel").
func (f Faults) TimeTravel(controller string, behind uint64, down Time) error {
	return f.timeTravel(controller, func(uint64) uint64 { return behind }, down)
}

// TimeTravelToLandmark is TimeTravel to the landmark-th landmark (from 1)
// counting back from the newest state the controller had seen: a
// resourceVersion in the server's retained history at which an object of
// a kind it watches became deleting (its deletion timestamp set), was
// deleted, or was created under the name of an object deleted before it
// (recreated). The view at that version shows the object in that state.
// A landmark past the oldest retained one is the oldest; with no landmark
// at all the controller relists the state it had seen, a plain restart.
// Such versions are where a stale read misleads a controller, and they may
// lie hundreds of versions back, further than a distance drawn at random
// reaches (docs/design.md, section "Time travel").
func (f Faults) TimeTravelToLandmark(controller string, landmark int, down Time) error {
	if landmark < 1 {
		return fmt.Errorf("landmark %d: must be at least 1", landmark)
	}
	ctl := f.c.controller(controller)
	return f.timeTravel(controller, func(seen uint64) uint64 {
		marks := f.c.server.landmarks(ctl.watchedKinds(), seen)
		if len(marks) == 0 {
			return 0
		}
		return seen - marks[max(len(marks)-landmark, 0)]
	}, down)
}

// watchedKinds returns the kinds the controller's informers watch.
func (ctl *controller) watchedKinds() map[string]bool {
	kinds := make(map[string]bool, len(ctl.informers))
	for _, inf := range ctl.informers {
		kinds[inf.kind] = true
	}
	return kinds
}

// landmarks returns, oldest first, the retained resourceVersions before
// seen at which an object of one of kinds became deleting, was deleted, or
// was created again under a name deleted before (within the retained
// history).
func (s *Server) landmarks(kinds map[string]bool, seen uint64) []uint64 {
	var out []uint64
	deleted := map[objKey]bool{}
	for _, e := range s.history {
		if e.RV() >= seen {
			break
		}
		if !kinds[e.Object.Kind] {
			continue
		}
		k := keyOf(e.Object)
		switch {
		case e.Type == Deleted:
			deleted[k] = true
			out = append(out, e.RV())
		case e.Type == Added && deleted[k]:
			out = append(out, e.RV())
		case e.Type == Modified && e.Object.Deleting() && (e.Old == nil || !e.Old.Deleting()):
			out = append(out, e.RV())
		}
	}
	return out
}

// timeTravel crashes controller for down ticks and makes it relist
// behindOf(seen) versions behind seen, the newest resourceVersion it
// had seen.
func (f Faults) timeTravel(controller string, behindOf func(seen uint64) uint64, down Time) error {
	c := f.c
	ctl, err := c.running(controller)
	if ctl == nil {
		return err
	}
	var seen uint64
	for _, inf := range ctl.informers {
		seen = max(seen, inf.lastRV)
	}
	behind := behindOf(seen)
	if ctl.wait.reconciling {
		// It is waiting inside a reconcile (Client.Wait): the reconcile
		// unwinds first, then it crashes and travels (see end).
		ctl.wait.crash, ctl.crashDown = true, down
		ctl.crashLaterDown = false
		ctl.wait.travel = &travelOrder{seen: seen, behind: behind}
		c.notef("down for %d, once its waiting reconcile unwinds; relists %d behind resourceVersion %d", down, behind, seen)
		return nil
	}
	ctl.crash(down)
	ctl.travelBack(seen, behind)
	c.notef("down for %d; relists %d behind resourceVersion %d", down, behind, seen)
	return nil
}

// travelOrder is a time travel waiting for its controller's crash: the
// newest resourceVersion it had seen, and how far behind it relists.
type travelOrder struct{ seen, behind uint64 }

// travelBack makes every informer of the crashed controller relist
// behind versions before seen.
func (ctl *controller) travelBack(seen, behind uint64) {
	for _, inf := range ctl.informers {
		inf.travelBack(seen, behind)
	}
}

// Travels returns the relists from a server behind, in order.
func (f Faults) Travels() []Travel { return f.c.travels }

// travelBack makes the next relist read the view behind versions before
// seen (at least resourceVersion 0).
func (inf *Informer) travelBack(seen, behind uint64) {
	inf.travel = true
	inf.travelSeen = seen
	inf.travelTo = seen - min(seen, behind)
}

// travelList lists the informer's kind from the server's view at travelTo
// (no older than the retained history), records what it showed and returns
// the objects with the view's resourceVersion.
func (inf *Informer) travelList() ([]*Object, uint64) {
	c := inf.ctrl.c
	srv := c.server
	from := max(inf.travelTo, srv.CompactedRV())
	inf.travel = false
	listed, err := srv.ViewAt(inf.kind, from)
	if err != nil {
		panic(fmt.Sprintf("model: a view within the history failed: %v", err))
	}
	t := Travel{Controller: inf.ctrl.spec.Name, Kind: inf.kind, At: c.clock.Now(), Step: c.step, Seen: max(inf.travelSeen, from), From: from}
	inView := make(map[objKey]bool, len(listed))
	for _, o := range listed {
		inView[keyOf(o)] = true
		if now := srv.lookup(o.Ref()); now != o {
			t.Old = append(t.Old, Travelled{Then: o, Now: now})
		}
	}
	srv.Each(inf.kind, ListOptions{}, func(o *Object) bool {
		if !inView[keyOf(o)] {
			t.Old = append(t.Old, Travelled{Now: o})
		}
		return true
	})
	c.travels = append(c.travels, t)
	c.notef("relisted %d from a server %d behind (resourceVersion %d)", len(listed), t.Behind(), from)
	return listed, from
}
