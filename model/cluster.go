package model

import (
	"errors"
	"fmt"
	"slices"
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
	// fpCache keeps the hashes Fingerprint computed of immutable parts of
	// the state (see fingerprintCache); nil until the first Fingerprint.
	fpCache *fingerprintCache

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
	travels       []Travel
	filtered      []Filtered
	mapped        map[Mapped]Mapped // by Controller, Object and Key alone
	writes        int
	rivals        []*rivalState
	listeners     []func(Write)
	lent          []lent
	lentRoom      [16]lent // lent's first array: a run's cluster lends from its first step
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
	// byResync says a resync alone brought the controller back to key
	// after a reconcile of it, at step swallowedAt, that swallowed a
	// failed write (RepairedByResync).
	byResync    bool
	swallowedAt int
}

// NewCluster returns an empty cluster.
func NewCluster(cfg Config) *Cluster {
	if cfg.HistoryWindow <= 0 {
		cfg.HistoryWindow = 1000
	}
	c := &Cluster{cfg: cfg, log: cfg.Logger, chooser: firstChoice{}}
	c.lent = c.lentRoom[:0]
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
		if status.Len() > 0 {
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
