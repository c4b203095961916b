package properties

import (
	"fmt"
	"runtime"
	"slices"
	"time"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
	"go.uber.org/zap"
)

// RunOptions configures one execution.
type RunOptions struct {
	// Logger receives every step at debug level; nil logs nothing.
	Logger *zap.Logger
	// DiscardTrace runs without keeping records; diagnoses are then
	// shorter.
	DiscardTrace bool
	// Timeout is how long the run may take before it is reported as a
	// hang: zero takes Scenario.RunTimeout, else DefaultRunTimeout; a
	// negative one sets no limit.
	Timeout time.Duration
	// Inputs are the transitions the scenario's state-transition actor
	// applies (see Scenario.Inputs), drawn by a property or read from a
	// finding; a scenario without inputs takes none.
	Inputs Transitions
	// Wrap, when set, runs the execution inside it, e.g. a testing/synctest
	// bubble; each call of Wrap must call its run exactly once. A run with
	// inputs calls Wrap twice, once for the history and once for its
	// reference run, so that each has a bubble of its own (docs/design.md, "The reference run sees
	// the same world"). A replay of a recorded run (Replay, Execute) of a
	// controller that reads the clock needs the bubble its search ran in to
	// read the same times (docs/design.md, "Campaigns in a test binary").
	Wrap func(run func())

	// refs is the reference-run memo of the differential oracle; nil
	// gives the run a memo of its own.
	refs *referenceMemo
	// inputSample, when set, makes the state-transition actor choose
	// each transition's spec among it as it moves, inputMoves times,
	// instead of applying Inputs (exploration: explorer.inputSample).
	inputSample Transitions
	inputMoves  int
	// stopLoops ends a run whose quiescence has entered a loop that
	// repeats, with the verdict the whole run would reach (loopStop): a
	// search's runs, whose minimal failing run is made again in full.
	stopLoops bool
}

// Outcome is the result of one execution: the failure, if any, and the
// cluster as the run left it, with its trace.
type Outcome struct {
	Failure  *Failure
	Cluster  *model.Cluster
	Schedule faults.Schedule
	// Inputs are the transitions the run was given (RunOptions.Inputs),
	// Transitions those its actor applied, in order.
	Inputs      Transitions
	Transitions []Transition
	// FaultSteps is the number of steps before quiescence began.
	FaultSteps int
	// FaultsFired counts the faults of the schedule that struck before
	// quiescence began; Healed says the run got that far.
	FaultsFired int
	Healed      bool
	// ConvergeTime is the virtual time from the last disturbance (a fault
	// healing, an outside write) to the fixed point (the controllers' last
	// write), for a run that converged; Converged says it did.
	ConvergeTime model.Time
	Converged    bool

	timers []*model.Timer
	// judgment is the differential oracle's judgment still to make, once
	// the history run is over (executeWith); nil when there is none.
	judgment *judgment
	// QuietFrom is the step at which quiescence began; zero when the run
	// failed before it.
	QuietFrom int
	// settledAt is the time of the controllers' (or the garbage
	// collector's) last write, controllerWrites how many writes the
	// controllers made: what a fault-free dry run measures for the
	// budget drawn from the run (shape.measure).
	settledAt        model.Time
	controllerWrites int
	// loopCut says the run was ended by RunOptions.stopLoops before its
	// verdict's own step: its trace is a prefix of the whole run's.
	loopCut bool
}

