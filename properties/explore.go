package properties

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
	"pgregory.net/rapid"
)

// DefaultExploreFaults is how many faults a bounded exploration injects at
// most when ExploreOptions.Faults is zero.
const DefaultExploreFaults = 1

// MaxExploreDepth bounds ExploreOptions.Depth: the tree grows
// exponentially with it, and depths past a few dozen never finish; the
// bound only catches a typo.
const MaxExploreDepth = 64

// MaxExploreFaults bounds ExploreOptions.Faults for the same reason.
const MaxExploreFaults = 4

// DefaultExploreInputs is ExploreOptions.Inputs when zero: six specs
// hold the input each of the catalog's Cache bugs needs (a scale-down
// with a new image, a tier dropped after one was set, a tier with no
// replicas), at 259 sequences of up to three transitions.
const DefaultExploreInputs = 6

// MaxExploreInputs bounds ExploreOptions.Inputs: the sequences of
// transitions number N^0 + … + N^M for N specs and M transitions.
const MaxExploreInputs = 8

// DefaultExploreMaxStates is ExploreOptions.MaxStates when zero: about
// 3.5 GB of memory at the 210 bytes or so a recorded state takes
// (replicaset-level under every healable fault: 2.7 million states in
// 600 MB), which an exploration reaches in about ten minutes on one core.
const DefaultExploreMaxStates = 1 << 24

// MaxExploreMaxStates bounds ExploreOptions.MaxStates: sixteen times the
// default, about 56 GB of recorded states, more than any machine an
// exploration runs on should give its cache.
const MaxExploreMaxStates = 1 << 28

// ExploreOptions configures Explore.
type ExploreOptions struct {
	// Depth is D, the number of decisions explored: every choice the run
	// draws (the fault phase's step, where 0 lets a busy cluster settle,
	// and every Cluster.Choose draw) is a decision; the first D take
	// every value, later ones take 0. Required, in [1, MaxExploreDepth].
	Depth int
	// Faults is F, the most faults a run injects; zero means
	// DefaultExploreFaults. With an empty mix no fault is injected.
	Faults int
	// Deviations, if positive, is K: at most K of the D decisions take a
	// value other than 0, the one the canonical completion takes; once K
	// have, the others take 0 (docs/design.md, "Deviation bounding"). In
	// [0, Depth]; zero means no such bound. Sleep sets are off under it:
	// the reordering a sleeping action stands for may need a deviation
	// more than the path that explored it.
	Deviations int
	// Stateless turns state caching off: every path is re-executed, none
	// pruned by its fingerprint.
	Stateless bool
	// Inputs, for a scenario with state-transition inputs
	// (Scenario.Inputs), is N: runs apply every sequence of at most
	// Inputs.MaxTransitions() transitions among the first N distinct specs
	// Inputs.Spec draws with the seeds 0, 1, … (ExploreSpecs), fewer
	// transitions first within a depth. Which spec a transition sets is
	// chosen when the actor makes it, as a fault is chosen when it
	// strikes: explored whatever the bound, and not counted toward it.
	// Zero means DefaultExploreInputs; at most MaxExploreInputs.
	Inputs int
	// NoInputs explores no inputs: runs apply no transition, and the
	// guarantee says so.
	NoInputs bool
	// MaxStates bounds the states the cache records; zero means
	// DefaultExploreMaxStates. Once it holds that many, a state seen for
	// the first time is explored without being recorded: memory stays
	// bounded, and what the cache would have pruned is explored again.
	// What the exploration shows, and the counterexample it finds, are
	// the same, only slower (ExploreResult.CacheFull says it happened).
	MaxStates int
	// NoSleepSets turns sleep sets off: a path that only reorders actions
	// that commute (model.Cluster.Commute) with one already explored is
	// then explored again.
	NoSleepSets bool
	// Budget, if positive, is the wall-clock time the exploration may
	// take: deepening stops at the first depth it cannot finish in time,
	// and the result reports the deepest depth finished.
	Budget time.Duration
	// Progress, if set, is called after each depth is finished; unset,
	// with Test set, each finished depth is logged to the test.
	Progress func(ExploreResult)
	// Test, if set, is the test whose go test line replays the
	// counterexample (Counterexample.Replay) when the scenario names no
	// Program: the exploration is deterministic, so running the test again
	// finds it again.
	Test testing.TB
	// Wrap, if set, wraps every execution, and the replay of the
	// counterexample, as SearchOptions.Wrap wraps a search's runs: an
	// integration runs each inside its own testing/synctest bubble
	// (InBubble), so that the time user code reads is virtual and each
	// execution starts from the same clock; the reference run of an
	// execution with inputs is wrapped on its own (RunOptions.Wrap). Its
	// *rapid.T is nil.
	Wrap func(prop func(*rapid.T)) func(*rapid.T)

	// faultPerTree explores each fault in trees of its own, as the
	// explorer once did, not the faults of a class in one (explorer.depth):
	// the reference the tests compare sharing with.
	faultPerTree bool
	// eager chooses every fault when it strikes, those newPendingFault
	// decides where they act included: the reference the tests compare
	// deciding them later with.
	eager bool
	// Workers, if more than 1, is the number of goroutines that explore a
	// depth's fault trees side by side; 0 or 1 explores them one after
	// another. What the exploration shows, and the counterexample it
	// finds, are the same (docs/design.md, "Bounded exhaustive
	// exploration": workers); more executions run, as each tree prunes
	// against the states of the depths before it and its own, not those
	// of the trees beside it. The scenario's Build and controllers must
	// then be safe to run in several goroutines at once, as the catalog's
	// are.
	Workers int

	// stats, if set, collects where the work goes.
	stats *exploreStats
	// executionBudget, if positive, replaces Budget by a number of
	// executions, which tests can spend at a given point.
	executionBudget int
	_               struct{}
}

