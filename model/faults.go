package model

import "fmt"

// Faults is the cluster's fault surface: the primitives the faults package
// composes into faults, and what they left behind. Each primitive takes
// effect in the current step and notes what it did in the step's record.
// Get it with Cluster.Faults; it is a view, as cheap to get as to keep.
type Faults struct{ c *Cluster }

// Faults returns the cluster's fault surface.
func (c *Cluster) Faults() Faults { return Faults{c} }

// ArmDrop makes the next watch event delivered to controller's informer for
// kind lose its notification: the cache applies it, the controller is not
// told.
func (f Faults) ArmDrop(controller, kind string) error {
	return f.c.armInformer(controller, kind, func(inf *Informer) { inf.drops++ })
}

// ArmDuplicate makes the next watch event delivered to the informer arrive
// twice in a row.
func (f Faults) ArmDuplicate(controller, kind string) error {
	return f.c.armInformer(controller, kind, func(inf *Informer) { inf.dupes++ })
}

// ArmDelay holds the next watch event for the informer back for d ticks;
// events of other objects are delivered meanwhile, events of the same object
// wait behind it.
func (f Faults) ArmDelay(controller, kind string, d Time) error {
	return f.c.armInformer(controller, kind, func(inf *Informer) { inf.delays = append(inf.delays, armedDelay{d: d}) })
}

// ArmDelayLater arms a delay of the next watch event for the informer as
// ArmDelay does, but decides how long only when that event comes: choose
// then returns it. Until then nothing tells it apart from the delay
// ArmDelay would have armed but the fingerprint, which writes name
// instead (name must say what choose may return): bounded exploration
// arms a class's delays of one informer so (docs/design.md, "Bounded
// exhaustive exploration").
func (f Faults) ArmDelayLater(controller, kind, name string, choose func() Time) error {
	if choose == nil {
		return fmt.Errorf("ArmDelayLater on %s of %q: no choice", kind, controller)
	}
	return f.c.armInformer(controller, kind, func(inf *Informer) {
		inf.delays = append(inf.delays, armedDelay{later: choose, name: name})
	})
}

// Expire ends the informer's watch with Expired (410 Gone): its undelivered
// events are lost and it must relist, so intermediate states collapse into
// the listed one and objects deleted meanwhile reach the controller as
// deletes with finalStateUnknown.
func (f Faults) Expire(controller, kind string) error {
	c := f.c
	return c.armInformer(controller, kind, func(inf *Informer) {
		if inf.watch != nil || inf.broken {
			inf.breakWatch()
			inf.mustRelist = true
		}
	})
}

// Lag makes the informer stale for d ticks: it delivers an event only after
// behind further writes have followed it, so its cache, and every read from
// it, stays at least that many resourceVersions behind the server.
func (f Faults) Lag(controller, kind string, behind uint64, d Time) error {
	c := f.c
	return c.armInformer(controller, kind, func(inf *Informer) {
		inf.lag = behind
		inf.ctrl.c.clock.After(d, "lag ends "+inf.Name(), func() {
			c.begin(controller, "lag ends "+kind, "")
			c.cur.Timer, c.cur.Informer = TimerLagEnds, kind
			inf.lag = 0
		})
	})
}

// BreakWatch ends the informer's watch as a broken connection does: the
// informer watches again from the last resourceVersion it saw, and relists
// if the server answers Expired.
func (f Faults) BreakWatch(controller, kind string) error {
	c := f.c
	return c.armInformer(controller, kind, func(inf *Informer) {
		if !inf.broken {
			inf.breakWatch()
		}
	})
}

// Partition cuts controller off from the API server for d ticks: its writes
// fail with ServiceUnavailable, its watches break and cannot be
// re-established until the partition ends. It keeps reading its caches.
func (f Faults) Partition(controller string, d Time) error {
	c := f.c
	ctl := c.controller(controller)
	if ctl == nil {
		return fmt.Errorf("no controller %q", controller)
	}
	for _, inf := range ctl.informers {
		if ctl.up && !inf.broken {
			inf.breakWatch()
		}
	}
	ctl.partition.Cancel()
	ctl.partition = c.clock.After(d, "partition ends "+controller, func() {
		c.begin(controller, "partition ends", "")
		c.cur.Timer = TimerPartitionEnds
		ctl.endPartition()
	})
	c.notef("cut off for %d ticks", d)
	return nil
}

// FailWrites makes controller's next n writes fail with err. With applied,
// each write lands first and the error is returned anyway (the ambiguous
// timeout).
func (f Faults) FailWrites(controller string, err *StatusError, n int, applied bool) error {
	c := f.c
	ctl := c.controller(controller)
	if ctl == nil {
		return fmt.Errorf("no controller %q", controller)
	}
	for range n {
		ctl.failures = append(ctl.failures, armedFailure{err: err, applied: applied})
	}
	c.notef("armed %d", n)
	return nil
}