// execute is executeWith in the calling goroutine. Every choice is drawn
// inside g; once g is closed (the run took too long), the goroutine exits
// at its next choice or step.
func execute(sc Scenario, b *bounds, sched faults.Schedule, ch model.Chooser, opts RunOptions, g *gate) (*Outcome, error) {
	if b == nil {
		if err := sc.Validate(); err != nil {
			return nil, err
		}
	}
	c, in, err := start(sc, opts)
	if err != nil {
		return nil, err
	}
	if b == nil {
		read := sc.bounds(c)
		b = &read
	}
	r := &runner{sc: sc, c: c, ch: ch, b: *b, fights: newFightDetector(), gate: g, controllers: c.Controllers(), sources: c.Sources()}
	r.watch()
	if in != nil {
		r.inputs = in
		r.draws = draws{}
		in.watchAcceptance(c, sc.Inputs.Refused, r.controllers)
	}
	// A loop is told by the state: a component whose memory the state
	// leaves out (no Fingerprinter, or a monitor) could break it.
	if opts.stopLoops && sc.Monitors == nil && len(c.Unfingerprinted()) == 0 {
		r.loop = &loopStop{}
	}
	r.invariants = sc.Invariants
	if sc.Monitors != nil {
		r.invariants = append(slices.Clip(r.invariants), sc.Monitors(c)...)
	}
	out := &Outcome{Cluster: c, Schedule: sched, Inputs: opts.Inputs}
	out.Failure = r.run(sched)
	if in != nil {
		out.Transitions = in.done
		if out.Failure == nil && len(in.done) > 0 {
			// Judged by executeWith, after a reference run in a Wrap of
			// its own (historyDependent).
			out.judgment = r.historyDependent(in)
		}
		if out.Failure != nil {
			out.Failure.Inputs = inputLines(sc.Inputs.Target, opts.Inputs)
		}
	}
	out.FaultSteps = r.faultSteps
	out.settledAt, out.controllerWrites = r.settledAt, r.controllerWrites
	out.Healed = r.quietFrom > 0
	out.timers = r.faultTimers
	for _, t := range r.faultTimers {
		if t.Fired() {
			out.FaultsFired++
		}
	}
	if out.Failure == nil {
		out.Converged, out.ConvergeTime = true, r.convergeTime()
	}
	out.QuietFrom = r.quietFrom
	out.loopCut = r.loop != nil && r.loop.cut
	return out, nil
}

// Struck returns the faults of the schedule that struck, in time order.
func (o *Outcome) Struck() faults.Schedule {
	var out faults.Schedule
	for i, t := range o.Schedule.Sorted() {
		if i < len(o.timers) && o.timers[i].Fired() {
			out = append(out, t)
		}
	}
	return out
}

// build validates the scenario, then builds and starts a cluster of it.
func build(sc Scenario, opts RunOptions) (*model.Cluster, error) {
	if err := sc.Validate(); err != nil {
		return nil, err
	}
	c, _, err := start(sc, opts)
	return c, err
}

// start builds and starts a cluster of a valid scenario, with the
// state-transition actor of its inputs, if it declares any.
func start(sc Scenario, opts RunOptions) (*model.Cluster, *inputActor, error) {
	c, err := sc.Build(model.Config{Logger: opts.Logger, DiscardTrace: opts.DiscardTrace})
	if err != nil {
		return nil, nil, fmt.Errorf("scenario %q: build: %w", sc.Name, err)
	}
	if c == nil {
		return nil, nil, fmt.Errorf("scenario %q: Build returned no cluster", sc.Name)
	}
	in, err := addInputs(c, sc, opts.Inputs, opts.inputSample, opts.inputMoves)
	if err != nil {
		return nil, nil, err
	}
	if err := c.Start(); err != nil {
		return nil, nil, fmt.Errorf("scenario %q: start: %w", sc.Name, err)
	}
	return c, in, nil
}

type runner struct {
	sc         Scenario
	c          *model.Cluster
	ch         model.Chooser
	b          bounds
	sched      faults.Schedule
	invariants []Invariant
	fights     *fightDetector
	acts       []model.Action
	faultSteps int
	// quietFrom is the step at which quiescence began.
	quietFrom int
	// sources numbers what the fair scheduler round-robins over; last is
	// its position.
	sources model.Sources
	last    int
	// gate is where the run's choices are drawn (see Execute).
	gate *gate
	// controllers are the cluster's controllers, by name.
	controllers []string
	// faultTimers are the timers of the schedule's faults.
	faultTimers []*model.Timer
	// disturbedAt is the time of the last outside write; settledAt of the
	// last write by a controller or the garbage collector.
	disturbedAt, settledAt model.Time
	// controllerWrites counts the controllers' effective writes.
	controllerWrites int
	// healedAt is when quiescence began.
	healedAt model.Time
	// backlog is the number of events in flight when quiescence began,
	// which the step bound allows on top of maxSteps.
	backlog int
	// resyncFrom is the step from which resync ran again after the
	// prompt-convergence check held it; 0 when it was not held.
	resyncFrom int
	// draws records the world's choices of a run with inputs, for its
	// reference run (see draws); nil records nothing.
	draws draws
	// stepWrites counts the controllers' write calls in the current step
	// (StepWriteLimit).
	stepWrites int
	// loop, when set, ends a quiescence that repeats itself (loopStop).
	loop *loopStop
	// reference marks a reference run, whose fault phase has nothing to
	// choose: it passes over idle resyncs too (run).
	reference bool
	// inputs is the state-transition actor of a run given transitions;
	// nil when the scenario has no inputs.
	inputs *inputActor
	// repaired is the first reconcile of the fault phase that a resync
	// alone brought about and that wrote, after the key's reconcile before
	// it swallowed a failed write (model.Cluster.RepairedByResync), in a
	// run that checks promptness; nil when none was.
	repaired *resyncRepaired
}