// ExploreResult is what Explore found.
type ExploreResult struct {
	Scenario string
	Faults   faults.Mix
	// MaxFaults is F; Depth the deepest depth fully explored (the depth of
	// the counterexample when there is one); Deviations the deviation
	// bound K, zero for none.
	MaxFaults  int
	Depth      int
	Deviations int
	// TimedOut says the budget ran out before the requested depth.
	TimedOut bool
	// Stateless says no state caching was used; SleepSets that sleep sets
	// were.
	Stateless bool
	SleepSets bool
	// States is the number of distinct states recorded at decision points,
	// those of completions past the bound included (zero when stateless),
	// at most ExploreOptions.MaxStates; Executions the runs made, pruned
	// ones included.
	States, Executions int
	// CacheFull says the state cache reached ExploreOptions.MaxStates:
	// states seen since were explored without being recorded.
	CacheFull bool
	// Workers is the number of goroutines that explored fault trees side
	// by side (ExploreOptions.Workers), 1 when they ran one after another.
	Workers int
	// Steps is the number of steps the executions took, a measure of the
	// work done that, unlike time, does not depend on the machine.
	// CompletionSteps is the part of it each execution took after its last
	// step decision within the bound: its canonical completion, quiescence
	// included. Pruned is the number of executions stopped at a state
	// already explored, or at a decision whose values were all asleep.
	Steps, CompletionSteps, Pruned int
	// FaultSpace is the number of distinct faults explored (kinds,
	// targets and canonical parameters), StrikeTimes the times they
	// struck at.
	FaultSpace  int
	StrikeTimes []model.Time
	// Unfingerprinted names the controllers whose memory the state
	// fingerprint does not cover (they implement no model.Fingerprinter),
	// and "monitors" when one of the scenario's monitors does not write its
	// memory (Invariant.Fingerprint).
	Unfingerprinted []string
	// InputsNotExplored says the scenario declares state-transition inputs
	// (Scenario.Inputs) and ExploreOptions.NoInputs was set: its runs
	// applied none.
	InputsNotExplored bool
	// InputSpecs is the number of distinct specs the transitions explored
	// were drawn from, and MaxTransitions the most the scenario lets a
	// run apply (zero when no inputs were explored).
	InputSpecs, MaxTransitions int
	// Transitions is the most transitions the guarantee covers:
	// MaxTransitions, unless the budget ran out within depth 1 once every
	// run with fewer had been explored; Depth is then 1, and TimedOut set.
	Transitions int
	// Counterexample is the first failure, at minimal depth; nil when none.
	Counterexample *Counterexample
}

// Guarantee states what the exploration showed, with its limits, on one
// line.
func (r ExploreResult) Guarantee() string {
	var b strings.Builder
	if r.Counterexample == nil && r.Depth == 0 {
		return fmt.Sprintf("%s: no depth fully explored: the budget was spent at depth 1 (%d executions)", r.Scenario, r.Executions)
	}
	if r.Counterexample != nil {
		fmt.Fprintf(&b, "%s: counterexample at depth %d (%s)", r.Scenario, r.Depth, r.Counterexample.Failure.Verdict)
	} else {
		fmt.Fprintf(&b, "%s: no counterexample", r.Scenario)
		if r.MaxFaults == 0 {
			b.WriteString(" without faults")
		} else {
			fmt.Fprintf(&b, " with ≤%s (%s)", plural(r.MaxFaults, "fault"), r.Faults)
		}
		fmt.Fprintf(&b, " and ≤%s", plural(r.Depth, "decision"))
		if k := binding(r.Deviations, r.Depth); k > 0 {
			fmt.Fprintf(&b, ", ≤%d of them off the canonical schedule", k)
		}
	}
	b.WriteString(" (")
	if r.Stateless {
		fmt.Fprintf(&b, "stateless, %d executions", r.Executions)
		if r.SleepSets {
			b.WriteString("; sleep sets")
		}
	} else {
		fmt.Fprintf(&b, "%d states, %d executions; 64-bit fingerprints", r.States, r.Executions)
		if r.SleepSets {
			b.WriteString(", sleep sets")
		}
		if r.Workers > 1 {
			fmt.Fprintf(&b, ", %d workers", r.Workers)
		}
		if r.CacheFull {
			b.WriteString("; state cache full")
		}
		if len(r.Unfingerprinted) > 0 {
			fmt.Fprintf(&b, "; memory not fingerprinted: %s", strings.Join(r.Unfingerprinted, ", "))
		}
	}
	b.WriteString("; one canonical completion after the bound")
	if r.InputsNotExplored {
		b.WriteString("; its state-transition inputs not explored")
	}
	if r.InputSpecs > 0 {
		fmt.Fprintf(&b, "; inputs: ≤%s among %s", plural(r.Transitions, "transition"), plural(r.InputSpecs, "spec"))
	}
	b.WriteString(")")
	switch {
	case r.Counterexample == nil && r.Transitions < r.MaxTransitions:
		fmt.Fprintf(&b, "; budget spent before %s", plural(r.Transitions+1, "transition"))
	case r.TimedOut:
		b.WriteString("; budget spent before the next depth")
	}
	return b.String()
}

// Explore searches a scenario exhaustively within bounds (docs/design.md,
// "Bounded exhaustive exploration"): every vector of the first D choices
// of the fault phase, with at most F faults of mix, each from the
// canonical fault space (faults.Canonical) striking at any virtual time
// the fault-free exploration reaches at a decision point. A fault is a
// preempting timer, so when it strikes among the actions due at its time
// is itself a decision. Depths are explored 1, 2, …, D, so the first
// counterexample is at minimal depth; it is an ordinary (schedule,
// choices) pair that Replay replays, judged by the same runner, with the
// same quiescence and verdicts, as a random search's runs.
//
// With opts.Deviations K, at most K of the first D choices are not 0.
// Unless opts.Stateless, a decision point whose state fingerprint
// (model.Cluster.Fingerprint, with the runner's own state) was seen with
// at least as many decisions, and deviations, left is pruned.
func Explore(sc Scenario, mix faults.Mix, opts ExploreOptions) (ExploreResult, error) {
	if err := opts.validate(); err != nil {
		return ExploreResult{}, err
	}
	p, err := prepare(sc, mix, runWrap(opts.Wrap))
	if err != nil {
		return ExploreResult{}, err
	}
	return p.Explore(opts)
}