// FailWritesLater arms API errors for controller's next writes as
// FailWrites does, but decides which only when the first of those writes
// comes: choose then returns the error, how many writes fail (that one
// included) and whether each lands first. Until that write nothing tells
// the armed failures apart from the ones FailWrites would have armed but
// the fingerprint, which writes name instead of the error (name must say
// what choose may return): bounded exploration arms a class's API errors
// on one controller so, and explores the interleavings up to that write
// once for all of them (docs/design.md, "Bounded exhaustive exploration").
func (f Faults) FailWritesLater(controller, name string, choose func() (err *StatusError, n int, applied bool)) error {
	c := f.c
	ctl := c.controller(controller)
	if ctl == nil {
		return fmt.Errorf("no controller %q", controller)
	}
	if choose == nil {
		return fmt.Errorf("FailWritesLater on %q: no choice", controller)
	}
	ctl.failures = append(ctl.failures, armedFailure{later: choose, name: name})
	c.notef("armed: %s", name)
	return nil
}

// Crash crashes controller now: it loses its memory, caches and queue, and
// restarts after down ticks with a fresh list of everything.
func (f Faults) Crash(controller string, down Time) error {
	c := f.c
	ctl, err := c.running(controller)
	if ctl == nil {
		return err
	}
	if ctl.wait.reconciling {
		// It is waiting inside a reconcile (Client.Wait): the wait ends and
		// the reconcile unwinds, then it crashes, as after a write.
		ctl.wait.crash, ctl.crashDown = true, down
		ctl.crashLaterDown = false
		c.notef("down for %d, once its waiting reconcile unwinds", down)
		return nil
	}
	ctl.crash(down)
	c.notef("down for %d", down)
	return nil
}

// CrashAfterWrites crashes controller right after its next writes-th write,
// in the middle of whatever it is doing: the writes before the crash landed,
// the rest of the reconcile never happens. It stays down for down ticks.
func (f Faults) CrashAfterWrites(controller string, writes int, down Time) error {
	c := f.c
	if writes <= 0 {
		return f.Crash(controller, down)
	}
	ctl, err := c.running(controller)
	if ctl == nil {
		return err
	}
	ctl.crashAfterWrites = writes
	ctl.crashDown = down
	ctl.crashLater = nil
	c.notef("armed: crash after %d more writes", writes)
	return nil
}

// CrashAfterWritesLater arms a crash of controller as CrashAfterWrites
// does with writes of at least 1, but decides after how many writes, and
// for how long, only at the first of them: choose then returns both.
// Until that write nothing tells it apart from the crash CrashAfterWrites
// would have armed but the fingerprint, which writes name instead (name
// must say what choose may return): bounded exploration arms a class's
// restarts between writes on one controller so (docs/design.md, "Bounded
// exhaustive exploration").
func (f Faults) CrashAfterWritesLater(controller, name string, choose func() (writes int, down Time)) error {
	c := f.c
	if choose == nil {
		return fmt.Errorf("CrashAfterWritesLater on %q: no choice", controller)
	}
	ctl, err := c.running(controller)
	if ctl == nil {
		return err
	}
	ctl.crashAfterWrites = 0
	ctl.crashLater, ctl.crashLaterName, ctl.crashLaterDown = choose, name, true
	c.notef("armed: %s", name)
	return nil
}

// StartRival starts a rival writer now. If an active rival already owns the
// same field of the same object, the new one takes the field over.
func (f Faults) StartRival(r Rival) error {
	c := f.c
	if r.Name == "" || r.Path == "" {
		return fmt.Errorf("a rival needs a name and a field path")
	}
	if v, ok := r.Value.(int); ok {
		r.Value = int64(v)
	}
	probe := &Object{}
	if err := probe.SetField(r.Path, r.Value); err != nil {
		return err
	}
	for _, old := range c.rivals {
		if old.active && old.Target == r.Target && old.Path == r.Path {
			old.active = false
			c.notef("rival %s stops: a new rival takes %s of %s over", old.Name, old.Path, old.Target)
		}
	}
	c.rivals = append(c.rivals, &rivalState{Rival: r, active: true})
	c.notef("rival %s owns %s of %s, wants %v", r.Name, r.Path, r.Target, FormatValue(r.Value))
	return nil
}

// Rivals returns the rivals still active, in the order they started.
func (f Faults) Rivals() []Rival {
	c := f.c
	var out []Rival
	for _, r := range c.rivals {
		if r.active {
			out = append(out, r.Rival)
		}
	}
	return out
}