// resyncRepaired is a reconcile of the fault phase that only a resync
// brought about (runner.repaired).
type resyncRepaired struct {
	controller, key string
	// step is the repairing reconcile's step; swallowed, the step of the
	// reconcile before it that swallowed a failed write.
	step, swallowed int
	at              model.Time
}

// applyLeftInputs applies the transitions the fault phase left when its
// time ran out (ended), each once the cluster has settled, at the time
// the phase ended: a run given transitions applies every one of them
// before quiescence. Until the end of the phase the search's choices
// decide when the actor moves, and a choice that fires the end-of-phase
// timer first cut the rest off: a third of the runs of cache-stale-tier
// given one transition applied none, and the drawn history was never
// tried (docs/design.md, "A benchmark of bug classes"). An exploration's
// actor chooses its specs as it moves, and its moves are the
// exploration's to bound; a fault phase cut by the step bound stays cut.
func (r *runner) applyLeftInputs(ended bool) *Failure {
	in := r.inputs
	if !ended || in == nil || in.sample != nil {
		return nil
	}
	for len(in.done) < len(in.specs) && r.faultSteps < r.b.faultSteps {
		if f := r.settle(r.b.faultSteps - r.faultSteps); f != nil {
			return f
		}
		a, ok := r.c.ActorAction(InputsActor)
		if !ok || r.faultSteps >= r.b.faultSteps {
			return nil
		}
		if f := r.step(a); f != nil {
			return f
		}
	}
	return nil
}

// countWrite is the intercept that counts the controllers' write calls
// within a step; past StepWriteLimit the run's goroutine ends itself,
// recorded in its gate as a stall (a Hang).
func (r *runner) countWrite(caller string, _ model.Verb, _ model.Ref) (error, bool) {
	if !slices.Contains(r.controllers, caller) {
		return nil, false
	}
	if r.stepWrites++; r.stepWrites > StepWriteLimit {
		buf := make([]byte, 1<<16)
		r.gate.stop(&stall{caller: caller, writes: r.stepWrites, stack: string(buf[:runtime.Stack(buf, false)])})
	}
	return nil, false
}

// watch installs the runner's hooks on its cluster.
func (r *runner) watch() {
	r.c.OnWrite(r.fights.observe)
	r.c.OnWrite(r.observeWrite)
	r.c.Server().AddIntercept(r.countWrite)
}

func (r *runner) run(sched faults.Schedule) *Failure {
	c := r.c
	r.sched = sched
	var ch model.Chooser = r.ch
	if r.draws != nil {
		ch = recordingChooser{inner: ch, d: r.draws}
	}
	if r.loop != nil {
		ch = countingChooser{inner: ch, n: &r.loop.draws}
	}
	c.SetChooser(gatedChooser{inner: ch, g: r.gate})
	if f := r.checkStep(); f != nil {
		return f
	}
	pending := sched.Inject(c)
	r.faultTimers = pending
	quiet := false
	c.At(r.b.budget.Horizon, "cluster", "end of fault phase", func() { quiet = true })

	for !quiet && r.faultSteps < r.b.faultSteps {
		if r.reference {
			// A reference run's fault phase has no fault, actor or
			// choice: only the cluster's own work and timers until the
			// history's quiet time, hours away after a long period.
			// Resyncs due more than a resync period after the last write
			// that would replay nothing new are passed over, as in a
			// quiet round (quietRounds).
			c.SkipIdleResyncs(max(r.settledAt, r.disturbedAt)+r.b.round, r.b.budget.Horizon)
		}
		r.acts = c.Enabled(r.acts[:0])
		if len(r.acts) == 0 {
			break
		}
		// Choice 0, when the cluster has work pending, lets it settle: the
		// fair scheduler runs until nothing but timers and actors is left.
		// Outside changes and faults then strike a quiet cluster, as they
		// mostly do in real ones, and shrunk traces read as a story.
		busy := c.Busy()
		n := len(r.acts)
		if busy {
			n++
		}
		i := r.chooseStep(n, busy)
		if busy {
			if i == 0 {
				if f := r.settle(r.b.faultSteps - r.faultSteps); f != nil {
					return f
				}
				continue
			}
			i--
		}
		if f := r.step(r.acts[i]); f != nil {
			return f
		}
	}

	if f := r.applyLeftInputs(quiet); f != nil {
		return f
	}

	// Quiescence: outside actors stop, faults that have not struck are
	// cancelled, everything healable heals.
	for _, t := range pending {
		t.Cancel()
	}
	c.StopActors()
	r.fights.active = true
	c.Faults().Heal()
	r.quietFrom = c.Steps()
	r.healedAt = c.Now()
	// Events the fault phase left in flight are owed work, one delivery
	// each, not a sign of a cluster that never settles: a fault phase of
	// FaultSteps steps can leave thousands (PCT, starving one informer
	// while a controller loops on what it has not seen yet, left over
	// 4,000 in deployment), and the step bound grows by them.
	r.backlog = c.InFlight()
	if f := r.checkStep(); f != nil {
		return f
	}
	return r.quiesce()
}