func (o ExploreOptions) validate() error {
	var errs []error
	if err := checkExploreDepth("explore depth", o.Depth); err != nil {
		errs = append(errs, err)
	}
	if o.Faults < 0 || o.Faults > MaxExploreFaults {
		errs = append(errs, fmt.Errorf("explore faults %d: must be in [0, %d] (0: %d)", o.Faults, MaxExploreFaults, DefaultExploreFaults))
	}
	if err := checkDeviations("explore deviations", o.Deviations, o.Depth); err != nil {
		errs = append(errs, err)
	}
	if o.Inputs < 0 || o.Inputs > MaxExploreInputs {
		errs = append(errs, fmt.Errorf("explore inputs %d: must be in [0, %d]", o.Inputs, MaxExploreInputs))
	}
	if o.MaxStates < 0 || o.MaxStates > MaxExploreMaxStates {
		errs = append(errs, fmt.Errorf("explore max states %d: must be in [0, %d] (0: %d)", o.MaxStates, MaxExploreMaxStates, DefaultExploreMaxStates))
	}
	if o.Budget < 0 {
		errs = append(errs, fmt.Errorf("explore budget %v: must not be negative", o.Budget))
	}
	if o.Workers < 0 {
		errs = append(errs, fmt.Errorf("explore workers %d: must not be negative", o.Workers))
	}
	return errors.Join(errs...)
}

// binding returns the deviation bound k if it binds at depth d, else 0.
func binding(k, d int) int {
	if k >= d {
		return 0
	}
	return k
}

// checkDeviations checks a deviation bound k for depth d, the one range
// check of ExploreOptions.Deviations, Strategy.Deviations and fuzzrun's
// -deviations; what names the value.
func checkDeviations(what string, k, d int) error {
	if k < 0 || k > max(d, 0) {
		return fmt.Errorf("%s %d: must be in [0, %d], the depth (0: no bound)", what, k, max(d, 0))
	}
	return nil
}

// checkExploreDepth checks an exploration depth, the one range check of
// ExploreOptions.Depth, Strategy.Depth for the exhaustive strategy and, through
// ParseStrategy, fuzzrun's -depth; what names the value.
func checkExploreDepth(what string, d int) error {
	if d < 1 || d > MaxExploreDepth {
		return fmt.Errorf("%s %d: must be in [1, %d]", what, d, MaxExploreDepth)
	}
	return nil
}

// Explore is Explore of the prepared scenario under its mix.
func (p *Prepared) Explore(opts ExploreOptions) (ExploreResult, error) {
	if err := opts.validate(); err != nil {
		return ExploreResult{}, err
	}
	sc := p.shape.sc
	// Sleep sets are off under a deviation bound (ExploreOptions.Deviations).
	sleep := !opts.NoSleepSets && opts.Deviations == 0
	// Where the work goes is measured, and a budget of executions
	// counted, one tree after another.
	workers := max(1, opts.Workers)
	if opts.stats != nil || opts.executionBudget > 0 {
		workers = 1
	}
	res := ExploreResult{Scenario: sc.Name, Faults: p.mix, MaxFaults: opts.maxFaults(), Deviations: opts.Deviations, Stateless: opts.Stateless, SleepSets: sleep, Workers: workers}
	if len(p.mix) == 0 {
		res.MaxFaults = 0
	}
	var space []faults.Fault
	if res.MaxFaults > 0 {
		var err error
		if space, err = faults.Canonical(p.mix, p.plan.Topology, p.plan.Budget); err != nil {
			return res, err
		}
	}
	res.FaultSpace = len(space)
	res.InputsNotExplored = sc.Inputs != nil && opts.NoInputs
	var sample Transitions
	if sc.Inputs != nil && !opts.NoInputs {
		var err error
		if sample, err = ExploreSpecs(sc.Inputs, opts.inputSpecs()); err != nil {
			return res, fmt.Errorf("scenario %q: %w", sc.Name, err)
		}
		res.InputSpecs, res.MaxTransitions = len(sample), sc.Inputs.MaxTransitions()
		res.Transitions = res.MaxTransitions
	}
	var began time.Time
	if opts.Budget > 0 {
		began = time.Now()
	}
	e := &explorer{p: p, wrap: opts.Wrap, deviations: opts.Deviations, stats: opts.stats, faultPerTree: opts.faultPerTree, eager: opts.eager, stateless: opts.Stateless, sleep: sleep, seen: map[uint64]seenState{}, maxStates: opts.MaxStates, inputSample: sample, times: map[model.Time]bool{}, workers: workers}
	if e.maxStates == 0 {
		e.maxStates = DefaultExploreMaxStates
	}
	if !opts.Stateless {
		var err error
		e.wrapped(func() {
			var c *model.Cluster
			if c, _, err = start(sc, RunOptions{DiscardTrace: true}); err != nil {
				return
			}
			res.Unfingerprinted = c.Unfingerprinted()
			if sc.Monitors != nil && slices.ContainsFunc(sc.Monitors(c), func(inv Invariant) bool { return inv.Fingerprint == nil }) {
				res.Unfingerprinted = append(res.Unfingerprinted, "monitors")
			}
		})
		if err != nil {
			return res, err
		}
	}
	if opts.Progress == nil && opts.Test != nil {
		start := time.Now()
		opts.Progress = func(r ExploreResult) {
			opts.Test.Logf("%s: depth %d of %d explored (%d states, %d executions, %.1fs)", r.Scenario, r.Depth, opts.Depth, r.States, r.Executions, time.Since(start).Seconds())
		}
	}
	e.deadline = func() bool {
		if opts.executionBudget > 0 {
			return e.executions >= opts.executionBudget
		}
		return opts.Budget > 0 && time.Since(began) > opts.Budget
	}
	for d := 1; d <= opts.Depth; d++ {
		var cx *Counterexample
		var err error
		for e.inputMoves = 0; e.inputMoves <= res.MaxTransitions; e.inputMoves++ {
			if cx, err = e.depth(d, space, res.MaxFaults); cx != nil || err != nil {
				break
			}
		}
		res.States, res.Executions, res.Steps, res.CacheFull = len(e.seen), e.executions, e.steps, e.full
		res.CompletionSteps, res.Pruned = e.completionSteps, e.pruned
		if err != nil {
			if errors.Is(err, errBudget) {
				res.TimedOut = true
				if d == 1 && e.inputMoves > 0 {
					// Depth 1 is explored with fewer transitions: say so,
					// rather than nothing.
					res.Depth, res.Transitions = 1, e.inputMoves-1
					res.StrikeTimes = e.strikeTimes()
				}
				break
			}
			return res, err
		}
		res.StrikeTimes = e.strikeTimes()
		res.Depth = d
		if cx != nil {
			cx.Replay = exploreReplay(sc, p.mix, opts, d)
			res.Counterexample = cx
			break
		}
		if opts.Progress != nil {
			opts.Progress(res)
		}
	}
	return res, nil
}

