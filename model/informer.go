package model

import "slices"

// Informer is one controller's view of one kind, as client-go's shared
// informer: it lists, then watches; it applies every delivered event to its
// cache in order and then notifies the controller; it replays its cache on a
// resync period; and when its watch ends it watches again from the last
// resourceVersion it saw, relisting when that history has been compacted.
//
// Delivery and notification are two stages, as in client-go: a dropped
// notification (the drop fault) still updates the cache.
type Informer struct {
	ctrl   *controller
	kind   string
	cache  *objectStore
	watch  *Stream
	lastRV uint64
	// broken is set when the watch ended and must be re-established;
	// mustRelist when it ended with Expired, so only a relist will do.
	broken     bool
	mustRelist bool
	resync     *Timer
	resyncName string
	resyncFire func() // the resync timer's action, made once
	// replayed is what the informer's last resync replayed
	// (Cluster.SkipIdleResyncs).
	replayed replayMark
	// replay holds the keys a resync still has to replay, one per
	// delivery step, as client-go's resync queues a Sync delta per key.
	// replayBuf is its whole array, which the next resync fills again:
	// replay is cut from the front as it goes.
	replay, replayBuf []objKey

	// Faults armed on the informer, each consumed by the next delivery.
	drops  int          // notifications to lose
	dupes  int          // events to deliver twice
	delays []armedDelay // events to hold back, for how long each
	held   []heldBack   // events received but held back, in the order held
	// prev is the cached state an applied event replaced, for notify.
	prev *Object
	// lag, while non-zero, keeps the cache at least lag resourceVersions
	// behind the server: an event is delivered only once lag more writes
	// have followed it (the stale fault).
	lag uint64
	// travel, while set, makes the next relist read the server's view at
	// travelTo, behind travelSeen, the newest state the controller had
	// seen, and watch on from there (the timetravel fault).
	travel               bool
	travelSeen, travelTo uint64
}

// armedDelay is a delay armed for the next stream event: d ticks, or, when
// later is set, as many as later decides then (ArmDelayLater).
type armedDelay struct {
	d     Time
	later func() Time
	name  string
}

// heldBack is an event a delay fault holds until its timer releases it.
// Like an event in client-go's DeltaFIFO it has been received: a broken
// watch does not lose it, a relist supersedes it.
type heldBack struct {
	event Event
	timer *Timer
	ready bool
}

// Kind returns the kind the informer watches.
func (inf *Informer) Kind() string { return inf.kind }

// Controller returns the name of the controller that owns the informer.
func (inf *Informer) Controller() string { return inf.ctrl.spec.Name }

// Name returns "controller/Kind".
func (inf *Informer) Name() string { return inf.ctrl.spec.Name + "/" + inf.kind }

// Pending returns the number of events waiting for delivery, held ones
// included.
func (inf *Informer) Pending() int {
	n := len(inf.held)
	if inf.watch != nil {
		n += inf.watch.Pending()
	}
	return n
}

// Cached returns the number of objects in the cache.
func (inf *Informer) Cached() int { return inf.cache.len() }

// Each calls fn for every cached object, in key order. fn must not modify
// them.
func (inf *Informer) Each(fn func(*Object)) {
	inf.cache.each(ListOptions{}, func(o *Object) bool {
		fn(o)
		return true
	})
}

// SyncedRV returns the cache's watermark: every event at or below it has
// been applied. It is the last resourceVersion received, or just below the
// oldest event a delay holds back.
func (inf *Informer) SyncedRV() uint64 {
	rv := inf.lastRV
	for _, h := range inf.held {
		rv = min(rv, h.event.RV()-1)
	}
	return rv
}

// next returns where the next deliverable event is: a held event that has
// been released (ready, at index -2-i of held), or an event of the watch
// stream (index i), or -1 for none. Stream events of an object with a held
// event wait behind it, so that each object's events keep their order; a
// lagging informer takes only stream events that lag writes have followed.
func (inf *Informer) next() int {
	for i, h := range inf.held {
		if h.ready && !inf.heldBefore(i, h.event.Object.Key()) {
			return -2 - i
		}
	}
	if inf.watch == nil {
		return -1
	}
	head := inf.ctrl.c.server.Revision()
	for i, e := range inf.watch.pending {
		if inf.lag > 0 && e.RV()+inf.lag > head {
			return -1 // later events are newer still
		}
		if !inf.holds(e.Object.Key()) {
			return i
		}
	}
	return -1
}

