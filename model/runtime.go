package model

import "fmt"

// controller is the running state of one declared Controller: its informers
// (one per kind, in kind order), its work queue, and the reconciler or
// handler built by the user's constructor. A crash throws all of it away.
type controller struct {
	c         *Cluster
	spec      Controller
	informers []*Informer
	queue     *Queue
	rec       Reconciler
	handler   Handler
	client    *client

	up      bool
	restart *Timer
	// partition, while set, is the timer that ends the controller's
	// partition from the API server.
	partition *Timer
	// failures are API errors armed for the controller's next writes.
	failures []armedFailure
	// crashAfterWrites, when positive, crashes the controller right after
	// that many more writes (a crash in the middle of a reconcile).
	crashAfterWrites int
	crashDown        Time
	// crashLater, when set, is a crash armed by CrashAfterWritesLater,
	// decided at the next write; crashLaterName names it. crashLaterDown
	// says its down time is still to be set then: CrashAfterWrites would
	// have set it when armed, so a crash set up since (a crash or time
	// travel waiting for a reconcile to unwind) keeps its own.
	crashLater     func() (writes int, down Time)
	crashLaterName string
	crashLaterDown bool

	// wait is the reconcile in progress, which may wait (wait.go).
	wait waitState

	// lastReconcile is when each key was last reconciled, for diagnosis.
	lastReconcile map[string]Time
	// track is why keys were enqueued and how their reconciles ended
	// (RepairedByResync).
	track resyncTrack
}

func newController(c *Cluster, spec Controller) *controller {
	ctl := &controller{c: c, spec: spec, lastReconcile: map[string]Time{}}
	for _, kind := range spec.kinds() {
		ctl.informers = append(ctl.informers, &Informer{ctrl: ctl, kind: kind, cache: newObjectStore()})
	}
	ctl.client = &client{ctl: ctl}
	ctl.client.reads = ctl.client.readRoom[:0]
	return ctl
}

func (ctl *controller) informer(kind string) *Informer {
	for _, inf := range ctl.informers {
		if inf.kind == kind {
			return inf
		}
	}
	return nil
}

// start builds a fresh reconciler or handler, lists every kind and starts
// the resync timers. It is the controller's first start and every restart.
func (ctl *controller) start() {
	ctl.up = true
	ctl.restart = nil
	ctl.queue = NewQueue(&ctl.c.clock, ctl.spec.Name, ctl.spec.Backoff)
	ctl.track.reset()
	ctl.c.guard(ctl.spec.Name, func() {
		if ctl.spec.NewReconciler != nil {
			ctl.rec = ctl.spec.NewReconciler(ctl.client)
		} else {
			ctl.handler = ctl.spec.NewHandler(ctl.client)
		}
	})
	for _, inf := range ctl.informers {
		n := inf.relist()
		ctl.c.notef("%s listed %d", inf.kind, n)
		ctl.scheduleResync(inf)
	}
}

func (ctl *controller) scheduleResync(inf *Informer) {
	if ctl.spec.ResyncPeriod <= 0 {
		return
	}
	if inf.resyncFire == nil {
		inf.resyncName = "resync " + inf.Name()
		inf.resyncFire = func() {
			ctl.c.begin(ctl.spec.Name, "resync", inf.kind)
			ctl.c.cur.Timer, ctl.c.cur.Informer = TimerResync, inf.kind
			if ctl.c.resyncHeld {
				ctl.c.notef("held: no replay while the run checks for prompt convergence")
			} else {
				inf.startReplay()
				ctl.c.notef("%d objects to replay", inf.cache.len())
				inf.replayed = replayMark{writes: ctl.c.writes, rv: inf.lastRV, ok: inf.Pending() == 0 && !inf.broken}
			}
			ctl.scheduleResync(inf)
		}
	}
	inf.resync = ctl.c.clock.After(ctl.spec.ResyncPeriod, inf.resyncName, inf.resyncFire)
}

// replayMark is the state an informer's resync replayed: the cluster's
// effective writes and the informer's last resourceVersion when it fired,
// with nothing in flight to it (ok). It is left out of Fingerprint: it
// decides only whether resyncs that would replay nothing new fire as
// steps or are passed over (SkipIdleResyncs), not what the cluster does.
type replayMark struct {
	writes int
	rv     uint64
	ok     bool
}