// maxFaults is Faults with its default filled in.
func (o ExploreOptions) maxFaults() int {
	if o.Faults == 0 {
		return DefaultExploreFaults
	}
	return o.Faults
}

// inputSpecs is Inputs with its default filled in.
func (o ExploreOptions) inputSpecs() int {
	if o.Inputs == 0 {
		return DefaultExploreInputs
	}
	return o.Inputs
}

// exploreReplay is the line that finds an exploration's counterexample,
// found at depth d, again: the scenario's Program's (ExploreLine), else
// the go test line of opts.Test, else none.
func exploreReplay(sc Scenario, mix faults.Mix, opts ExploreOptions, d int) string {
	switch {
	case sc.Program != "":
		return ExploreLine(sc.Program, sc, mix, d, opts)
	case opts.Test != nil:
		if line, err := goTestLine(opts.Test.Name()); err == nil {
			return line
		}
	}
	return ""
}

// errBudget ends an exploration whose budget is spent.
var errBudget = errors.New("explore budget spent")

// errCancelled stops a worker's tree once a tree before it failed.
var errCancelled = errors.New("explore tree cancelled")

// explorer is one exploration's state across depths and schedules.
type explorer struct {
	p            *Prepared
	faultPerTree bool
	eager        bool
	stateless    bool
	sleep        bool
	// deviations bounds the decisions off value 0 (0: no bound).
	deviations int
	// wrap, if set, wraps each execution (ExploreOptions.Wrap).
	wrap func(prop func(*rapid.T)) func(*rapid.T)
	// seen maps a state key to how it was explored: every path from it
	// with that many decisions left, or fewer, that starts with no action
	// of its sleep set has run, or is running, without a failure.
	seen map[uint64]seenState
	// inputSample are the specs the state-transition actor chooses each
	// transition's among, inputMoves the transitions it makes in the runs
	// being explored (ExploreOptions.Inputs).
	inputSample Transitions
	inputMoves  int
	// maxStates bounds the states recorded (recorded); full says a state
	// went unrecorded for it.
	maxStates int
	full      bool
	// workers is the number of goroutines exploring fault trees side by
	// side (ExploreOptions.Workers). A worker's explorer records in seen
	// the states it explores, and looks them up there, then in base, the
	// cache as the depth's fault trees found it (read only);
	// baseSleepSets are the sleep sets base refers to. Its cancelled says
	// a tree before its own failed, so that its own no longer matters;
	// beside counts the states the depth's workers recorded, all of them,
	// against maxStates.
	workers       int
	base          map[uint64]seenState
	baseSleepSets [][]model.Action
	cancelled     func() bool
	beside        *atomic.Int64
	// sleepSets holds the non-empty sleep sets seen states were explored
	// with, which seenState refers to by index, so that the map, holding
	// no pointers, costs the garbage collector nothing to scan.
	sleepSets  [][]model.Action
	times      map[model.Time]bool
	executions int
	steps      int
	// completionSteps are the steps runs took after their last step
	// decision within the bound; pruned counts the runs pruned.
	completionSteps int
	pruned          int
	deadline        func() bool
	stats           *exploreStats
}

// seenState is how a state was explored: with left decisions left and
// the actions of explorer.sleepSets[sleep-1] asleep (none when sleep is
// 0).
type seenState struct {
	left, devLeft int32
	sleep         uint32
}

// covers reports whether exploring a state that s was explored as, with
// the actions of asleep asleep, would explore nothing, with left
// decisions left and sleep asleep, that s did not.
func covers(s seenState, asleep []model.Action, left, devLeft int, sleep []model.Action) bool {
	if int(s.left) < left || int(s.devLeft) < devLeft {
		return false
	}
	for _, a := range asleep {
		if !slices.Contains(sleep, a) {
			return false
		}
	}
	return true
}

// recorded is the number of states the cache holds, with those the
// workers beside this one recorded.
func (e *explorer) recorded() int {
	if e.beside != nil {
		return len(e.base) + int(e.beside.Load())
	}
	return len(e.seen)
}

