package model

import (
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"go.uber.org/zap"
)

// Config configures a Cluster. The zero value is usable.
type Config struct {
	// HistoryWindow is how many events the server's history keeps at
	// least; a watch from further back is Expired. Default 1000.
	HistoryWindow int
	// Logger receives every step at debug level. Nil means no logging.
	Logger *zap.Logger
	// DiscardTrace keeps no records, for long or large runs where only the
	// outcome matters.
	DiscardTrace bool
}

// ActionKind is the kind of an enabled action.
type ActionKind uint8

// The kinds of action the scheduler chooses among, in the fixed order
// Enabled lists them.
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

// Action is one enabled action. Index selects the informer, controller or
// actor, in the cluster's fixed order.
type Action struct {
	Kind  ActionKind
	Index int
}

// Panic is a panic raised by user code (a controller, a handler, an actor or
// a mapping function), recovered by the cluster.
type Panic struct {
	Who   string
	Value string
	// Stack lists the panicking frames as "function file:line", without
	// addresses, so that it is the same on every replay.
	Stack []string
}

func (p *Panic) String() string { return p.Who + " panicked: " + p.Value }

// Dropped is a notification a drop fault took from an informer.
type Dropped struct {
	Controller string
	Event      Event
	At         Time
	Step       int
}

// Filtered is a notification a level-triggered controller's filter turned
// into no key: its Notify returned no request, or no For, Owns or Watches
// mapping matched (a predicate, an unmapped watch). Kept with the trace
// only.
type Filtered struct {
	Controller string
	Type       EventType
	Object     Ref
	RV         uint64
	At         Time
	Step       int
}

// Mapped is an object whose notification a controller's Watches map (or
// its Notify) turned into the key of another object: a link the owner
// references do not show, for diagnoses.
type Mapped struct {
	Controller string
	Object     Ref
	Key        string
	// At and Step are when it last mapped there.
	At   Time
	Step int
}

// String renders "Modified Pod default/web-x@12".
func (f Filtered) String() string {
	return fmt.Sprintf("%s %s@%d", f.Type, f.Object, f.RV)
}

type actorState struct {
	actor Actor
	moves int
	out   *Outside
}

// Cluster is the deterministic model cluster: an API server, controllers
// with their informers and queues, outside actors and a virtual clock. It is
// single-threaded and is driven one step at a time by its caller: Enabled
// lists what may happen next, Do makes one of those happen.
type Cluster struct {
	cfg       Config
	log       *zap.Logger
	debug     bool
	clock     Clock
	server    *Server
	ctrls     []*controller
	informers []*Informer
	actors    []*actorState
	chooser   Chooser

	started       bool
	actorsStopped bool
	quietAt       Time
	step          int
	cur           *Record
	scratch       Record
	trace         Trace
	panic         *Panic
	pendingCrash  []*controller
	dropped       []Dropped
	filtered      []Filtered
	mapped        map[Mapped]Mapped // by Controller, Object and Key alone
	writes        int
	rivals        []*rivalState
	listeners     []func(Write)
	lent          []lent
	snapshots     map[*Object]*Object
	mutation      *CacheMutation
	lostUpdate    *LostUpdate
	reconciled    reconciled
	// resyncHeld makes resync timers fire without replaying (HoldResync).
	resyncHeld bool
	// injected is the error the intercept last made a call fail with, so
	// that the caller's note of the failure says a fault caused it.
	injected injection
}

// injection is an API error a fault armed, as the intercept returned it.
type injection struct {
	err     *StatusError
	applied bool
}

// reconciled describes the last reconcile step.
type reconciled struct {
	controller, key string
	step, writes    int
}

// NewCluster returns an empty cluster.
func NewCluster(cfg Config) *Cluster {
	if cfg.HistoryWindow <= 0 {
		cfg.HistoryWindow = 1000
	}
	c := &Cluster{cfg: cfg, log: cfg.Logger, chooser: firstChoice{}, snapshots: map[*Object]*Object{}}
	if c.log == nil {
		c.log = zap.NewNop()
	}
	c.debug = c.log.Core().Enabled(zap.DebugLevel)
	c.server = NewServer(c.clock.Now, cfg.HistoryWindow)
	c.server.OnWrite(c.recordWrite)
	c.server.AddIntercept(c.intercept)
	return c
}

