package properties

import (
	"bytes"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing/synctest"
	"time"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
)

// DefaultRunTimeout is how long one run may take before it is reported as
// a hang, when neither RunOptions.Timeout nor Scenario.RunTimeout says
// otherwise. Runs of the built-in scenarios take milliseconds; a run past
// this limit is stuck in user code (an endless loop, a block on a channel).
const DefaultRunTimeout = 10 * time.Second

// StepWriteLimit is how many writes the controllers may make within one
// model step (one reconcile, one event handler call). A run past it ends
// as a Hang with its seed: a reconcile that writes in a loop never
// returns, and inside a testing/synctest bubble, where the time limit
// does not apply, it would hang the process (docs/design.md, "Limits
// that keep inputs honest"). Every write call counts, refused or not.
const StepWriteLimit = 10_000

// Stack trimming: a hang or a leak report keeps at most this many lines of
// each goroutine's stack, and at most this many leaked goroutines.
const (
	stackLines    = 24
	leakedReports = 3
)

// leakGrace is how long a run's goroutines may take to finish after it
// returns before they count as leaked: goroutines a reconcile starts and
// waits for end at once, but one that has just been told to stop may need
// a moment to get scheduled.
const leakGrace = 100 * time.Millisecond

// afterHang is the time limit of the runs of a property after one of them
// hung: rapid re-runs and shrinks the hang, and each candidate that hangs
// again costs its whole limit and leaves a goroutine behind, while one
// that does not hang takes milliseconds. A tenth of the limit keeps
// shrinking a hang within seconds.
func afterHang(limit time.Duration) time.Duration {
	if limit <= 0 {
		return limit
	}
	return min(limit, max(limit/10, 100*time.Millisecond))
}

// timeout returns the run's time limit, or 0 for none.
func (o RunOptions) timeout(sc Scenario) time.Duration {
	t := o.Timeout
	if t == 0 {
		t = sc.RunTimeout
	}
	if t == 0 {
		t = DefaultRunTimeout
	}
	return max(t, 0)
}

// Execute runs the scenario once: it builds a cluster, injects the schedule,
// lets ch choose every step of the fault phase, then heals everything and
// judges quiescence with a fair, deterministic scheduler. An error means the
// scenario itself is broken (it does not build or start).
//
// The run has a goroutine of its own. One that outlasts its time limit is
// a hang: Execute returns a Hang failure holding the stuck goroutine's
// stack, taken without stopping the process. Go cannot kill a goroutine,
// so the hung one stays behind; if it ever returns from user code it
// exits at its next step. Goroutines the run started and left running
// are a GoroutineLeak failure.
func Execute(sc Scenario, sched faults.Schedule, ch model.Chooser, opts RunOptions) (*Outcome, error) {
	return executeWith(sc, nil, sched, ch, opts)
}