// lookup returns how a state was explored, with the actions that were
// asleep, if it was.
func (e *explorer) lookup(key uint64) (seenState, []model.Action, bool) {
	if s, ok := e.seen[key]; ok {
		return s, sleepSet(s, e.sleepSets), true
	}
	if s, ok := e.base[key]; ok {
		return s, sleepSet(s, e.baseSleepSets), true
	}
	return seenState{}, nil, false
}

// sleepSet returns the actions asleep when s was explored, which sets
// holds.
func sleepSet(s seenState, sets [][]model.Action) []model.Action {
	if s.sleep == 0 {
		return nil
	}
	return sets[s.sleep-1]
}

// record records that a state is explored with left decisions left and
// sleep asleep; a state not yet recorded is not once the cache is full.
func (e *explorer) record(key uint64, left, devLeft int, sleep []model.Action) {
	if e.recorded() >= e.maxStates {
		if _, ok := e.seen[key]; !ok {
			e.full = true
			return
		}
	}
	s := seenState{left: int32(left), devLeft: int32(devLeft)}
	if len(sleep) > 0 {
		// Consecutive points of a path mostly carry the same set: keep
		// it once.
		if n := len(e.sleepSets); n == 0 || !slices.Equal(e.sleepSets[n-1], sleep) {
			e.sleepSets = append(e.sleepSets, slices.Clone(sleep))
		}
		s.sleep = uint32(len(e.sleepSets))
	}
	if _, ok := e.seen[key]; !ok && e.beside != nil {
		e.beside.Add(1)
	}
	e.seen[key] = s
}

// strikeTimes returns the times seen at decision points within the
// fault horizon, in order.
func (e *explorer) strikeTimes() []model.Time {
	var out []model.Time
	for t := range e.times {
		if t <= e.p.shape.b.budget.Horizon {
			out = append(out, t)
		}
	}
	slices.Sort(out)
	return out
}

// depth explores every schedule at depth d: the fault-free tree first,
// which also collects the strike times, then one tree per multiset of up
// to maxFaults slots, a slot being a strike time and a class of faults.
//
// Faults are decisions of these trees (docs/design.md, "Bounded
// exhaustive exploration"): a tree's schedule holds, at each strike time,
// a pendingFault, whose timer is set when every fault's would be and which
// chooses, when it strikes, which fault of its class it is. Before it
// strikes, a pending fault is a timer like any other, so the interleavings
// before the strike are explored once for all the faults of a class
// instead of once per fault; the class is fixed per tree because it
// decides the run (the promptness check) even when no fault strikes. A
// path of such a tree is a path of the ordinary schedule holding the
// chosen fault, with the same choices but the fault's: the counterexample
// is written so, and replayed so.
func (e *explorer) depth(d int, space []faults.Fault, maxFaults int) (*Counterexample, error) {
	if cx, err := e.tree(nil, d, true); cx != nil || err != nil {
		return cx, err
	}
	// The faults of each class, in the order of space; with a tree per
	// fault, each fault alone.
	type group struct {
		class  faults.Class
		faults []faults.Fault
	}
	var groups []group
	index := map[faults.Class]int{}
	for _, f := range space {
		class, err := faults.ClassOf(f.Kind())
		if err != nil {
			return nil, err
		}
		if e.faultPerTree {
			groups = append(groups, group{class, []faults.Fault{f}})
			continue
		}
		i, ok := index[class]
		if !ok {
			groups = append(groups, group{class: class})
			i = len(groups) - 1
			index[class] = i
		}
		groups[i].faults = append(groups[i].faults, f)
	}
	type slot struct {
		at model.Time
		group
	}
	var slots []slot
	for _, t := range e.strikeTimes() {
		for _, g := range groups {
			slots = append(slots, slot{t, g})
		}
	}
	// Schedules of k faults are the k-multisets of the slots, in
	// lexicographic order of their indices: a slot picked twice holds two
	// faults of its class at its time, which strike in either order. With
	// a tree per fault they are the k-subsets, as the explorer once
	// explored them. The schedules of faithful faults alone come first, as
	// a search's second search prefers them: an adversarial counterexample
	// at a depth means none of faithful faults fails at it.
	next := 0
	if e.faultPerTree {
		next = 1
	}
	adversarial := func(picked []slot) bool {
		return slices.ContainsFunc(picked, func(s slot) bool { return s.class == faults.Adversarial })
	}
	var scheds []faults.Schedule
	var faithfulPass bool
	var choose func(from int, picked []slot)
	choose = func(from int, picked []slot) {
		if faithfulPass && adversarial(picked) {
			return
		}
		if len(picked) > 0 && faithfulPass != adversarial(picked) {
			var sched faults.Schedule
			for _, s := range picked {
				sched = append(sched, faults.Timed{At: s.at, Fault: newPendingFault(s.faults, s.class, !e.faultPerTree && !e.eager)})
			}
			scheds = append(scheds, sched)
		}
		if len(picked) == maxFaults {
			return
		}
		for i := from; i < len(slots); i++ {
			choose(i+next, append(slices.Clip(picked), slots[i]))
		}
	}
	for _, faithfulPass = range []bool{true, false} {
		choose(0, nil)
	}
	return e.trees(scheds, d)
}

// faultLabel labels the choice of which fault a pendingFault is.
const faultLabel = "explore: fault"

// pendingFault is a fault of an explored schedule that chooses, when it
// strikes, which of its class's faults it is (see explorer.depth).
type pendingFault struct {
	faults []faults.Fault
	class  faults.Class
	// options are what it chooses among when it strikes, as indices in
	// faults: a single fault, or faults it arms as one, to be told apart
	// only where the first of them would act (see newPendingFault).
	options [][]int
	// chosen is the index of the fault it struck as in this run, -1 until
	// it strikes; the first of an option's faults while they wait for a
	// write.
	chosen int
}

