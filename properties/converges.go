package properties

import (
	"fmt"
	"math/bits"
	"strings"
	"time"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
	"go.uber.org/zap"
	"pgregory.net/rapid"
)

// Converges returns the convergence property of the scenario under a fault
// mix (an empty mix injects no faults), for rapid.Check or rapid.MakeFuzz: draw a fault schedule, run it with
// every interleaving choice drawn from rapid, heal, and require a fixed
// point where every goal holds, with every invariant holding after every
// step and no panic in user code. A failure reports the violated property,
// the fault schedule, a diagnosis and (in the test log) the trace; rapid
// shrinks it and prints the seed that replays it.
func Converges(sc Scenario, mix faults.Mix) func(*rapid.T) {
	return property(sc, mix, propConfig{})
}

// ConvergesWith is Converges with the interleaving of the fault phase
// chosen by strategy s.
func ConvergesWith(sc Scenario, mix faults.Mix, s Strategy) func(*rapid.T) {
	return property(sc, mix, propConfig{strategy: s})
}

type propConfig struct {
	logger   *zap.Logger
	strategy Strategy
	// observe sees every execution with the choices it drew.
	observe func(out *Outcome, choices []int)
	// timeout is RunOptions.Timeout of every run.
	timeout time.Duration
	// noMemo makes every run, even one that repeats a run already made.
	noMemo bool
	// wrap is RunOptions.Wrap of every run (SearchOptions.Wrap, as
	// runWrap makes it).
	wrap func(run func())
	// memoAnswered, if set, is called for every failing run the memo
	// answers without making it.
	memoAnswered func()
	// stopLoops is RunOptions.stopLoops of every run.
	stopLoops bool
}

// Plan is what a property needs to draw schedules for a scenario: its
// topology and bounds, read from one built cluster.
type Plan struct {
	Topology faults.Topology
	Budget   faults.Budget
}

// PlanFor builds the scenario once and checks that the mix can be drawn for
// it. An empty mix is the control group: no faults at all. Its budget has
// the fixed defaults: it makes no dry run, and runs no code of the
// scenario's controllers. Prepare's plan scales them to the scenario's
// fault-free run, and only ever widens them (docs/design.md, "Faults",
// "Counts and durations from the run"): a schedule that fits PlanFor's
// plan fits Prepare's.
func PlanFor(sc Scenario, mix faults.Mix) (Plan, error) {
	p, err := prepareStatic(sc, mix)
	if err != nil {
		return Plan{}, err
	}
	return p.Plan(), nil
}

func property(sc Scenario, mix faults.Mix, cfg propConfig) func(*rapid.T) {
	p, err := prepare(sc, mix, cfg.wrap)
	if err != nil {
		return func(t *rapid.T) { failScenario(t, "invalid scenario or fault mix: "+err.Error()) }
	}
	return p.property(cfg)
}

// property is the convergence property of the prepared scenario: every
// run, and every shrink step, starts from what Prepare read.
func (p *Prepared) property(cfg propConfig) func(*rapid.T) {
	newChooser, err := p.shape.chooserFor(cfg.strategy)
	if err != nil {
		return func(t *rapid.T) { failScenario(t, "invalid strategy: "+err.Error()) }
	}
	sc := p.shape.sc
	hung := false
	var made *runMemo // from the first failure on, while rapid shrinks
	return func(t *rapid.T) {
		var inputs Transitions
		if p.shape.inputs != nil {
			inputs = p.shape.inputs.Draw(t, "inputs")
		}
		var sched faults.Schedule
		if p.gen != nil {
			sched = p.gen.Draw(t, "faults")
		}
		ch := &rapidChooser{t: t, keep: made != nil}
		chooser := newChooser(t, ch)
		var key string
		var failed *failedRun
		if ch.keep {
			var err error
			// A schedule or inputs that cannot be written down are
			// run every time.
			if key, err = prefixKey(inputs, sched, chooser); err != nil {
				ch.keep = false
			} else if end := made.walk(key, ch); end != nil {
				if end.failed == nil {
					return // a run already made, which passed
				}
				// A run already made, which failed: it fails again as
				// it did, from the same line, since rapid tells
				// failures apart by their traceback (docs/design.md,
				// "Shrinking without re-running").
				failed = end.failed
				if cfg.memoAnswered != nil {
					cfg.memoAnswered()
				}
				if cfg.observe != nil {
					cfg.observe(failed.out, failed.choices)
				}
			}
		}
		if failed == nil {
			opts := RunOptions{Logger: cfg.logger, Timeout: cfg.timeout, Inputs: inputs, Wrap: cfg.wrap, refs: p.shape.refs, stopLoops: cfg.stopLoops}
			if hung {
				opts.Timeout = afterHang(opts.timeout(sc))
			}
			finished := false
			if ch.keep {
				defer func() {
					// rapid ended the run at a draw: the proposal ran
					// short of input (recordOverrun). A panic of any
					// other kind goes on as it is: nothing recovers it.
					if !finished && ch.drawing {
						made.recordOverrun(key, ch, ch.asked)
					}
				}()
			}
			out, err := p.execute(sched, chooser, opts)
			finished = true
			if err != nil {
				failScenario(t, err.Error())
			}
			if ch.nondeterministic != "" {
				failScenario(t, ch.nondeterministic)
			}
			if out.Failure != nil && out.Failure.Verdict == Hang {
				hung = true
			}
			if cfg.observe != nil {
				cfg.observe(out, ch.log)
			}
			if out.Failure == nil {
				if ch.keep {
					made.record(key, ch, nil)
				}
				return
			}
			failed = &failedRun{out: out, sched: sched, choices: append([]int(nil), ch.log...)}
			if ch.keep {
				made.record(key, ch, failed)
			}
			if made == nil && !cfg.noMemo {
				made = &runMemo{}
			}
		}
		t.Logf("trace of the failing run:\n%v", lazyTrace{failed.out.Cluster.Trace()})
		fail(t, failed.out.Failure, failed.sched)
	}
}

