package model

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
	// broken is set when the watch ended and must be re-established.
	broken bool
	resync *Timer
	// drops counts armed drop faults: that many next notifications are lost.
	drops int
	// lagRV, when non-zero, holds back delivery of events newer than it.
	lagRV uint64
}

// Kind returns the kind the informer watches.
func (inf *Informer) Kind() string { return inf.kind }

// Controller returns the name of the controller that owns the informer.
func (inf *Informer) Controller() string { return inf.ctrl.spec.Name }

// Name returns "controller/Kind".
func (inf *Informer) Name() string { return inf.ctrl.spec.Name + "/" + inf.kind }

// Pending returns the number of events waiting for delivery.
func (inf *Informer) Pending() int {
	if inf.watch == nil {
		return 0
	}
	return inf.watch.Pending()
}

// Cached returns the number of objects in the cache.
func (inf *Informer) Cached() int { return inf.cache.len() }

// LastSyncedRV returns the resourceVersion of the last event or list the
// cache has applied.
func (inf *Informer) LastSyncedRV() uint64 { return inf.lastRV }

// canDeliver reports whether the head event may be delivered now.
func (inf *Informer) canDeliver() bool {
	if inf.watch == nil || inf.watch.Pending() == 0 {
		return false
	}
	return inf.lagRV == 0 || inf.watch.pending[0].RV() <= inf.lagRV
}

// deliver applies the next event of the watch to the cache and notifies the
// controller unless a drop fault takes the notification.
func (inf *Informer) deliver() (Event, bool) {
	e := inf.watch.pending[0]
	inf.watch.pending = inf.watch.pending[1:]
	key := e.Object.Key()
	old := inf.cache.get(key)
	if e.Type == Deleted {
		inf.cache.del(key)
	} else {
		inf.cache.put(e.Object)
	}
	if e.RV() > inf.lastRV {
		inf.lastRV = e.RV()
	}
	if inf.drops > 0 {
		inf.drops--
		return e, false
	}
	switch {
	case e.Type == Deleted:
		inf.ctrl.notifyDelete(inf, e.Object, false)
	case old != nil:
		inf.ctrl.notifyUpdate(inf, old, e.Object)
	default:
		inf.ctrl.notifyAdd(inf, e.Object)
	}
	return e, true
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
	srv.Each(inf.kind, ListOptions{}, func(o *Object) bool {
		listed = append(listed, o)
		return true
	})
	rv := srv.Revision()
	w, err := srv.Watch(inf.kind, rv)
	if err != nil {
		panic("model: watch from the current resourceVersion failed: " + err.Error())
	}
	inf.watch = w
	inf.broken = false
	inf.lastRV = rv
	present := make(map[string]bool, len(listed))
	var gone []*Object
	for _, o := range listed {
		present[o.Key()] = true
	}
	for _, key := range inf.cache.keys.keys {
		if !present[key] {
			gone = append(gone, inf.cache.get(key))
		}
	}
	for _, o := range listed {
		old := inf.cache.get(o.Key())
		inf.cache.put(o)
		if old != nil {
			inf.ctrl.notifyUpdate(inf, old, o)
		} else {
			inf.ctrl.notifyAdd(inf, o)
		}
	}
	for _, o := range gone {
		inf.cache.del(o.Key())
		inf.ctrl.notifyDelete(inf, o, true)
	}
	return len(listed)
}

// rewatch re-establishes a broken watch from the last resourceVersion seen,
// falling back to a relist when the server answers Expired. It reports
// whether it had to relist.
func (inf *Informer) rewatch() bool {
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

// breakWatch ends the watch; the informer will rewatch when next scheduled.
func (inf *Informer) breakWatch() {
	inf.ctrl.c.server.StopWatch(inf.watch)
	inf.watch = nil
	inf.broken = true
}

// replay notifies the controller of every cached object as an update with
// old == new. It does not contact the server.
func (inf *Informer) replay() int {
	n := 0
	for _, key := range inf.cache.keys.keys {
		o := inf.cache.get(key)
		inf.ctrl.notifyUpdate(inf, o, o)
		n++
	}
	return n
}

// stop discards the watch, the cache and the resync timer.
func (inf *Informer) stop() {
	inf.ctrl.c.server.StopWatch(inf.watch)
	inf.watch = nil
	inf.broken = false
	inf.cache = newObjectStore()
	inf.lastRV = 0
	inf.drops = 0
	inf.lagRV = 0
	inf.resync.Cancel()
	inf.resync = nil
}