// quiesce drives the healed cluster to a fixed point: it settles all
// pending work, then runs quiet rounds (each one resync period of timers)
// until one round writes nothing. At that fixed point every goal must hold.
//
// After a schedule of faithful faults only, the first quiet rounds run
// with resync held: a correct controller reaches its goal by events,
// relists, retries and RequeueAfter, and needs no resync to get there
// (docs/design.md, section "Prompt convergence"). Resync then resumes for
// the rounds that prove the fixed point; a goal it alone brings about is a
// resync-dependent failure.
func (r *runner) quiesce() *Failure {
	c := r.c
	if f := r.settle(-1); f != nil {
		return f
	}
	var withoutResync []model.GoalUnmet
	if r.checksPromptness() {
		c.HoldResync(true)
		f := r.quietRounds()
		c.HoldResync(false)
		if f != nil {
			return f
		}
		withoutResync = c.Goals()
		r.resyncFrom = c.Steps()
	}
	if f := r.quietRounds(); f != nil {
		return f
	}
	if unmet := c.Goals(); len(unmet) > 0 {
		return r.goalUnmet(unmet)
	}
	if p := c.Panic(); p != nil {
		return r.panicked(p)
	}
	if len(withoutResync) > 0 {
		return r.resyncDependent(withoutResync)
	}
	if r.repaired != nil {
		return r.repairedByResync()
	}
	if within := r.sc.ConvergeWithin; within > 0 {
		if took := r.convergeTime(); took > within {
			return r.slowConvergence(took)
		}
	}
	return nil
}

// quietRounds runs quiet rounds until one writes nothing; too many rounds
// are a hot loop.
func (r *runner) quietRounds() *Failure {
	c := r.c
	var mark uint64
	if r.loop != nil {
		r.beginRounds()
	}
	for round := 1; ; round++ {
		writes := c.Writes()
		mark = c.Server().RejectionMark()
		// A round lasts a resync period, and longer if a requeue is
		// waiting: a queue with a delayed key is not empty. Past its
		// first resync period, resyncs that would replay what their
		// informers last replayed, with nothing written since, are passed
		// over on the way to the requeue (Cluster.SkipIdleResyncs): a
		// periodic controller always has a next run, and waiting for one
		// hours away must not cost a step per resync period
		// (docs/design.md, "Quiescence": waiting for a far requeue).
		first := c.Now() + r.b.round
		end := first
		if t, ok := c.RequeuesUntil(); ok && t > end {
			end = t
		}
		for t := r.nextTimer(first, end); t != nil && t.At <= end; t = r.nextTimer(first, end) {
			if f := r.step(model.Action{Kind: model.ActTimer}); f != nil {
				return f
			}
			if f := r.settle(-1); f != nil {
				return f
			}
		}
		if c.Writes() == writes {
			return r.stuckOnRejected(mark)
		}
		if round >= r.b.settleRounds || r.loop != nil && r.roundRepeats(round) {
			// A cut gives the summary the bound would (loopStop).
			return r.hotLoop(fmt.Sprintf("the cluster settles, yet it still writes after %d quiet rounds of %d ticks", r.b.settleRounds, r.b.round))
		}
	}
}