// executeWith is Execute with the scenario's bounds, when b is not nil:
// the scenario is then prepared (see Prepare), valid, and its bounds are
// not read again.
//
// A run with inputs is judged in two parts (docs/design.md, "The
// reference run sees the same world": a bubble of its own): the history
// run inside opts.Wrap, then, when the differential oracle needs one, the
// reference run inside a separate call of opts.Wrap, each in a goroutine
// of its own with the time limit; the two states are compared outside
// both. Under the controllerruntime adapter each part then has a
// testing/synctest bubble of its own, and the reference run's clock starts
// where a fresh cluster's does.
func executeWith(sc Scenario, b *bounds, sched faults.Schedule, ch model.Chooser, opts RunOptions) (*Outcome, error) {
	var h guardedRun
	if err := within(opts.Wrap, func() {
		h = guard(sc, opts, func(g *gate) (*Outcome, error) { return execute(sc, b, sched, ch, opts, g) })
	}); err != nil {
		return nil, err
	}
	out, err := h.outcome(sc, sched, opts, "")
	if err != nil || out.judgment == nil {
		return out, err
	}
	j := out.judgment
	out.judgment = nil
	memo := opts.refs
	if memo == nil {
		memo = newReferenceMemo()
	}
	ref, f, err := referenceRun(sc, j, j.q, memo, opts, referencePrefix)
	if err != nil {
		return nil, err
	}
	if f != nil {
		// The reference run hung, stalled or leaked: the run's verdict
		// is that, with the history's inputs.
		f.Inputs = inputLines(sc.Inputs.Target, opts.Inputs)
		out.Failure = f
		out.Converged, out.ConvergeTime = false, 0
		return out, nil
	}
	out.Failure = j.judge(ref, j.q)
	if out.Failure != nil && out.Failure.Verdict == HistoryDependent && j.judgedAt > j.q.quiet {
		// A time-driven controller's state at Q may differ by time alone:
		// a fresh cluster given the final spec makes its first periodic
		// run later than the history's first one, made under an earlier
		// spec. The reference is driven as long as the history ran, to the
		// time it was judged, and the difference stands only if that
		// reference differs too (docs/design.md, "The reference run sees
		// the same world": as long as the history ran).
		later := j.q
		later.quiet = j.judgedAt
		atQ := out.Failure
		ref, f, err := referenceRun(sc, j, later, memo, opts, drivenPrefix(later.quiet))
		if err != nil {
			return nil, err
		}
		// A driven reference that fails has no fixed point to compare
		// with, and its failure is the run's verdict, as the first
		// reference run's is: the final spec alone fails in a fresh
		// cluster given the time (the cronjob example's hot loop at
		// successfulJobsHistoryLimit 0 once its first run is due).
		earlier := fmt.Sprintf("at t=%d, where the history's fault phase ended, a fresh cluster given the final spec differed from the history (%s: %s)", j.q.quiet, plural(len(atQ.Details), "difference"), strings.Join(atQ.Details, "; "))
		switch {
		case f != nil:
			f.Diagnosis = append(f.Diagnosis, earlier)
			f.Inputs = inputLines(sc.Inputs.Target, opts.Inputs)
			out.Failure = f
			out.Converged, out.ConvergeTime = false, 0
			return out, nil
		case ref.failure != nil:
			out.Failure = j.judge(ref, later)
			if out.Failure != nil {
				out.Failure.Diagnosis = append(out.Failure.Diagnosis, earlier)
			}
		case j.judge(ref, later) == nil:
			out.Failure = nil
		default:
			out.Failure.Diagnosis = append(out.Failure.Diagnosis, fmt.Sprintf("a fresh cluster driven to t=%d, the time the history was judged, differs too", later.quiet))
		}
	}
	if out.Failure != nil {
		out.Failure.Inputs = inputLines(sc.Inputs.Target, opts.Inputs)
		out.Converged, out.ConvergeTime = false, 0
	}
	return out, nil
}

// referenceRun returns the reference run q calls for, from memo or made
// inside a separate call of opts.Wrap (see executeWith), and stores a new
// one in memo. A reference run that hangs, stalls or leaks returns that
// failure, its summary starting with prefix (referencePrefix, or
// drivenPrefix for the reference driven as long as the history ran).
func referenceRun(sc Scenario, j *judgment, q referenceFor, memo *referenceMemo, opts RunOptions, prefix string) (reference, *Failure, error) {
	if ref, ok := memo.find(q); ok {
		return ref, nil, nil
	}
	var rr guardedRun
	var got reference
	if err := within(opts.Wrap, func() {
		rr = guard(sc, opts, func(g *gate) (*Outcome, error) {
			var c *model.Cluster
			var err error
			got, c, err = runReference(sc, j.r.b, q, g)
			return &Outcome{Cluster: c}, err
		})
	}); err != nil {
		return reference{}, nil, err
	}
	refOut, err := rr.outcome(sc, nil, opts, prefix)
	if err != nil {
		return reference{}, nil, err
	}
	if refOut.Failure != nil {
		return reference{}, refOut.Failure, nil
	}
	memo.store(q.key(), got)
	return got, nil, nil
}