// newPendingFault returns the pending fault of a class's faults; later
// arms their API errors on each controller as one option, and their
// restarts after writes on each controller as another, each decided at
// the controller's next write, and their delays of each informer as one,
// decided at the next event it holds back (docs/design.md, "Bounded
// exhaustive exploration").
func newPendingFault(fs []faults.Fault, class faults.Class, later bool) *pendingFault {
	p := &pendingFault{faults: fs, class: class}
	group := map[string]int{} // kind and controller → its option
	for i, f := range fs {
		key := ""
		switch f := f.(type) {
		case faults.APIError:
			key = "apierror " + f.Controller
		case faults.Restart:
			if f.AfterWrites > 0 {
				key = "restart " + f.Controller
			}
		case faults.Delay:
			key = "delay " + f.Controller + " " + f.Resource
		}
		if later && key != "" {
			if o, ok := group[key]; ok {
				p.options[o] = append(p.options[o], i)
				continue
			}
			group[key] = len(p.options)
		}
		p.options = append(p.options, []int{i})
	}
	return p
}

// Kind is the kind of the class's first fault: the schedule's class, the
// only thing the runner reads of a fault before it strikes, is the same
// for every fault of the class.
func (p *pendingFault) Kind() faults.Kind { return p.faults[0].Kind() }

// Apply chooses the fault and applies it; an option of several faults
// (API errors, or restarts after writes, on one controller; delays of one
// informer) it arms as one, choosing which where they act.
func (p *pendingFault) Apply(c *model.Cluster) error {
	o := p.options[c.Choose(len(p.options), faultLabel)]
	p.chosen = o[0]
	if len(o) == 1 {
		return p.faults[o[0]].Apply(c)
	}
	choose := func(n int) int {
		k := c.Choose(n, faultLabel)
		if k < 0 || k >= len(o) {
			k = 0
		}
		p.chosen = o[k]
		return k
	}
	switch first := p.faults[o[0]].(type) {
	case faults.APIError:
		return faults.ApplyAPIErrorsLater(c, optionFaults[faults.APIError](p.faults, o), fmt.Sprintf("one of the %d %s API errors on %s", len(o), p.class, first.Controller), choose)
	case faults.Restart:
		return faults.ApplyRestartsLater(c, optionFaults[faults.Restart](p.faults, o), fmt.Sprintf("one of the %d %s restarts after writes of %s", len(o), p.class, first.Controller), choose)
	case faults.Delay:
		return faults.ApplyDelaysLater(c, optionFaults[faults.Delay](p.faults, o), fmt.Sprintf("one of the %d %s delays of the next %s event to %s", len(o), p.class, first.Resource, first.Controller), choose)
	}
	return fmt.Errorf("explore: no way to arm %s later", p.faults[o[0]])
}

// optionFaults are the faults at the indices of an option, all of type F.
func optionFaults[F faults.Fault](fs []faults.Fault, option []int) []F {
	out := make([]F, len(option))
	for k, i := range option {
		out[k] = fs[i].(F)
	}
	return out
}

// String names the fault, or its class: pending faults with different
// names must differ, since a pending fault's timer enters the state
// fingerprint by its name.
func (p *pendingFault) String() string {
	if len(p.faults) == 1 {
		return p.faults[0].String()
	}
	return fmt.Sprintf("one of %d %s faults", len(p.faults), p.class)
}

// concrete returns the ordinary schedule of a run of sched, a schedule of
// pending faults: each the fault it struck as, or, if it did not strike,
// its class's first (which fault it is then decides nothing).
func concrete(sched faults.Schedule) faults.Schedule {
	out := make(faults.Schedule, 0, len(sched))
	for _, t := range sched {
		p := t.Fault.(*pendingFault)
		out = append(out, faults.Timed{At: t.At, Fault: p.faults[max(p.chosen, 0)]})
	}
	return out
}

// tree explores every choice vector of one schedule at depth d, depth
// first, re-executing each path from Build.
func (e *explorer) tree(sched faults.Schedule, d int, collect bool) (*Counterexample, error) {
	var prefix []int
	for {
		if e.deadline() {
			return nil, errBudget
		}
		if e.cancelled != nil && e.cancelled() {
			return nil, errCancelled
		}
		for _, t := range sched {
			t.Fault.(*pendingFault).chosen = -1
		}
		ch := &exploreChooser{e: e, prefix: prefix, bound: d, devBound: e.deviations, collect: collect, faults: len(sched), prefixSteps: -1}
		out, pruned, err := e.run(sched, ch)
		if err != nil {
			return nil, err
		}
		if !pruned && out.Failure != nil {
			return e.counterexample(concrete(sched), ch.ordinary(), out, d)
		}
		// Backtrack: the deepest decision explored (one before the
		// bound, or a fault's; and before a pruned point, whose subtree
		// is covered) with a value left that is not asleep.
		i, next := len(ch.ns)-1, -1
		for ; i >= 0; i-- {
			if next = ch.nextAwake(i, ch.log[i]+1); next >= 0 {
				break
			}
		}
		if i < 0 {
			return nil, nil
		}
		prefix = append(slices.Clone(ch.log[:i]), next)
	}
}

// wrapped calls f, inside ExploreOptions.Wrap if set; a panic in f,
// errPruned included, goes on past it.
func (e *explorer) wrapped(f func()) {
	if e.wrap == nil {
		f()
		return
	}
	e.wrap(func(*rapid.T) { f() })(nil)
}

// errPruned unwinds a run at a decision point already explored.
type errPruned struct{}