// nextTimer returns the cluster's next timer, once the resyncs due after
// time after that would replay nothing new are passed over, up to the
// end of the round (Cluster.SkipIdleResyncs): a resync held while the
// run checks for prompt convergence replays nothing, but the first
// round after the hold must find it within its first period.
func (r *runner) nextTimer(after, end model.Time) *model.Timer {
	r.c.SkipIdleResyncs(after, end)
	return r.c.NextTimer()
}

// settle runs every action the cluster owes (see model.ActionKind.Owed),
// fairly: round-robin over their sources (model.Sources). A non-negative limit
// bounds the steps it may take (the fault phase's budget). Once quiescence
// has begun, an informer with an event in flight delivers it before
// anything else runs: with no fault left, watch latency stays below a
// reconcile's, so a backlog the fault phase built up drains instead of
// lasting for ever at one event per round while each reconcile adds one
// (docs/design.md, "Quiescence").
func (r *runner) settle(limit int) *Failure {
	c := r.c
	quiet := r.loop != nil && r.quietFrom > 0 && limit < 0
	if quiet {
		r.loop.beginSettle()
	}
	for c.Busy() && limit != 0 {
		r.acts = c.Enabled(r.acts[:0])
		next := -1
		for i, a := range r.acts {
			if !a.Kind.Owed() {
				continue
			}
			if r.quietFrom > 0 && a.Kind.Watch() {
				next = i
				break
			}
			pos := r.sources.Of(a)
			if next < 0 {
				next = i
			}
			if pos > r.last {
				next = i
				break
			}
		}
		a := r.acts[next]
		r.last = r.sources.Of(a)
		if f := r.step(a); f != nil {
			return f
		}
		limit--
		if quiet && r.settleRepeats() {
			return r.noFixedPoint(fmt.Sprintf("no fixed point within %d steps", r.b.maxSteps+r.backlog))
		}
	}
	return nil
}

// step does one action and checks for a fight, the bounds and the
// invariants.
func (r *runner) step(a model.Action) *Failure {
	r.gate.begin(r.c.Steps()+1, r.c.Now())
	r.stepWrites = 0
	r.c.Do(a)
	if r.quietFrom == 0 {
		r.faultSteps++
		r.noteRepair(a)
	}
	if f := r.fights.found; f != nil {
		return r.fought(f)
	}
	if a.Kind == model.ActReconcile && r.sc.CheckIdempotence {
		if f := r.probeIdempotence(); f != nil {
			return f
		}
	}
	if limit := r.b.maxSteps + r.backlog; r.c.Steps() >= limit {
		return r.noFixedPoint(fmt.Sprintf("no fixed point within %d steps", limit))
	}
	return r.checkStep()
}

// checkStep checks for a panic in user code, a cache mutation, a lost
// update and every invariant.
func (r *runner) checkStep() *Failure {
	if p := r.c.Panic(); p != nil {
		return r.panicked(p)
	}
	if m := r.c.CacheMutation(); m != nil {
		return r.cacheMutated(m)
	}
	if l := r.c.LostUpdate(); l != nil {
		return r.updateLost(l)
	}
	st := r.c.State()
	for _, inv := range r.invariants {
		var err error
		func() {
			defer func() {
				if v := recover(); v != nil {
					err = fmt.Errorf("invariant panicked: %v", v)
				}
			}()
			err = inv.Check(st)
		}()
		if err != nil {
			return r.invariantBroken(inv, err)
		}
	}
	return nil
}

// probeIdempotence follows a reconcile that wrote with a second reconcile
// of the same key, with nothing in between: it must write nothing. A
// controller whose writes its own stale cache does not yet reflect — a
// create without expectations, an unconditional update — writes again.
func (r *runner) probeIdempotence() *Failure {
	controller, key, writes, ok := r.c.LastReconciled()
	if !ok || writes == 0 {
		return nil
	}
	recs := r.c.Trace().Records
	var first model.Record
	if len(recs) > 0 {
		first = recs[len(recs)-1]
	}
	r.stepWrites = 0
	if err := r.c.Reconcile(controller, key); err != nil {
		return nil // the first reconcile crashed it
	}
	if _, _, again, _ := r.c.LastReconciled(); again > 0 {
		recs = r.c.Trace().Records
		return r.notIdempotent(controller, key, &first, &recs[len(recs)-1])
	}
	return r.checkStep()
}