// referencePrefix starts the summary of a reference run's hang, stall
// or leak; drivenPrefix, of the reference run driven as long as the
// history ran.
const referencePrefix = "in the reference run (a fresh cluster given the final spec): "

func drivenPrefix(t model.Time) string {
	return fmt.Sprintf("in the reference run driven to t=%d, the time the history was judged (a fresh cluster given the final spec): ", t)
}

// within runs run inside wrap (RunOptions.Wrap) when it is set, else
// directly; a wrap that does not call run exactly once is an error, not a
// run that silently passed (or ran twice).
func within(wrap func(run func()), run func()) error {
	if wrap == nil {
		run()
		return nil
	}
	calls := 0
	wrap(func() {
		calls++
		if calls == 1 {
			run()
		}
	})
	if calls != 1 {
		return fmt.Errorf("the run's Wrap (RunOptions) called it %d times, want exactly once", calls)
	}
	return nil
}

// guardedRun is what guard saw of one part of a run: its result, or that
// it ran out of time, or that it stalled.
type guardedRun struct {
	out     *Outcome
	err     error
	runID   string
	g       *gate
	expired bool
}

// guard runs body in a goroutine of its own, with the run's time limit
// outside a testing/synctest bubble (see Execute), and checks the
// goroutines body left behind. A panic outside user code is raised again
// in the caller's goroutine.
func guard(sc Scenario, opts RunOptions, body func(g *gate) (*Outcome, error)) guardedRun {
	type result struct {
		out   *Outcome
		err   error
		panic any
	}
	done := make(chan result, 1)
	g := &gate{}
	run := func() {
		var res result
		defer func() {
			// Goroutines the run started get to run before it is judged,
			// as they did when its goroutine exited with it: one that
			// panics ends the process before the run's verdict is out.
			runtime.Gosched()
			done <- res
		}()
		defer func() {
			// A panic outside user code (rapid ending a draw, say)
			// belongs to the caller's goroutine.
			if v := recover(); v != nil {
				res.panic = v
			}
		}()
		res.out, res.err = body(g)
	}
	// Inside a bubble the run's goroutine must be the bubble's, so it is
	// started for the run; outside, a runner goroutine left from an
	// earlier run takes it.
	bubbled := inBubble()
	var r *runnerGoroutine
	var runID string
	var before int
	if bubbled {
		before = runtime.NumGoroutine()
		id := make(chan string, 1)
		go func() {
			id <- goroutineID()
			run()
		}()
		runID = <-id
	} else {
		r = takeRunner()
		runID = r.id
		before = runtime.NumGoroutine()
		r.runs <- run
	}
	var expired <-chan time.Time
	if limit := opts.timeout(sc); limit > 0 && !bubbled {
		timer := time.NewTimer(limit)
		defer timer.Stop()
		expired = timer.C
	}
	select {
	case res := <-done:
		if res.panic != nil {
			if r != nil {
				r.release()
			}
			panic(res.panic)
		}
		if g.stalled != nil {
			// The run's goroutine ended itself (runtime.Goexit): a
			// runner does not serve again.
			if r != nil {
				r.abandon()
			}
			return guardedRun{runID: runID, g: g}
		}
		// Counting is cheap; reading every stack is done only when the
		// count says a goroutine may have been left behind.
		if res.err == nil && res.out.Failure == nil && runtime.NumGoroutine() > before {
			res.out.Failure = leaked(runID, res.out.Cluster)
		}
		// A runner whose run left goroutines behind is not taken again:
		// they are its descendants, and would count as the next run's.
		if r != nil {
			if res.out != nil && res.out.Failure != nil && res.out.Failure.Verdict == GoroutineLeak {
				r.abandon()
			} else {
				r.release()
			}
		}
		return guardedRun{out: res.out, err: res.err, runID: runID, g: g}
	case <-expired:
		// The hung runner is not taken again: it is stuck in user code.
		if r != nil {
			r.abandon()
		}
		g.close()
		return guardedRun{runID: runID, g: g, expired: true}
	}
}