// idle reports whether a resync of inf now would replay what its last
// one did: no write since, nothing delivered to it since and nothing in
// flight, its controller up; or resync is held, and it replays nothing.
func (inf *Informer) idle() bool {
	c := inf.ctrl.c
	if !inf.ctrl.up || inf.resync == nil {
		return false
	}
	if c.resyncHeld {
		return true
	}
	m := inf.replayed
	return m.ok && m.writes == c.writes && m.rv == inf.lastRV && inf.Pending() == 0 && !inf.broken && !inf.replayPending()
}

// SkipIdleResyncs passes over resyncs that would replay nothing new. It
// does nothing while the cluster owes work (Busy). Otherwise a resync
// timer due after time after is idle when its informer's last resync
// replayed the current state: no effective write since it fired, no
// event delivered to the informer since and none in flight (or resync
// is held, and it replays nothing). Each idle resync due before the next
// timer of another kind (a requeue, a backoff, a kubelet's delay, the
// end of the fault phase), and before time before, is set again at the
// first tick of its period at or after the earlier of the two, as if it
// had fired in between and replayed the same caches to the same
// controllers, which wrote nothing the last time. The clock then reaches
// a far timer, a periodic controller's requeue hours away, in a few
// steps instead of one per resync period and informer (docs/design.md,
// "Quiescence": waiting for a far requeue). A controller is assumed to
// answer an unchanged cache the same way at the same time it reads: one
// that reads the model's running clock (Client.Now) on a resync, with no
// requeue for the time it waits for, or counts resyncs in memory, sees
// fewer of them. It returns how many resyncs it passed over.
func (c *Cluster) SkipIdleResyncs(after, before Time) int {
	if c.Busy() {
		return 0
	}
	idle := map[*Timer]*Informer{}
	for _, inf := range c.informers {
		if inf.idle() && !inf.resync.dead && inf.resync.At > after {
			idle[inf.resync] = inf
		}
	}
	if len(idle) == 0 {
		return 0
	}
	next := c.clock.nextOther(func(t *Timer) bool { return idle[t] != nil })
	if next == nil {
		return 0
	}
	target := min(next.At, before)
	skipped := 0
	// In the informers' order, so that the timers set again fire in a
	// fixed order among themselves.
	for _, inf := range c.informers {
		t := inf.resync
		if idle[t] == nil || t.At >= target {
			continue
		}
		period := inf.ctrl.spec.ResyncPeriod
		k := (target - t.At + period - 1) / period
		t.Cancel()
		inf.resync = c.clock.At(t.At+k*period, inf.resyncName, inf.resyncFire)
		skipped += int(k)
	}
	return skipped
}

// crash loses the controller's memory, caches and queue. It comes back after
// down ticks, or when healed.
func (ctl *controller) crash(down Time) {
	ctl.up = false
	ctl.rec, ctl.handler = nil, nil
	ctl.crashAfterWrites = 0
	ctl.crashLater = nil
	if ctl.queue != nil {
		ctl.queue.ShutDown()
	}
	for _, inf := range ctl.informers {
		inf.stop()
	}
	ctl.restart = ctl.c.clock.After(down, "restart "+ctl.spec.Name, func() {
		ctl.c.begin(ctl.spec.Name, "restart", "")
		ctl.c.cur.Timer = TimerRestart
		ctl.start()
	})
}

// heal ends every fault on the controller: armed faults are disarmed, held
// events released, a lag or partition ends, a crashed controller comes back
// now.
func (ctl *controller) heal() {
	ctl.crashAfterWrites = 0
	ctl.crashLater = nil
	ctl.wait.crash, ctl.wait.travel = false, nil
	ctl.failures = nil
	ctl.endPartition()
	for _, inf := range ctl.informers {
		inf.disarm()
		inf.releaseAll()
	}
	if !ctl.up {
		ctl.restart.Cancel()
		ctl.start()
	}
}