// run executes one path; pruned says it stopped at a state already
// explored.
func (e *explorer) run(sched faults.Schedule, ch *exploreChooser) (out *Outcome, pruned bool, err error) {
	e.executions++
	defer func() {
		if v := recover(); v != nil {
			if _, ok := v.(errPruned); !ok {
				panic(v)
			}
			out, pruned, err = nil, true, nil
			if e.stats != nil {
				e.recordStats(sched, ch, ch.steps, 0, true)
			}
			e.steps += ch.steps
			e.completionSteps += ch.steps - ch.withinSteps
			e.pruned++
		}
	}()
	out, err = e.p.execute(sched, ch, RunOptions{DiscardTrace: true, Wrap: runWrap(e.wrap), inputSample: e.inputSample, inputMoves: e.inputMoves})
	if out != nil {
		if e.stats != nil {
			e.recordStats(sched, ch, out.Cluster.Steps(), out.QuietFrom, false)
		}
		e.steps += out.Cluster.Steps()
		e.completionSteps += out.Cluster.Steps() - ch.withinSteps
	}
	return out, false, err
}

// recordStats records an execution in e.stats.
func (e *explorer) recordStats(sched faults.Schedule, ch *exploreChooser, total, quietFrom int, pruned bool) {
	name, struck, at := "fault-free", "none", model.Time(0)
	if len(sched) > 0 {
		p := sched[0].Fault.(*pendingFault)
		name, at = string(p.class), sched[0].At
		if p.chosen >= 0 {
			struck = string(p.faults[p.chosen].Kind())
		}
	}
	e.stats.execution(name, at, struck, ch, total, quietFrom, pruned)
}

// counterexample replays the failing path with its trace kept, as the
// ordinary run of its schedule and its transitions.
func (e *explorer) counterexample(sched faults.Schedule, choices []int, failed *Outcome, d int) (*Counterexample, error) {
	choices = slices.Clone(choices)
	var inputs Transitions
	for _, tr := range failed.Transitions {
		inputs = append(inputs, tr.Spec)
	}
	var out *Outcome
	var diverged bool
	var err error
	out, diverged, err = e.p.replay(sched, choices, RunOptions{Inputs: inputs, Wrap: runWrap(e.wrap)})
	if err != nil {
		return nil, err
	}
	if diverged || out.Failure == nil || out.Failure.Verdict != failed.Failure.Verdict {
		return nil, fmt.Errorf("scenario %s is nondeterministic: the replay of an explored path did not fail as it did (trap 6 in docs/design.md)", e.p.shape.sc.Name)
	}
	if sched == nil {
		sched = faults.Schedule{}
	}
	return &Counterexample{
		Scenario: e.p.shape.sc.Name,
		Faults:   e.p.mix,
		Strategy: Strategy{Name: StrategyExhaustive, Depth: d, Deviations: binding(e.deviations, d)},
		Failure:  out.Failure,
		Schedule: sched,
		Inputs:   inputs,
		Choices:  choices,
		Steps:    out.Cluster.Steps(),
		Trace:    out.Cluster.Trace(),
		Class:    sched.Class(),
		minimal:  out,
	}, nil
}

// exploreChooser replays a prefix of choices, then makes each decision
// within the bound take its first value not asleep, and every later one
// 0, recording every choice and how many values each has left to explore.
type exploreChooser struct {
	e      *explorer
	prefix []int
	bound  int
	// devBound bounds the decisions within the bound that take a value
	// other than 0 (0: no bound); dev counts them.
	devBound, dev int
	// collect records the time of each decision point up to the bound
	// (strike times for faults).
	collect bool
	// faults is the number of faults in the run's schedule, part of the
	// state key: the fault-free tree, which collects the strike times,
	// prunes only against its own states, so that no time is missed.
	faults int
	// log is every choice made; ns[i] the number of values decision i
	// explores (1 for a decision past the bound, which takes 0), and
	// asleep[i] which of them are asleep (nil for none).
	log    []int
	ns     []int
	asleep [][]bool
	// counted is the number of decisions made that count toward the
	// bound.
	counted int
	// sleep is the sleep set: the enabled actions that need not run next,
	// since a path starting with each, and otherwise the same, was
	// explored.
	sleep []model.Action
	// steps is the number of steps taken at the last decision point,
	// withinSteps at the last one within the bound.
	steps, withinSteps int
	// faultChoices are the indices in log of the choices of which fault
	// a pendingFault is.
	faultChoices []int
	// prefixSteps is the number of steps taken when the run left its
	// replayed prefix, -1 before (for exploreStats).
	prefixSteps int
	// afterFault says a fault's choice was just made past the prefix (for
	// exploreStats).
	afterFault bool
}

// ordinary returns the choices of the run as the ordinary schedule
// holding the chosen faults makes them: without the faults' choices.
func (x *exploreChooser) ordinary() []int {
	var out []int
	for i, v := range x.log {
		if !slices.Contains(x.faultChoices, i) {
			out = append(out, v)
		}
	}
	return out
}

// nextAwake returns the first value from v on of decision i that is not
// asleep, or -1.
func (x *exploreChooser) nextAwake(i, v int) int {
	for ; v < x.ns[i]; v++ {
		if x.asleep[i] == nil || !x.asleep[i][v] {
			return v
		}
	}
	return -1
}

// decide makes the next decision among n values: the prefix's value while
// it lasts, then, if explore, the first value not asleep, else 0. A
// decision that deviates (counts toward the deviation bound) is not
// explored once the bound is spent, and spends it when its value is not
// 0. It records the decision; one not explored has a single value. A
// decision whose values are all asleep ends the run as pruned.
func (x *exploreChooser) decide(n int, explore, deviates bool, asleep []bool) int {
	i := len(x.log)
	v := 0
	if deviates && x.devBound > 0 && x.dev >= x.devBound {
		explore = false
	}
	switch {
	case i < len(x.prefix):
		v = x.prefix[i]
	case explore:
		for v < n && asleep != nil && asleep[v] {
			v++
		}
		if v == n {
			panic(errPruned{})
		}
	}
	if v >= n {
		v = 0 // cannot happen in a deterministic scenario; replay flags it
	}
	if !explore {
		n, asleep = 1, nil
	} else if deviates && v != 0 {
		x.dev++
	}
	x.ns = append(x.ns, n)
	x.asleep = append(x.asleep, asleep)
	x.log = append(x.log, v)
	return v
}