// outcome is the outcome of a guarded part: its own, or a Hang when it
// ran out of time or stalled (StepWriteLimit). prefix starts the summary
// of a failure of the part (the reference run's).
func (h guardedRun) outcome(sc Scenario, sched faults.Schedule, opts RunOptions, prefix string) (*Outcome, error) {
	var out *Outcome
	switch {
	case h.expired:
		out = hung(sched, h.runID, opts.timeout(sc))
	case h.g.stalled != nil:
		out = stalled(sched, h.g.stalled)
	default:
		if h.err == nil && h.out.Failure != nil && prefix != "" {
			h.out.Failure.Summary = prefix + h.out.Failure.Summary
		}
		return h.out, h.err
	}
	out.Failure.Summary = prefix + out.Failure.Summary
	out.Inputs = opts.Inputs
	if sc.Inputs != nil {
		out.Failure.Inputs = inputLines(sc.Inputs.Target, opts.Inputs)
	}
	out.Failure.Step, out.Failure.At = h.g.step, h.g.at
	return out, nil
}

// runnerGoroutine is a goroutine that runs executions one after another,
// kept between them. A run gets a goroutine of its own so that a hang can
// be given up on and a leak traced to it (its descendants); keeping it
// spares starting one, and growing its stack again, at every run. And
// the count of goroutines a run is judged by for leaks then moves only
// with goroutines user code started, even while other runs start and end
// in other goroutines (an exploration's workers, ExploreOptions.Workers).
// An idle runner ends once no run has been going for idleRunnerLife, so
// that a program or test suite done with runs is left with no goroutine
// of ours (a leak checker at its end finds none).
type runnerGoroutine struct {
	id   string
	runs chan func()
	// abandoned says its last run left goroutines behind: it ends.
	abandoned bool
}

// idleRunnerLife is how long an idle runner waits for a run while no run
// is going anywhere, before it ends.
const idleRunnerLife = 50 * time.Millisecond

// runners are the runner goroutines waiting for a run, and the number
// of runs going.
var runners struct {
	sync.Mutex
	idle  []*runnerGoroutine
	going int
}

// takeRunner returns an idle runner goroutine, or starts one.
func takeRunner() *runnerGoroutine {
	runners.Lock()
	runners.going++
	if n := len(runners.idle); n > 0 {
		r := runners.idle[n-1]
		runners.idle = runners.idle[:n-1]
		runners.Unlock()
		return r
	}
	runners.Unlock()
	r := &runnerGoroutine{runs: make(chan func())}
	id := make(chan string, 1)
	go func() {
		id <- goroutineID()
		r.serve()
	}()
	r.id = <-id
	return r
}

// serve runs what it is handed until it retires.
func (r *runnerGoroutine) serve() {
	idle := time.NewTimer(idleRunnerLife)
	defer idle.Stop()
	for {
		select {
		case run := <-r.runs:
			run()
		case <-idle.C:
			if r.retire() {
				return
			}
		}
		idle.Reset(idleRunnerLife)
	}
}

// retire reports whether r ends: once no run is going (a goroutine ending
// during a run would move the count the run is judged by), when it was
// abandoned or is idle, which it then no longer is.
func (r *runnerGoroutine) retire() bool {
	runners.Lock()
	defer runners.Unlock()
	if runners.going > 0 {
		return false
	}
	if r.abandoned {
		return true
	}
	i := slices.Index(runners.idle, r)
	if i < 0 {
		return false
	}
	runners.idle = slices.Delete(runners.idle, i, i+1)
	return true
}

// release makes r idle again.
func (r *runnerGoroutine) release() {
	runners.Lock()
	runners.idle = append(runners.idle, r)
	runners.going--
	runners.Unlock()
}