// reconcile processes key, which the caller has taken from the queue. An
// error, or a panic in the reconciler, is recorded; the queue then follows
// controller-runtime: an error requeues with backoff (overriding
// RequeueAfter), RequeueAfter requeues after a delay, Requeue requeues with
// backoff.
func (ctl *controller) reconcile(key string) {
	ctl.c.begin(ctl.spec.Name, "reconcile", "")
	ns, name := SplitKey(key)
	ctl.c.cur.Target, ctl.c.cur.Kind = Ref{Kind: ctl.spec.For, Namespace: ns, Name: name}, ActReconcile
	writes := ctl.c.writes
	ctl.wait = waitState{reconciling: true}
	swallowedAt, byResync := ctl.track.begin(key)
	failed := ctl.track.failed
	defer func() {
		own := ctl.c.writes - writes - ctl.wait.waited
		// A time travel that struck during a wait waits for the crash at
		// the end of the step.
		ctl.wait = waitState{travel: ctl.wait.travel}
		ctl.c.reconciled = reconciled{controller: ctl.spec.Name, key: key, step: ctl.c.step, writes: own, byResync: byResync, swallowedAt: swallowedAt}
	}()
	ctl.lastReconcile[key] = ctl.c.clock.Now()
	var res Result
	var err error
	ok := ctl.c.guard(ctl.spec.Name, func() {
		res, err = ctl.rec.Reconcile(Request{Namespace: ns, Name: name})
	})
	if !ok || !ctl.up {
		return
	}
	switch {
	case err != nil:
		ctl.c.noteError(err)
		ctl.queue.AddRateLimited(key)
		ctl.track.added(key)
	case res.RequeueAfter > 0:
		ctl.c.note(Note{Kind: NoteRequeueAfter, N: int64(res.RequeueAfter)})
		ctl.queue.Forget(key)
		ctl.queue.AddAfter(key, res.RequeueAfter)
		ctl.track.added(key)
	case res.Requeue:
		ctl.c.note(Note{Kind: NoteRequeue})
		ctl.queue.AddRateLimited(key)
		ctl.track.added(key)
	default:
		ctl.queue.Forget(key)
		if ctl.track.failed > failed {
			ctl.track.swallowed[key] = ctl.c.step
		}
	}
	ctl.queue.Done(key)
}

// keysFor maps an object of the informer's kind to the keys it enqueues.
func (ctl *controller) keysFor(inf *Informer, o *Object, add func(string)) {
	if inf.kind == ctl.spec.For {
		add(o.Key())
	}
	for _, k := range ctl.spec.Owns {
		if k == inf.kind {
			if ref, ok := o.ControllerRef(); ok && ref.Kind == ctl.spec.For {
				add(ctl.ownerKey(o.Namespace, ref.Name))
			}
			break
		}
	}
	for _, w := range ctl.spec.Watches {
		if w.Kind == inf.kind {
			// The cache's own object, as controller-runtime hands its map
			// functions; a map function that modifies it is caught as a
			// cache mutation.
			ctl.c.lend(ctl.spec.Name, o)
			for _, r := range w.Map(ctl.client, o) {
				key := r.Key()
				add(key)
				ctl.mappedTo(o, key)
			}
		}
	}
}

// ownerKey returns the key of an owner of kind For: the cached owner's
// own key when the controller's cache holds it, which spares building the
// string on every event of a dependent.
func (ctl *controller) ownerKey(namespace, name string) string {
	if inf := ctl.informer(ctl.spec.For); inf != nil {
		if owner := inf.cache.get(namespace, name); owner != nil {
			return owner.Key()
		}
	}
	return Key(namespace, name)
}

func (ctl *controller) enqueue(typ EventType, inf *Informer, objs ...*Object) {
	keys := 0
	add := func(k string) {
		ctl.queue.Add(k)
		ctl.track.added(k)
		keys++
	}
	ctl.c.guard(ctl.spec.Name, func() {
		for _, o := range objs {
			ctl.keysFor(inf, o, add)
		}
	})
	if keys == 0 && len(objs) > 0 {
		ctl.filtered(typ, objs[len(objs)-1])
	}
}