// Server returns the API server.
func (c *Cluster) Server() *Server { return c.server }

// Now returns the virtual time.
func (c *Cluster) Now() Time { return c.clock.Now() }

// Steps returns the number of steps taken.
func (c *Cluster) Steps() int { return c.step }

// Writes returns the number of effective writes so far.
func (c *Cluster) Writes() int { return c.writes }

// Trace returns the records so far. It is empty with DiscardTrace.
func (c *Cluster) Trace() *Trace { return &c.trace }

// Panic returns the first panic raised by user code, or nil.
func (c *Cluster) Panic() *Panic { return c.panic }

// Dropped returns the notifications drop faults have taken, in order.
func (c *Cluster) Dropped() []Dropped { return c.dropped }

// Filtered returns the notifications controllers' filters turned into no
// key, in order (empty when the trace is discarded).
func (c *Cluster) Filtered() []Filtered { return c.filtered }

// MappedTo returns the objects whose notifications the controller's
// Watches maps or Notify turned into key, other than the object of that
// key itself, in object order (empty when the trace is discarded).
func (c *Cluster) MappedTo(controller, key string) []Mapped {
	var out []Mapped
	for k, m := range c.mapped {
		if k.Controller == controller && k.Key == key {
			out = append(out, m)
		}
	}
	slices.SortFunc(out, func(a, b Mapped) int { return strings.Compare(a.Object.String(), b.Object.String()) })
	return out
}

// SetChooser sets the source actors draw their choices from.
func (c *Cluster) SetChooser(ch Chooser) { c.chooser = ch }

// State returns a read-only view of the API server's current state.
func (c *Cluster) State() State { return State{s: c.server, now: c.clock.Now()} }

// AddController declares a controller. It must be called before Start.
func (c *Cluster) AddController(spec Controller) error {
	if c.started {
		return fmt.Errorf("controller %q added after start", spec.Name)
	}
	if err := spec.validate(); err != nil {
		return err
	}
	for _, ctl := range c.ctrls {
		if ctl.spec.Name == spec.Name {
			return fmt.Errorf("two controllers named %q", spec.Name)
		}
	}
	ctl := newController(c, spec)
	i, _ := slices.BinarySearchFunc(c.ctrls, spec.Name, func(x *controller, name string) int {
		return strings.Compare(x.spec.Name, name)
	})
	c.ctrls = slices.Insert(c.ctrls, i, ctl)
	c.informers = c.informers[:0]
	for _, ctl := range c.ctrls {
		c.informers = append(c.informers, ctl.informers...)
	}
	return nil
}

// AddActor declares an outside actor that may act up to moves times while
// actors are running.
func (c *Cluster) AddActor(a Actor, moves int) error {
	if c.started {
		return fmt.Errorf("actor %q added after start", a.Name())
	}
	if a.Name() == "" {
		return errors.New("actor has no name")
	}
	if moves < 0 {
		return fmt.Errorf("actor %q: negative moves %d", a.Name(), moves)
	}
	for _, s := range c.actors {
		if s.actor.Name() == a.Name() {
			return fmt.Errorf("two actors named %q", a.Name())
		}
	}
	c.actors = append(c.actors, &actorState{actor: a, moves: moves, out: c.Outside(a.Name())})
	return nil
}

// Outside returns a handle that writes to the API server under name.
func (c *Cluster) Outside(name string) *Outside { return &Outside{c: c, name: name} }

// Setup is the actor and caller name of the scenario's setup (Apply).
const Setup = "setup"

// Apply creates objects as the scenario's setup, before or after Start. An
// object given with a status gets it written through UpdateStatus.
func (c *Cluster) Apply(objs ...*Object) error {
	c.begin(Setup, "apply", "")
	defer c.end()
	for _, o := range objs {
		status := o.Status
		obj := o.DeepCopy()
		if err := c.server.Create(Setup, obj); err != nil {
			return err
		}
		if len(status) > 0 {
			obj.Status = status
			if err := c.server.UpdateStatus(Setup, obj); err != nil {
				return err
			}
		}
	}
	return nil
}