// abandon ends r's run without making it idle: it is stuck in user code,
// or left goroutines behind, and it ends when it can.
func (r *runnerGoroutine) abandon() {
	runners.Lock()
	r.abandoned = true
	runners.going--
	runners.Unlock()
}

// inBubble reports whether the caller runs inside a testing/synctest
// bubble (synctest.Wait panics outside one). There the clock is virtual
// and advances exactly when every goroutine of the bubble waits, so a
// time limit would fire on a reconciler's first long wait (the
// controllerruntime module's virtual clock sleeps to the model's time):
// inside a bubble runs have no time limit, and a reconcile that blocks
// for good ends as synctest's deadlock panic instead of a Hang.
func inBubble() (in bool) {
	defer func() {
		if recover() != nil {
			in = false
		}
	}()
	synctest.Wait()
	return true
}

// gate hands a run's choices over from its goroutine to the caller's. The
// run's goroutine draws every choice (from rapid, say) inside the gate;
// the caller closes the gate when it gives up on the run, and from then
// on sees every choice drawn so far (the lock orders them before), while
// the run's goroutine exits at its next choice or step instead of
// drawing more.
type gate struct {
	mu     sync.Mutex
	closed atomic.Bool
	// step and at are the step the run is doing and its time, for the
	// report of a hang.
	step int
	at   model.Time
	// stalled is set when the run ended itself for making more than
	// StepWriteLimit writes within one step.
	stalled *stall
}

// enter is called by the run before a choice; it does not return once the
// gate is closed.
func (g *gate) enter() {
	g.mu.Lock()
	if g.closed.Load() {
		g.mu.Unlock()
		runtime.Goexit()
	}
}

func (g *gate) leave() { g.mu.Unlock() }

// close gives up on the run.
func (g *gate) close() {
	g.mu.Lock()
	g.closed.Store(true)
	g.mu.Unlock()
}

// begin is called by the run before each step; it does not return once
// the gate is closed.
func (g *gate) begin(step int, at model.Time) {
	g.enter()
	g.step, g.at = step, at
	g.leave()
}

// stop records why the run's goroutine ends itself, then ends it
// (runtime.Goexit: user code cannot recover it, as it could a panic).
func (g *gate) stop(s *stall) {
	g.mu.Lock()
	g.stalled = s
	g.mu.Unlock()
	runtime.Goexit()
}

// gatedChooser draws every choice of the model inside the gate.
type gatedChooser struct {
	inner model.Chooser
	g     *gate
}

func (c gatedChooser) Choose(n int, label string) int {
	c.g.enter()
	defer c.g.leave()
	return c.inner.Choose(n, label)
}

// hung is the outcome of a run abandoned after limit: a Hang failure with
// the stack of the run's goroutine. The run's own cluster still belongs to
// that goroutine, so the outcome carries an empty one.
func hung(sched faults.Schedule, runID string, limit time.Duration) *Outcome {
	f := &Failure{
		Property: "terminates",
		Verdict:  Hang,
		Summary:  fmt.Sprintf("the run did not finish within %v; its goroutine is stuck here", limit),
	}
	stacks := goroutines()
	if st, ok := stacks[runID]; ok {
		f.Details = trimStack(st.stack)
	} else {
		f.Details = []string{"(the run's goroutine ended just as its time ran out)"}
	}
	f.Diagnosis = []string{"Go cannot stop a goroutine: this one stays behind in this process (a fuzzrun campaign kills its worker instead)"}
	return &Outcome{Failure: f, Cluster: model.NewCluster(model.Config{DiscardTrace: true}), Schedule: sched}
}

// stall is a step that made more than StepWriteLimit writes: who made
// the last one, and the stack that made it.
type stall struct {
	caller string
	writes int
	stack  string
}