// fail reports f through its verdict's own failure site. rapid accepts a
// shrunk case only if it fails at the same site, so a goal-unmet failure
// never shrinks into, say, an invariant failure (trap 5 in docs/design.md).
func fail(t *rapid.T, f *Failure, sched faults.Schedule) {
	msg := f.Report(sched)
	switch f.Verdict {
	case GoalUnmet:
		failGoalUnmet(t, msg)
	case NoFixedPoint:
		failNoFixedPoint(t, msg)
	case InvariantBroken:
		failInvariant(t, msg)
	case Fight:
		failFight(t, msg)
	case HotLoop:
		failHotLoop(t, msg)
	case NotIdempotent:
		failNotIdempotent(t, msg)
	case CacheMutation:
		failCacheMutation(t, msg)
	case LostUpdate:
		failLostUpdate(t, msg)
	case Hang:
		failHang(t, msg)
	case GoroutineLeak:
		failGoroutineLeak(t, msg)
	case ResyncDependent:
		failResyncDependent(t, msg)
	case SlowConvergence:
		failSlowConvergence(t, msg)
	case RejectedWrites:
		failRejectedWrites(t, msg)
	case HistoryDependent:
		failHistoryDependent(t, msg)
	default:
		failPanic(t, msg)
	}
}

func failGoalUnmet(t *rapid.T, msg string)        { t.Fatal(msg) }
func failNoFixedPoint(t *rapid.T, msg string)     { t.Fatal(msg) }
func failInvariant(t *rapid.T, msg string)        { t.Fatal(msg) }
func failPanic(t *rapid.T, msg string)            { t.Fatal(msg) }
func failFight(t *rapid.T, msg string)            { t.Fatal(msg) }
func failHotLoop(t *rapid.T, msg string)          { t.Fatal(msg) }
func failNotIdempotent(t *rapid.T, msg string)    { t.Fatal(msg) }
func failCacheMutation(t *rapid.T, msg string)    { t.Fatal(msg) }
func failLostUpdate(t *rapid.T, msg string)       { t.Fatal(msg) }
func failScenario(t *rapid.T, msg string)         { t.Fatal(msg) }
func failHang(t *rapid.T, msg string)             { t.Fatal(msg) }
func failGoroutineLeak(t *rapid.T, msg string)    { t.Fatal(msg) }
func failResyncDependent(t *rapid.T, msg string)  { t.Fatal(msg) }
func failSlowConvergence(t *rapid.T, msg string)  { t.Fatal(msg) }
func failHistoryDependent(t *rapid.T, msg string) { t.Fatal(msg) }

// lazyTrace renders a trace only if rapid actually logs it (the final,
// minimal run), so searching costs no formatting.
type lazyTrace struct{ t *model.Trace }

func (l lazyTrace) String() string {
	var b strings.Builder
	_ = l.t.WriteText(&b)
	return b.String()
}