// heldBefore reports whether a held event before index i is for key.
func (inf *Informer) heldBefore(i int, key string) bool {
	for _, h := range inf.held[:i] {
		if h.event.Object.Key() == key {
			return true
		}
	}
	return false
}

func (inf *Informer) holds(key string) bool {
	for _, h := range inf.held {
		if h.event.Object.Key() == key {
			return true
		}
	}
	return false
}

func (inf *Informer) canDeliver() bool { return inf.replayPending() || inf.next() != -1 }

// replayPending reports whether a resync has keys left to replay.
func (inf *Informer) replayPending() bool { return len(inf.replay) > 0 }

// deliveryOutcome says what a delivery step did with its event.
type deliveryOutcome uint8

const (
	delivered deliveryOutcome = iota
	dropped
	heldBackNow
	replayedNow
)

// deliver takes the next deliverable event. A delay fault holds a stream
// event back instead; otherwise the cache applies it and the controller is
// notified, unless a drop fault takes the notification. A duplicate fault
// puts a copy back at the head of the stream.
func (inf *Informer) deliver() (Event, deliveryOutcome) {
	if len(inf.replay) > 0 {
		if o := inf.replayNext(); o != nil {
			return Event{Type: Modified, Object: o}, replayedNow
		}
	}
	var e Event
	if i := inf.next(); i <= -2 {
		e = inf.held[-2-i].event
		inf.held = slices.Delete(inf.held, -2-i, -1-i)
	} else {
		e = inf.watch.pending[i]
		// In place: the stream keeps its array for the next events, and
		// nothing else refers to it.
		inf.watch.pending = slices.Delete(inf.watch.pending, i, i+1)
		if e.RV() > inf.lastRV {
			inf.lastRV = e.RV()
		}
		if len(inf.delays) > 0 {
			d := inf.delays[0]
			inf.delays = inf.delays[1:]
			if d.later != nil {
				d.d = d.later()
			}
			inf.hold(e, d.d)
			return e, heldBackNow
		}
	}
	inf.apply(e)
	if inf.dupes > 0 && inf.watch != nil {
		inf.dupes--
		inf.watch.pending = slices.Insert(inf.watch.pending, 0, e)
	}
	if inf.drops > 0 {
		inf.drops--
		return e, dropped
	}
	inf.notify(e)
	return e, delivered
}

// apply updates the cache with e and remembers the old state for notify.
func (inf *Informer) apply(e Event) {
	if e.Type == Deleted {
		inf.prev = inf.cache.del(keyOf(e.Object))
	} else {
		inf.prev = inf.cache.put(e.Object)
	}
}

// notify tells the controller of e. As in client-go, which callback fires
// depends on what the cache held, not on the event type.
func (inf *Informer) notify(e Event) {
	switch {
	case e.Type == Deleted:
		inf.ctrl.notifyDelete(inf, e.Object, false)
	case inf.prev != nil:
		inf.ctrl.notifyUpdate(inf, inf.prev, e.Object)
	default:
		inf.ctrl.notifyAdd(inf, e.Object)
	}
	inf.prev = nil
}

// hold sets e aside for d ticks; then its timer makes it deliverable.
func (inf *Informer) hold(e Event, d Time) {
	timer := inf.ctrl.c.clock.After(d, "release "+inf.Name(), func() {
		inf.ctrl.c.begin(inf.ctrl.spec.Name, "release held "+inf.kind, e.String())
		inf.ctrl.c.cur.Timer, inf.ctrl.c.cur.Informer = TimerRelease, inf.kind
		inf.release(e)
	})
	inf.held = append(inf.held, heldBack{event: e, timer: timer})
}

// release makes a held event deliverable.
func (inf *Informer) release(e Event) {
	for i := range inf.held {
		if inf.held[i].event == e {
			inf.held[i].ready = true
			return
		}
	}
}

// releaseAll makes every held event deliverable now.
func (inf *Informer) releaseAll() {
	for i := range inf.held {
		inf.held[i].timer.Cancel()
		inf.held[i].ready = true
	}
}