// stalled is the outcome of a run that ended itself in a step that
// wrote without end: a Hang failure with the stack of the last write.
// The run's cluster was left inside that step, so the outcome carries an
// empty one.
func stalled(sched faults.Schedule, s *stall) *Outcome {
	f := &Failure{
		Property: "terminates",
		Verdict:  Hang,
		Summary:  fmt.Sprintf("%s made more than %d writes within one step without returning (the run's controllers made %d in it); the last one was made here", s.caller, StepWriteLimit, s.writes),
		Details:  trimStack(s.stack),
		Diagnosis: []string{
			"a reconcile that writes in a loop never ends its step, and inside a testing/synctest bubble virtual time does not move while it loops, so no time limit would catch it (properties.StepWriteLimit)",
		},
	}
	return &Outcome{Failure: f, Cluster: model.NewCluster(model.Config{DiscardTrace: true}), Schedule: sched}
}

// leaked returns a GoroutineLeak failure if goroutines the run's goroutine
// started (or theirs) are still running after it, allowing them leakGrace
// to finish.
func leaked(runID string, c *model.Cluster) *Failure {
	var found []goroutine
	for wait := time.Millisecond; ; wait *= 2 {
		found = descendants(goroutines(), runID)
		if len(found) == 0 || wait > leakGrace {
			break
		}
		time.Sleep(wait)
	}
	if len(found) == 0 {
		return nil
	}
	f := &Failure{
		Property: "no goroutine leak",
		Verdict:  GoroutineLeak,
		Summary:  fmt.Sprintf("%d goroutines started during the run are still running after it", len(found)),
		Step:     c.Steps(),
		At:       c.Now(),
	}
	for i, g := range found {
		if i == leakedReports {
			f.Details = append(f.Details, fmt.Sprintf("… and %d more", len(found)-leakedReports))
			break
		}
		f.Details = append(f.Details, trimStack(g.stack)...)
	}
	f.Diagnosis = []string{"a reconcile must not leave goroutines behind: each one outlives the run, and a real controller's would pile up with every reconcile"}
	return f
}

// goroutine is one goroutine of a stack dump.
type goroutine struct {
	id, parent string
	stack      string
}

// goroutines dumps every goroutine's stack, by ID.
func goroutines() map[string]goroutine {
	buf := make([]byte, 1<<16)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	out := map[string]goroutine{}
	for _, block := range bytes.Split(buf, []byte("\n\n")) {
		text := string(block)
		header, _, _ := strings.Cut(text, "\n")
		fields := strings.Fields(header)
		if len(fields) < 2 || fields[0] != "goroutine" {
			continue
		}
		g := goroutine{id: fields[1], stack: text}
		if i := strings.LastIndex(text, " in goroutine "); i >= 0 {
			g.parent, _, _ = strings.Cut(text[i+len(" in goroutine "):], "\n")
		}
		out[g.id] = g
	}
	return out
}

// descendants returns the goroutines that root started, directly or not,
// in ID order.
func descendants(all map[string]goroutine, root string) []goroutine {
	var out []goroutine
	for _, g := range all {
		for p, hops := g.parent, 0; p != "" && hops < len(all); hops++ {
			if p == root {
				out = append(out, g)
				break
			}
			p = all[p].parent
		}
	}
	num := func(g goroutine) int { n, _ := strconv.Atoi(g.id); return n }
	slices.SortFunc(out, func(a, b goroutine) int { return num(a) - num(b) })
	return out
}

// trimStack keeps a stack's header and its first frames, without the
// harness's own frames below user code.
func trimStack(stack string) []string {
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(stack), "\n") {
		if strings.Contains(line, "converge/properties.execute(") {
			break
		}
		if len(out) == stackLines {
			out = append(out, "…")
			break
		}
		out = append(out, strings.TrimSpace(line))
	}
	return out
}

// goroutineID returns the calling goroutine's ID as the runtime prints it
// in stack dumps.
func goroutineID() string {
	var buf [64]byte
	fields := strings.Fields(string(buf[:runtime.Stack(buf[:], false)]))
	if len(fields) < 2 {
		return ""
	}
	return fields[1]
}