// rapidChooser draws every choice from rapid and records it, so that the
// choices of a failing run can be saved and replayed without rapid.
type rapidChooser struct {
	t   *rapid.T
	log []int
	// keep says the memo of passing runs is on: the run's draws are
	// recorded in draws. The memo's walk draws the first ahead of them
	// before the run starts; taken counts the choices the run has had.
	keep         bool
	draws        []draw
	ahead, taken int
	// nondeterministic says how the run left the draws made ahead of it.
	nondeterministic string
	// drawing says a draw from rapid, of asked, is under way: if the run
	// ends with it still set, rapid ended it there (its input ran out).
	drawing bool
	asked   draw
}

func (ch *rapidChooser) Choose(n int, label string) int {
	var v int
	if ch.taken < ch.ahead {
		d := ch.draws[ch.taken]
		v = d.value
		if d.n != n {
			if ch.nondeterministic == "" {
				ch.nondeterministic = nondeterministic(ch.taken, d, draw{n: n, label: label})
			}
			v = min(v, n-1) // in range, for the run to end and be reported
		}
	} else {
		ch.drawing, ch.asked = true, draw{n: n, label: label}
		v = drawChoice(ch.t, n, label)
		ch.drawing = false
		if ch.keep {
			ch.draws = append(ch.draws, draw{n: n, value: v, label: label})
		}
	}
	ch.taken++
	ch.log = append(ch.log, v)
	return v
}

// drawAhead draws a choice among n before the run asks for it; the run
// takes it with its next Choose.
func (ch *rapidChooser) drawAhead(n int, label string) int {
	v := drawChoice(ch.t, n, label)
	ch.draws = append(ch.draws, draw{n: n, value: v, label: label})
	ch.ahead++
	return v
}

// drawChoice draws a choice among n from rapid: one bit says whether it
// is 0, and only a choice other than 0 draws more bits, the rest of its
// value. rapid shrinks by lowering and deleting bits, so a shrunk run
// moves choice by choice toward 0 (settle, the first enabled action, the
// first object), and a proposal that zeroes a choice's first bit drops
// that choice's other bits with it instead of leaving the run short of
// bits midway (docs/design.md, "Shrinking without re-running").
func drawChoice(t *rapid.T, n int, label string) int {
	if n == 1 || !choiceBit.Draw(t, label) {
		return 0
	}
	return 1 + drawBelow(t, n-1, label)
}

// drawBelow draws a value in [0, n) uniformly, as its bits from the most
// significant, drawing again when the bits make n or more.
func drawBelow(t *rapid.T, n int, label string) int {
	width := bits.Len(uint(n - 1))
	for {
		v := 0
		for range width {
			v <<= 1
			if choiceBit.Draw(t, label) {
				v |= 1
			}
		}
		if v < n {
			return v
		}
	}
}

var choiceBit = rapid.Bool()

// ReplayChooser replays recorded choices. A choice out of range, or one
// asked for after the record ends, marks the replay as diverged: the code
// under test no longer behaves as when the choices were recorded.
type ReplayChooser struct {
	Choices  []int
	next     int
	diverged bool
	// why says how the replay first left the recorded path.
	why string
}

// Choose returns the next recorded choice.
func (r *ReplayChooser) Choose(n int, label string) int {
	if r.next >= len(r.Choices) {
		r.leave(fmt.Sprintf("the run asked for a %s choice after all %d recorded ones", label, len(r.Choices)))
		return 0
	}
	v := r.Choices[r.next]
	r.next++
	if v < 0 || v >= n {
		r.leave(fmt.Sprintf("recorded choice %d is %d, but the run offered %d (%s)", r.next-1, v, n, label))
		return 0
	}
	return v
}

func (r *ReplayChooser) leave(why string) {
	if !r.diverged {
		r.diverged, r.why = true, why
	}
}

// Diverged reports whether the replay left the recorded path.
func (r *ReplayChooser) Diverged() bool { return r.diverged || r.next != len(r.Choices) }

// Divergence says how the replay left the recorded path, or "" if it did
// not.
func (r *ReplayChooser) Divergence() string {
	switch {
	case r.diverged:
		return r.why
	case r.next != len(r.Choices):
		return fmt.Sprintf("the run ended after %d of the %d recorded choices", r.next, len(r.Choices))
	}
	return ""
}

// Replay re-runs a recorded execution: the same schedule and choices give
// the same trace, byte for byte. diverged says the run did not follow the
// record (the scenario or its controllers changed since).
func Replay(sc Scenario, sched faults.Schedule, choices []int, opts RunOptions) (out *Outcome, diverged bool, err error) {
	ch := &ReplayChooser{Choices: choices}
	out, err = Execute(sc, sched, ch, opts)
	if err != nil {
		return nil, false, err
	}
	return out, ch.Diverged(), nil
}