// Interrupt is At for faults: once the clock is at time t, its timer may
// fire even while watch events are in flight, so that a fault can strike
// in the middle of things. It never moves the clock while events are in
// flight: that would make an informer lag with no fault in the schedule.
func (f Faults) Interrupt(t Time, actor, action string, fn func()) *Timer {
	c := f.c
	tm := c.At(t, actor, action, fn)
	tm.Preempts = true
	return tm
}

// Mark records that the current step is the work of fault n of the
// schedule, counted from 1 in time order (Record.Fault). The faults
// package calls it as each fault strikes.
func (f Faults) Mark(n int) {
	c := f.c
	if c.cur != nil {
		c.cur.Fault = n
	}
}

// Dropped returns the notifications drop faults have taken, in order.
func (f Faults) Dropped() []Dropped { return f.c.dropped }

// Heal ends every fault at once, as one step: armed faults are disarmed,
// held events released, lags and partitions end, crashed controllers come
// back now, transient rivals stop. Persistent rivals go on.
func (f Faults) Heal() {
	c := f.c
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

func (c *Cluster) lookupInformer(controller, kind string) (*Informer, error) {
	ctl := c.controller(controller)
	if ctl == nil {
		return nil, fmt.Errorf("no controller %q", controller)
	}
	inf := ctl.informer(kind)
	if inf == nil {
		return nil, fmt.Errorf("controller %q does not watch %s", controller, kind)
	}
	return inf, nil
}

// armInformer runs arm on controller's informer for kind if the controller
// is up, and notes the outcome.
func (c *Cluster) armInformer(controller, kind string, arm func(inf *Informer)) error {
	inf, err := c.lookupInformer(controller, kind)
	if err != nil {
		return err
	}
	if !inf.ctrl.up {
		c.notef("no effect: %s is down", controller)
		return nil
	}
	arm(inf)
	c.notef("armed")
	return nil
}

// intercept is the server hook that delivers armed API errors.
func (c *Cluster) intercept(caller string, verb Verb, ref Ref) (error, bool) {
	ctl := c.controller(caller)
	if ctl == nil {
		return nil, false
	}
	// Failures armed for later are decided now, in place: the failures
	// they stand for, then the ones armed after them.
	for len(ctl.failures) > 0 && ctl.failures[0].later != nil {
		err, n, applied := ctl.failures[0].later()
		rest := ctl.failures[1:]
		var armed []armedFailure
		for range n {
			if err != nil {
				armed = append(armed, armedFailure{err: err, applied: applied})
			}
		}
		ctl.failures = append(armed, rest...)
	}
	if len(ctl.failures) == 0 {
		return nil, false
	}
	f := ctl.failures[0]
	ctl.failures = ctl.failures[1:]
	err := *f.err
	c.injected = injection{err: &err, applied: f.applied}
	if c.noting() {
		c.note(Note{Kind: NoteInjected, Call: &Call{Verb: verb, Object: ref, Reason: err.Reason, Injected: true, Applied: f.applied}})
	}
	return &err, f.applied
}

// running returns the named controller if it is up; nil, with a note,
// when it is down.
func (c *Cluster) running(controller string) (*controller, error) {
	ctl := c.controller(controller)
	if ctl == nil {
		return nil, fmt.Errorf("no controller %q", controller)
	}
	if !ctl.up {
		c.notef("no effect: already down")
		return nil, nil
	}
	return ctl, nil
}

// Rival is a writer outside the controllers that owns a field of one object
// with its own goal: whenever the field differs from Value, it writes Value
// back (an autoscaler against a GitOps sync, two operators owning one
// status). A transient rival stops when the cluster heals; a persistent one
// never does.
//
// A field has at most one rival: a rival started on a field another active
// rival owns takes it over, and the earlier one stops. Two rivals with
// different values on one field would fight each other with no controller
// involved, a fight of the harness's making (docs/design.md, section
// "Fault classes").
type Rival struct {
	Name       string
	Target     Ref
	Path       string // "spec.<path>" or "status.<path>"
	Value      any
	Persistent bool
}

type rivalState struct {
	Rival
	active bool
}

func (r *rivalState) enabled(s *Server) bool {
	if !r.active {
		return false
	}
	o := s.Peek(r.Target)
	return o != nil && !o.Deleting() && o.Field(r.Path) != r.Value
}

func (r *rivalState) act(c *Cluster) {
	c.begin(r.Name, "restore "+r.Path, r.Target.String())
	out := c.Outside(r.Name)
	o, err := out.Get(r.Target.Kind, r.Target.Namespace, r.Target.Name)
	if err != nil {
		c.notef("%v", err)
		return
	}
	_ = out.Set(o, r.Path, r.Value) // the path was checked at start; Outside notes a failed write
}