// mappedTo records that a notification of o enqueued key, for diagnoses,
// when key is another object's.
func (ctl *controller) mappedTo(o *Object, key string) {
	c := ctl.c
	if c.cfg.DiscardTrace || key == o.Key() {
		return
	}
	if c.mapped == nil {
		c.mapped = map[Mapped]Mapped{}
	}
	m := Mapped{Controller: ctl.spec.Name, Object: o.Ref(), Key: key}
	c.mapped[m] = Mapped{Controller: m.Controller, Object: m.Object, Key: key, At: c.clock.Now(), Step: c.step}
}

// filtered records a notification that enqueued no key, for diagnoses.
func (ctl *controller) filtered(typ EventType, o *Object) {
	c := ctl.c
	if c.cfg.DiscardTrace {
		return
	}
	c.filtered = append(c.filtered, Filtered{Controller: ctl.spec.Name, Type: typ, Object: o.Ref(), RV: o.ResourceVersion, At: c.clock.Now(), Step: c.step})
}

func (ctl *controller) notifyAdd(inf *Informer, o *Object) {
	if ctl.handler == nil {
		if !ctl.notify(Notification{Kind: inf.kind, Type: Added, Object: o}) {
			ctl.enqueue(Added, inf, o)
		}
		return
	}
	ctl.c.guard(ctl.spec.Name, func() { ctl.handler.OnAdd(o.DeepCopy()) })
}

func (ctl *controller) notifyUpdate(inf *Informer, old, new *Object) {
	if ctl.handler == nil {
		if ctl.notify(Notification{Kind: inf.kind, Type: Modified, Object: new, Old: old}) {
			return
		}
		if old == new {
			ctl.enqueue(Modified, inf, new)
		} else {
			ctl.enqueue(Modified, inf, old, new)
		}
		return
	}
	ctl.c.guard(ctl.spec.Name, func() { ctl.handler.OnUpdate(old.DeepCopy(), new.DeepCopy()) })
}

func (ctl *controller) notifyDelete(inf *Informer, o *Object, finalStateUnknown bool) {
	if ctl.handler == nil {
		if !ctl.notify(Notification{Kind: inf.kind, Type: Deleted, Object: o, FinalStateUnknown: finalStateUnknown}) {
			ctl.enqueue(Deleted, inf, o)
		}
		return
	}
	ctl.c.guard(ctl.spec.Name, func() { ctl.handler.OnDelete(o.DeepCopy(), finalStateUnknown) })
}

// wrote counts a write for the crash-between-writes fault.
func (ctl *controller) wrote() {
	if later := ctl.crashLater; later != nil {
		ctl.crashLater = nil
		writes, down := later()
		ctl.crashAfterWrites = writes
		if ctl.crashLaterDown {
			ctl.crashDown = down
		}
	}
	if ctl.crashAfterWrites <= 0 {
		return
	}
	ctl.crashAfterWrites--
	if ctl.crashAfterWrites == 0 {
		panic(crashSignal{controller: ctl.spec.Name})
	}
}

// crashSignal unwinds a controller's code when a fault crashes it in the
// middle of its work; guard turns it into a crash, not a finding.
type crashSignal struct{ controller string }

// IsUnwind reports whether a value recovered from a panic in a
// controller's code is the model unwinding that code: a crash a fault
// injected mid-reconcile, or the run's source of choices ending the run.
// Neither is a panic of the code itself; code that logs the panics it
// sees on their way up (apimachinery's HandleCrash) can stay quiet about
// them.
func IsUnwind(r any) bool {
	switch r.(type) {
	case crashSignal, sourcePanic:
		return true
	}
	return false
}

// String is the crash as a panic handler prints it; the controllerruntime
// module's crash.go matches it in controller-runtime's log line.
func (s crashSignal) String() string {
	return fmt.Sprintf("fault: %s crashed mid-reconcile", s.controller)
}

// armedFailure is an API error waiting for one of the controller's writes,
// or, when later is set, API errors decided only at that write
// (Faults.FailWritesLater).
type armedFailure struct {
	err     *StatusError
	applied bool
	later   func() (err *StatusError, n int, applied bool)
	name    string
}

// partitioned reports whether the controller is cut off from the server.
func (ctl *controller) partitioned() bool { return ctl.partition != nil }

// endPartition reconnects the controller; its informers rewatch when next
// scheduled.
func (ctl *controller) endPartition() {
	ctl.partition.Cancel()
	ctl.partition = nil
}