// relist lists from the server into the cache and watches from the list's
// resourceVersion. Listed objects reach the controller as adds (not cached
// before) or updates (cached); cached objects missing from the list reach it
// as deletes with finalStateUnknown, after the adds and updates, as
// client-go's DeltaFIFO.Replace orders them. It returns the list's size.
func (inf *Informer) relist() int {
	srv := inf.ctrl.c.server
	srv.StopWatch(inf.watch)
	var listed []*Object
	rv := srv.Revision()
	if inf.travel {
		listed, rv = inf.travelList()
	} else {
		srv.Each(inf.kind, ListOptions{}, func(o *Object) bool {
			listed = append(listed, o)
			return true
		})
	}
	w, err := srv.Watch(inf.kind, rv)
	if err != nil {
		panic("model: watch from the current resourceVersion failed: " + err.Error())
	}
	inf.watch = w
	inf.broken = false
	inf.mustRelist = false
	inf.replay = nil // the relist notifies every object itself
	inf.dropHeld()
	inf.lastRV = rv
	present := make(map[objKey]bool, len(listed))
	var gone []*Object
	for _, o := range listed {
		present[keyOf(o)] = true
	}
	inf.cache.each(ListOptions{}, func(o *Object) bool {
		if !present[keyOf(o)] {
			gone = append(gone, o)
		}
		return true
	})
	for _, o := range listed {
		if old := inf.cache.put(o); old != nil {
			inf.ctrl.notifyUpdate(inf, old, o)
		} else {
			inf.ctrl.notifyAdd(inf, o)
		}
	}
	for _, o := range gone {
		inf.cache.del(keyOf(o))
		inf.ctrl.notifyDelete(inf, o, true)
	}
	return len(listed)
}

// rewatch re-establishes a broken watch from the last resourceVersion seen,
// falling back to a relist when the server answers Expired (or already did).
// It reports whether it had to relist.
func (inf *Informer) rewatch() bool {
	if inf.mustRelist {
		inf.relist()
		return true
	}
	srv := inf.ctrl.c.server
	w, err := srv.Watch(inf.kind, inf.lastRV)
	if err != nil {
		inf.relist()
		return true
	}
	inf.watch = w
	inf.broken = false
	return false
}

// breakWatch ends the watch; the informer will rewatch when next scheduled,
// from the last resourceVersion it received. Held events were received and
// stay; so do the stream's events below that resourceVersion (those that
// queued behind a held event of their object: client-go's DeltaFIFO keeps
// an object's received deltas together). The rest of the stream is gone.
func (inf *Informer) breakWatch() {
	if inf.watch != nil {
		for _, e := range inf.watch.pending {
			if e.RV() <= inf.lastRV {
				inf.held = append(inf.held, heldBack{event: e, ready: true})
			}
		}
	}
	inf.ctrl.c.server.StopWatch(inf.watch)
	inf.watch = nil
	inf.broken = true
}

// dropHeld discards held events and their timers: a relist supersedes
// them, a crash loses them.
func (inf *Informer) dropHeld() {
	for _, h := range inf.held {
		h.timer.Cancel()
	}
	inf.held = nil
}

// startReplay begins a resync: it takes the cached keys, and the next
// delivery steps replay them, one object each, as client-go's informer
// processes the Sync deltas a resync queues. It does not contact the
// server.
func (inf *Informer) startReplay() {
	inf.replay = inf.cache.keys.appendTo(inf.replayBuf[:0])
	inf.replayBuf = inf.replay
}

// replayNext notifies the controller of the next object to replay that is
// still cached, as an update with old == new, or returns nil when none is
// left.
func (inf *Informer) replayNext() *Object {
	for len(inf.replay) > 0 {
		k := inf.replay[0]
		inf.replay = inf.replay[1:]
		if o := inf.cache.objs[k]; o != nil {
			inf.ctrl.track.replaying = true
			inf.ctrl.notifyUpdate(inf, o, o)
			inf.ctrl.track.replaying = false
			return o
		}
	}
	return nil
}

// stop discards the watch, the cache and the resync timer.
func (inf *Informer) stop() {
	inf.ctrl.c.server.StopWatch(inf.watch)
	inf.watch = nil
	inf.broken = false
	inf.mustRelist = false
	inf.cache = newObjectStore()
	inf.replay = nil
	inf.lastRV = 0
	inf.disarm()
	inf.dropHeld()
	inf.resync.Cancel()
	inf.resync = nil
	inf.replayed = replayMark{}
}

// disarm clears every armed fault, ends a lag and cancels a time travel
// that has not relisted yet.
func (inf *Informer) disarm() {
	inf.drops, inf.dupes, inf.delays, inf.lag = 0, 0, nil, 0
	inf.travel, inf.travelSeen, inf.travelTo = false, 0, 0
}