// Start starts every controller: each lists its kinds and begins watching.
func (c *Cluster) Start() error {
	if c.started {
		return errors.New("cluster already started")
	}
	if len(c.ctrls) == 0 {
		return errors.New("cluster has no controllers")
	}
	c.started = true
	c.begin("cluster", "start", "")
	for _, ctl := range c.ctrls {
		ctl.start()
	}
	c.end()
	return nil
}

// Controllers returns the controller names in order.
func (c *Cluster) Controllers() []string {
	names := make([]string, len(c.ctrls))
	for i, ctl := range c.ctrls {
		names[i] = ctl.spec.Name
	}
	return names
}

// Informers returns the informers, ordered by controller then kind.
func (c *Cluster) Informers() []*Informer { return c.informers }

// Spec returns the declaration of the named controller.
func (c *Cluster) Spec(name string) (Controller, bool) {
	if ctl := c.controller(name); ctl != nil {
		return ctl.spec, true
	}
	return Controller{}, false
}

func (c *Cluster) controller(name string) *controller {
	for _, ctl := range c.ctrls {
		if ctl.spec.Name == name {
			return ctl
		}
	}
	return nil
}

// Enabled appends the actions that may happen next to buf, in a fixed
// order: deliveries and rewatches per informer, reconciles per controller,
// garbage collection, actors, rivals, then the next timer.
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
		if !inf.ctrl.up {
			continue
		}
		if inf.canDeliver() {
			buf = append(buf, Action{Kind: ActDeliver, Index: i})
			inFlight = true
		} else if inf.broken && !inf.ctrl.partitioned() {
			buf = append(buf, Action{Kind: ActRewatch, Index: i})
			inFlight = true
		}
	}
	for i, ctl := range c.ctrls {
		if ctl.up && ctl.rec != nil && ctl.queue.Len() > 0 {
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

// Busy reports whether anything but a timer or an actor is enabled:
// undelivered events, broken watches, queued keys, garbage, or a rival with
// something to restore.
func (c *Cluster) Busy() bool {
	for _, r := range c.rivals {
		if r.enabled(c.server) {
			return true
		}
	}
	for _, inf := range c.informers {
		if inf.ctrl.up && (inf.canDeliver() || (inf.broken && !inf.ctrl.partitioned())) {
			return true
		}
	}
	for _, ctl := range c.ctrls {
		if ctl.up && ctl.rec != nil && ctl.queue.Len() > 0 {
			return true
		}
	}
	return c.server.GCPending()
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
			c.cur.Action, c.cur.Event, c.cur.RV, c.cur.Replay = "resync", 0, 0, true
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
		if inf.rewatch() {
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

// At sets a timer at virtual time t that runs fn as its own step, recorded
// under actor with the given action. The harness schedules faults and the
// end of the fault phase this way.
func (c *Cluster) At(t Time, actor, action string, fn func()) *Timer {
	return c.clock.At(t, actor+" "+action, func() {
		c.begin(actor, action, "")
		c.cur.Timer = TimerScheduled
		fn()
	})
}

// Interrupt is At for faults: once the clock is at time t, its timer may
// fire even while watch events are in flight, so that a fault can strike
// in the middle of things. It never moves the clock while events are in
// flight: that would make an informer lag with no fault in the schedule.
func (c *Cluster) Interrupt(t Time, actor, action string, fn func()) *Timer {
	tm := c.At(t, actor, action, fn)
	tm.Preempts = true
	return tm
}

// Note adds a note to the current step's record.
func (c *Cluster) Note(format string, args ...any) { c.notef(format, args...) }

// MarkFault records that the current step is the work of fault n of the
// schedule, counted from 1 in time order (Record.Fault). The faults
// package calls it as each fault strikes.
func (c *Cluster) MarkFault(n int) {
	if c.cur != nil {
		c.cur.Fault = n
	}
}

// HoldResync stops (held true) or resumes resyncs: while held, a resync
// timer fires on time but its informer replays nothing. Properties hold
// resync to check that a controller reaches its goal without one, as it
// must under faithful faults (docs/design.md, section "Prompt
// convergence").
func (c *Cluster) HoldResync(held bool) { c.resyncHeld = held }

// StopActors stops every actor: the world outside holds still from now on.
func (c *Cluster) StopActors() {
	if !c.actorsStopped {
		c.quietAt = c.clock.Now()
	}
	c.actorsStopped = true
}

// Heal ends every fault at once, as one step: armed faults are disarmed,
// held events released, lags and partitions end, crashed controllers come
// back now, transient rivals stop. Persistent rivals go on.
func (c *Cluster) Heal() {
	c.begin("cluster", "heal", "")
	for _, ctl := range c.ctrls {
		ctl.heal()
	}
	for _, r := range c.rivals {
		if !r.Persistent {
			r.active = false
		}
	}
	c.end()
}

// Up reports whether the named controller is running.
func (c *Cluster) Up(controller string) bool {
	ctl := c.controller(controller)
	return ctl != nil && ctl.up
}

// LastReconcile returns when controller last reconciled key.
func (c *Cluster) LastReconcile(controller, key string) (Time, bool) {
	ctl := c.controller(controller)
	if ctl == nil {
		return 0, false
	}
	t, ok := ctl.lastReconcile[key]
	return t, ok
}

// Goals evaluates every controller's goal on the current state, in
// controller order.
func (c *Cluster) Goals() []GoalUnmet {
	var out []GoalUnmet
	st := c.State()
	for _, ctl := range c.ctrls {
		if ctl.spec.Goal == nil {
			continue
		}
		var unmet []Unmet
		c.guard(ctl.spec.Name, func() { unmet = ctl.spec.Goal(st) })
		for _, u := range unmet {
			out = append(out, GoalUnmet{Controller: ctl.spec.Name, Unmet: u})
		}
	}
	return out
}

// GoalUnmet is an unmet goal with the controller that owns it.
type GoalUnmet struct {
	Controller string
	Unmet
}

// begin starts the record of a step, or relabels the current one (a timer
// step takes the name of what its timer does).
func (c *Cluster) begin(actor, action, object string) {
	if c.cur == nil {
		c.step++
		if c.cfg.DiscardTrace {
			c.scratch = Record{Writes: c.scratch.Writes[:0], Notes: c.scratch.Notes[:0]}
		} else {
			c.scratch = Record{}
		}
		c.cur = &c.scratch
		c.cur.Step = c.step
	}
	c.cur.Actor, c.cur.Action, c.cur.text = actor, action, object
	c.cur.Target, c.cur.Event, c.cur.RV = Ref{}, 0, 0
}

// end finishes the current step: pending crashes happen, the record is kept
// and logged.
func (c *Cluster) end() {
	if len(c.lent) > 0 {
		c.checkLent()
	}
	for _, ctl := range c.pendingCrash {
		ctl.crash(ctl.crashDown)
	}
	c.pendingCrash = c.pendingCrash[:0]
	r := c.cur
	r.Time = c.clock.Now()
	c.cur = nil
	if !c.cfg.DiscardTrace {
		c.trace.Records = append(c.trace.Records, *r)
	}
	if c.debug {
		c.log.Debug("step", zap.Int("step", r.Step), zap.Int64("t", int64(r.Time)), zap.String("actor", r.Actor),
			zap.String("action", r.Action), zap.String("object", r.Subject()), zap.Stringer("record", r))
	}
}

// OnWrite registers fn to see every effective write, as it happens.
// Listeners add up: they run in the order they were registered, after the
// cluster has counted the write and before it joins the trace, and before
// the callbacks added with Server.OnWrite. A nil fn adds nothing.
func (c *Cluster) OnWrite(fn func(Write)) {
	if fn != nil {
		c.listeners = append(c.listeners, fn)
	}
}

func (c *Cluster) recordWrite(w Write) {
	c.writes++
	for _, fn := range c.listeners {
		fn(w)
	}
	if c.cur == nil {
		c.begin(w.Caller, "write", "")
		defer c.end()
	}
	c.cur.Writes = append(c.cur.Writes, w)
}

// noting reports whether a note on the current step would be read: there
// is a step, and its record is kept or logged.
func (c *Cluster) noting() bool {
	return c.cur != nil && (!c.cfg.DiscardTrace || c.debug)
}

// note adds a note to the current record, unless nothing will read it.
func (c *Cluster) note(n Note) {
	if c.noting() {
		c.cur.Notes = append(c.cur.Notes, n)
	}
}

// notef adds a note in words to the current record, unless nothing will
// read it.
func (c *Cluster) notef(format string, args ...any) {
	if c.noting() {
		c.cur.Notes = append(c.cur.Notes, Note{Text: fmt.Sprintf(format, args...)})
	}
}

// noteError notes an error user code returned.
func (c *Cluster) noteError(err error) {
	if c.noting() {
		c.cur.Notes = append(c.cur.Notes, Note{Kind: NoteError, Text: fmt.Sprint(err)})
	}
}

// noteFailed notes call (its verb and object set) as failed with err,
// telling whether a fault armed the error (see intercept).
func (c *Cluster) noteFailed(call Call, err error) {
	if !c.noting() {
		return
	}
	// A copy, so that call stays on the stack when nothing is noted.
	noted := new(Call)
	*noted = call
	noted.Reason, noted.Err = ReasonOf(err), fmt.Sprint(err)
	if se, ok := err.(*StatusError); ok && se == c.injected.err {
		noted.Injected, noted.Applied = true, c.injected.applied
	}
	c.cur.Notes = append(c.cur.Notes, Note{Kind: NoteFailed, Call: noted})
}

// guard runs user code. A panic becomes the cluster's Panic (the run is a
// finding); a crash fault's signal becomes a crash at the end of the step.
// It reports whether fn returned normally.
func (c *Cluster) guard(who string, fn func()) (ok bool) {
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		if sp, fromSource := r.(sourcePanic); fromSource {
			panic(sp.value)
		}
		ok = false
		if sig, isCrash := r.(crashSignal); isCrash {
			ctl := c.controller(sig.controller)
			ctl.up = false
			c.pendingCrash = append(c.pendingCrash, ctl)
			c.notef("%s", sig)
			return
		}
		if c.panic == nil {
			c.panic = &Panic{Who: who, Value: fmt.Sprint(r), Stack: callers()}
			c.note(Note{Kind: NotePanic, Text: c.panic.Value})
		}
	}()
	fn()
	return true
}

// callers lists the frames of a recovered panic, innermost first, from the
// panicking function down to the model's own frames.
func callers() []string {
	pcs := make([]uintptr, 32)
	n := runtime.Callers(4, pcs)
	frames := runtime.CallersFrames(pcs[:n])
	var out []string
	for {
		f, more := frames.Next()
		if strings.HasPrefix(f.Function, "runtime.") {
			if !more {
				break
			}
			continue
		}
		if strings.Contains(f.Function, "/converge/model.") {
			break
		}
		out = append(out, f.Function+" "+filepath.Base(f.File)+":"+strconv.Itoa(f.Line))
		if !more {
			break
		}
	}
	return out
}

// State is a read-only view of the API server for goals, invariants and
// properties. The objects it returns are the stored ones, not copies: they
// must not be modified.
type State struct {
	s   *Server
	now Time
}

// Now returns the virtual time of the view.
func (st State) Now() Time { return st.now }

// Get returns the stored object, or nil.
func (st State) Get(kind, namespace, name string) *Object {
	return st.s.Peek(Ref{Kind: kind, Namespace: namespace, Name: name})
}

// List returns the stored objects of kind matching opts, in key order.
func (st State) List(kind string, opts ListOptions) []*Object {
	var out []*Object
	st.s.Each(kind, opts, func(o *Object) bool {
		out = append(out, o)
		return true
	})
	return out
}

// Kinds returns the kinds the server has stored, sorted.
func (st State) Kinds() []string { return st.s.Kinds() }

// Len returns how many objects of kind are stored.
func (st State) Len(kind string) int { return st.s.Count(kind) }

// Nth returns the i-th stored object of kind in key order, or nil.
func (st State) Nth(kind string, i int) *Object {
	store := st.s.kinds[kind]
	if store == nil {
		return nil
	}
	k, ok := store.keys.nth(i)
	if !ok {
		return nil
	}
	return store.objs[k]
}

// Count returns how many stored objects of kind match opts.
func (st State) Count(kind string, opts ListOptions) int {
	n := 0
	st.s.Each(kind, opts, func(*Object) bool {
		n++
		return true
	})
	return n
}