// Choose is a decision of an actor or a controller (Cluster.Choose), or
// which fault a pendingFault is, or which spec a transition sets: those
// are explored whatever the bound, and do not count toward it, since the
// ordinary run of the fault and the transitions makes no such decision.
func (x *exploreChooser) Choose(n int, label string) int {
	if label == faultLabel || label == inputLabel {
		x.faultChoices = append(x.faultChoices, len(x.log))
		x.afterFault = x.e.stats != nil && len(x.log) >= len(x.prefix)
		return x.decide(n, true, false, nil)
	}
	if label == model.SeedLabel {
		return x.decide(n, false, false, nil) // logged for replay, never branched on
	}
	explore := x.counted < x.bound
	x.counted++
	return x.decide(n, explore, true, nil)
}

// chooseStep is the fault phase's step decision among n values: 0
// settles a busy cluster, the others run the enabled actions. At a point
// past the replayed prefix it looks the state up first, and prunes one
// already explored with as many decisions (and deviations) left and no
// more asleep: within the bound, its subtree was explored; past it, where
// every decision takes 0, the one canonical completion from it was, and
// it did not fail (a failure ends the exploration). Steps taken are part of the state key, so
// a run never meets a state of its own again.
func (x *exploreChooser) chooseStep(r *runner, n int, busy bool) int {
	within := x.counted < x.bound
	x.steps = r.c.Steps()
	if within {
		x.withinSteps = x.steps
	}
	if x.counted <= x.bound && x.collect {
		x.e.times[r.c.Now()] = true
	}
	afterFault := x.afterFault
	x.afterFault = false
	if x.prefixSteps < 0 && len(x.log) >= len(x.prefix) {
		x.prefixSteps = x.steps
	}
	if !x.e.stateless && len(x.log) >= len(x.prefix) {
		key := r.stateKey(x.faults)
		left := max(0, x.bound-x.counted)
		devLeft := left
		if x.devBound > 0 {
			devLeft = min(left, x.devBound-x.dev)
		}
		if seen, asleep, ok := x.e.lookup(key); ok && covers(seen, asleep, left, devLeft, x.sleep) {
			if afterFault {
				x.e.stats.prunedAfterFault++
			}
			panic(errPruned{})
		}
		if afterFault {
			x.e.stats.newAfterFault++
		}
		x.e.record(key, left, devLeft, x.sleep)
	}
	action := func(v int) (model.Action, bool) {
		if busy {
			if v == 0 {
				return model.Action{}, false // settle
			}
			v--
		}
		return r.acts[v], true
	}
	v := 0
	if n > 1 {
		var asleep []bool
		if x.e.sleep && within && len(x.sleep) > 0 {
			asleep = make([]bool, n)
			for v := range asleep {
				a, ok := action(v)
				asleep[v] = ok && slices.Contains(x.sleep, a)
			}
		}
		if x.e.stats != nil && within && len(x.log) >= len(x.prefix) {
			x.e.stats.decision(r, n, busy, asleep)
		}
		x.counted++
		v = x.decide(n, within, true, asleep)
		if x.e.sleep && within {
			// The values before v not asleep were explored before it.
			for u := range v {
				if b, ok := action(u); ok && (asleep == nil || !asleep[u]) && !slices.Contains(x.sleep, b) {
					x.sleep = append(x.sleep, b)
				}
			}
		}
	}
	a, ok := action(v)
	if !ok {
		x.sleep = x.sleep[:0]
		return v
	}
	x.after(r, a)
	return v
}

// after keeps in the sleep set the actions that commute with a, which is
// about to run.
func (x *exploreChooser) after(r *runner, a model.Action) {
	kept := x.sleep[:0]
	for _, b := range x.sleep {
		if b != a && r.c.Commute(a, b) {
			kept = append(kept, b)
		}
	}
	x.sleep = kept
}

// stateKey is the fingerprint of the cluster with the runner's own state
// that decides the rest of the run: steps taken (the step bounds), the
// fair scheduler's position, whether promptness is checked (the schedule's
// class) and, when convergence time is judged, its marks; the memory of
// its monitors (Invariant.Fingerprint); with the number of faults in the
// schedule.
func (r *runner) stateKey(faults int) uint64 {
	var buf [14 * 8]byte
	b := buf[:0]
	for _, v := range []uint64{r.c.Fingerprint(), uint64(r.c.Steps()), uint64(r.faultSteps), uint64(r.last), uint64(faults)} {
		b = binary.LittleEndian.AppendUint64(b, v)
	}
	if r.checksPromptness() {
		// What decides a resync-dependent verdict of a reconcile still to
		// come, or already seen (runner.noteRepair).
		b = append(b, 1)
		if r.repaired != nil {
			b = append(b, 2)
		}
		b = binary.LittleEndian.AppendUint64(b, r.c.ResyncTrackFingerprint())
	}
	if r.sc.ConvergeWithin > 0 {
		b = binary.LittleEndian.AppendUint64(b, uint64(r.disturbedAt))
		b = binary.LittleEndian.AppendUint64(b, uint64(r.settledAt))
	}
	// Each monitor's memory is hashed on its own, so that what one writes
	// cannot run into the next.
	for _, inv := range r.invariants {
		if inv.Fingerprint != nil {
			m := fnv.New64a()
			inv.Fingerprint(m)
			b = binary.LittleEndian.AppendUint64(b, m.Sum64())
		}
	}
	h := fnv.New64a()
	_, _ = h.Write(b)
	return h.Sum64()
}
