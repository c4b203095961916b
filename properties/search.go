package properties

import (
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
	"go.uber.org/zap"
	"pgregory.net/rapid"
)

// SearchOptions configures Search.
type SearchOptions struct {
	// Checks is the number of runs; zero uses rapid's setting
	// (-rapid.checks, RAPID_CHECKS, default 100).
	Checks int
	// FaithfulChecks is the number of runs of the second search of "one
	// bug, one finding" (docs/design.md), made under the faithful kinds
	// alone when the first search's counterexample needs an adversarial
	// fault. It is a budget of its own, not what the first search left:
	// zero gives it as many runs as Checks (rapid's setting when Checks is
	// zero too). A larger value looks harder for a bug real clusters
	// trigger, at no cost to scenarios whose first finding is faithful.
	FaithfulChecks int
	// Seed is the seed of the first run; zero lets rapid pick one at
	// random (reported with any finding).
	Seed uint64
	// Logger receives the steps of every run at debug level.
	Logger *zap.Logger
	// Strategy chooses the runs and their interleavings (docs/design.md,
	// "Strategies"); the zero value is random. The exhaustive strategy
	// explores to its Depth and Deviations with Explore's defaults and
	// takes no Checks or Seed: its bounds say which runs it makes.
	Strategy Strategy
	// Corpus is the coverage-guided strategy's corpus (StrategyCoverage),
	// kept across searches: fuzzrun's worker passes one per row, so that
	// each seed's run mutates what the seeds before it found. Nil gives
	// each search a corpus of its own, empty at its first run.
	Corpus *Corpus
	// ReplayCommand renders the command that replays a seed. Without it,
	// the command is the scenario's Program line when it declares one,
	// else the go test line of Test; a search with neither is an error,
	// since its findings could not be replayed.
	ReplayCommand func(seed uint64) string
	// Test is the Go test the search runs in, if any. Its replay line is
	// `go test ./<package> -run '^<Test>$' -rapid.seed=N`, the package
	// found from the test's working directory and the module root above
	// it, and a non-zero -rapid.seed on the command line replaces Seed, so
	// that the line replays. With Seed zero and no flag, the search starts
	// at a seed drawn once, shared by both searches of "one bug, one
	// finding".
	Test testing.TB
	// RunTimeout limits each run (see RunOptions.Timeout): a run past it
	// is a Hang counterexample with its seed.
	RunTimeout time.Duration
	// Wrap, if set, wraps each execution of every run: an integration
	// runs each inside a testing/synctest bubble this way, so that the
	// time user code reads is virtual. A run with inputs has two
	// executions, the history and its reference run, each wrapped on its
	// own (RunOptions.Wrap, docs/design.md, "The reference run sees the
	// same world"); the draws of the property (its inputs, its schedule)
	// and its verdict are outside. Wrap is called with a function that
	// ignores its *rapid.T and with a nil *rapid.T: a Wrap hands its
	// *rapid.T to the property and uses it no further, as InBubble does.
	Wrap func(prop func(*rapid.T)) func(*rapid.T)
	// Progress, if set, gets a line after the 64th run of a search, the
	// 128th, the 256th and so on at every power of two: runs so far
	// (those made, those the memo answered), whether a failure was found
	// and, while rapid shrinks it, the size of the current failing run
	// and its virtual time, and the wall time since the search began. A
	// long shrink then says how it goes. The lines are no part of a
	// result: the same seed gives the same counterexample and report
	// with them or without. CheckWith writes them to stderr.
	Progress io.Writer
	// ShrinkTime, when positive, bounds rapid's shrinking
	// (-rapid.shrinktime): a test that needs a finding and not its
	// smallest form keeps its CPU bounded. Zero shrinks to the fixed
	// point, or to the limit a Go test's command line sets.
	ShrinkTime time.Duration
	// NoPlan makes a random search of rapid's draws alone, without the
	// single faults planned from the scenario's reference run between
	// them (docs/design.md, "Faults planned from the reference run"): the
	// search as it was before them, for measures and tests that compare,
	// or that need rapid's own counterexample.
	NoPlan bool
	// PlanRun, when positive, makes the search one run: run number
	// PlanRun (from 1) of the plan of single faults read off the
	// reference run, in the order Seed gives it (see PlannedRuns), as a
	// search of many runs from Seed makes it between rapid's. It is how a
	// campaign (fuzzrun) runs the plan, one run per seed (docs/design.md,
	// "The plan in campaigns"). Checks is then ignored; the random
	// strategy only. Its counterexample has Planned set and replays from
	// its schedule and choices. In the second search of one bug, one
	// finding, it is the faithful kinds' plan's run of that number, if
	// their plan has one; else there is no second search.
	PlanRun int

	// noMemo makes every run of the search, the tests that compare
	// searches with the memo of runs already made and without it.
	noMemo bool
	// wholeLoops runs every run to its verdict's own step, without
	// loopStop: the tests that compare, and a search whose minimal run,
	// made again in full, failed otherwise than its cut run did.
	wholeLoops bool
	// observe, if set, sees every run the search makes or the memo
	// answers, as propConfig.observe.
	observe func(out *Outcome, choices []int)
	// fewerCap, when positive, caps the budget of the search's pass for
	// fewer faults (fewerBudget): the pass's own searches get what is
	// left of the budget of the pass that runs them.
	fewerCap int
}

// runWrap turns a Wrap of SearchOptions (CheckOptions, ExploreOptions)
// into a RunOptions.Wrap; nil stays nil.
func runWrap(wrap func(prop func(*rapid.T)) func(*rapid.T)) func(run func()) {
	if wrap == nil {
		return nil
	}
	return func(run func()) { wrap(func(*rapid.T) { run() })(nil) }
}

// Counterexample is a failure found by Search, shrunk by rapid to a minimal
// fault schedule and interleaving.
type Counterexample struct {
	Scenario string
	Faults   faults.Mix
	Strategy Strategy
	// Seed is the rapid seed of the run that first failed; with the same
	// code, rapid reproduces and shrinks it again from this seed.
	Seed     uint64
	Failure  *Failure
	Schedule faults.Schedule
	// Inputs are the transitions of the minimal run, for a scenario with
	// inputs; they replay with RunOptions.Inputs.
	Inputs Transitions
	// Choices are the interleaving choices of the minimal run; with the
	// schedule they replay it exactly (see Replay).
	Choices []int
	Steps   int
	Trace   *model.Trace
	// Replay is the command that replays the finding; empty when the
	// seed alone does not make the run again (FromCorpus).
	Replay string
	// FromCorpus is whether the run mutated a corpus that earlier
	// searches built (StrategyCoverage with SearchOptions.Corpus): its
	// seed alone does not make it again, its Schedule and Choices do
	// (Replay; fuzzrun -replay of its finding file).
	FromCorpus bool
	// Planned is, for a run of the plan of faults read off the reference
	// run (docs/design.md, "Faults planned from the reference run"), its
	// number in the plan, from 1; zero for a run rapid drew. A planned
	// run is made again by a search from Seed with as many runs as the
	// one that found it (a go test line), not by a seed's one run.
	Planned int
	// Class is Adversarial when the shrunk schedule still needs an
	// adversarial fault (drop): a handler bug, not something client-go
	// does; Faithful otherwise.
	Class faults.Class
	// FaithfulRuns is, for a counterexample that needs an adversarial
	// fault, the number of runs the second search made under the faithful
	// kinds alone without finding one; zero when there was none.
	FaithfulRuns int
	// Adversarial is, for a counterexample found by the second search
	// under the faithful kinds alone, the shrunk schedule of the first
	// search's counterexample, which needed an adversarial fault.
	Adversarial faults.Schedule
	// Shrunk is the schedule rapid shrank the counterexample to, before
	// the faults it does not need were deleted (docs/design.md, "Faults
	// rapid cannot delete"); DeletionRuns is the number of runs that
	// took. Shrunk equals Schedule when no fault could be deleted.
	Shrunk       faults.Schedule
	DeletionRuns int
	// FewerRuns is the part of DeletionRuns the random strategy's search
	// for fewer faults than deletion leaves made, and FewerBudget the
	// runs it was allowed: as many as the search made to find and
	// shrink the failure and delete its faults, and at least 500
	// (docs/design.md, "Fewer faults than deletion leaves").
	// Both are zero where the pass did not run.
	FewerRuns, FewerBudget int

	// minimal is the minimal failing run itself, for Check's timeline
	// page: replaying it outside the search's Wrap (a synctest bubble)
	// could read another clock.
	minimal *Outcome
}

// Report renders the finding: scenario, violated property, schedule,
// diagnosis, and the replay command last.
func (cx *Counterexample) Report() string {
	var b strings.Builder
	if !cx.Strategy.Seeded() {
		fmt.Fprintf(&b, "scenario %s, faults %s, %s: ", cx.Scenario, cx.Faults, cx.Strategy)
	} else {
		fmt.Fprintf(&b, "scenario %s, faults %s, seed %d: ", cx.Scenario, cx.Faults, cx.Seed)
	}
	b.WriteString(cx.Failure.Report(cx.Schedule))
	switch {
	case cx.Class == faults.Adversarial:
		b.WriteString(adversarialNote)
		switch faithful, _ := cx.Faults.Split(); {
		case len(faithful) == 0:
		case !cx.Strategy.Seeded():
			// Each depth explores the schedules of faithful faults alone
			// first (explorer.depth).
			fmt.Fprintf(&b, "  Exploration tried the faithful faults alone (%s) first: none fails within this depth.\n", faithful)
		default:
			fmt.Fprintf(&b, "  A second search under the faithful faults alone (%s) found no counterexample%s.\n", faithful, faithfulRuns(cx.FaithfulRuns))
		}
	case len(cx.Adversarial) > 0:
		fmt.Fprintf(&b, "found by a second search under the faithful faults alone: the first counterexample needed an adversarial fault (%s), which client-go never produces; this one is a bug real clusters trigger\n", cx.Adversarial)
	}
	if cx.Planned > 0 && cx.Replay != "" {
		fmt.Fprintf(&b, "found by run %d of the faults planned from the reference run; the line searches from the seed again\n", cx.Planned)
	}
	switch {
	case cx.Replay != "":
		fmt.Fprintf(&b, "replay: %s\n", cx.Replay)
	case cx.FromCorpus:
		b.WriteString("replay: from this finding's schedule and choices (fuzzrun -replay of its finding file); the run mutated a corpus that earlier runs built, so its seed alone does not make it again\n")
	case cx.Planned > 0:
		fmt.Fprintf(&b, "replay: from this finding's schedule and choices (fuzzrun -replay of its finding file); the run is number %d of the faults planned from the reference run, not the one run rapid draws from a seed\n", cx.Planned)
	}
	return b.String()
}

// faithfulRuns renders " in N faithful runs" for a report, or nothing when
// the number is unknown.
func faithfulRuns(n int) string {
	switch {
	case n <= 0:
		return ""
	case n == 1:
		return " in 1 faithful run"
	}
	return fmt.Sprintf(" in %d faithful runs", n)
}

// adversarialNote ends the report of a counterexample that needs an
// adversarial fault.
const adversarialNote = `fault class: adversarial. This counterexample needs a fault client-go never produces (see fuzzrun -list):
  it stands for a bug in event handling, such as a filter or handler that loses a notification.
  A controller with controller-runtime's default SyncPeriod (10 hours) recovers from such a loss
  only at its next resync, up to 10 hours later; if its handlers cannot lose notifications,
  this finding does not apply to it.
`

// SearchResult is what Search found.
type SearchResult struct {
	// Runs is the number of runs made up to and including the first
	// failure (or all of them when nothing failed).
	Runs int
	// Counterexample is nil when every run passed.
	Counterexample *Counterexample
	// Adversarial is the counterexample of the first search when it
	// needed an adversarial fault and a second search under the faithful
	// kinds found Counterexample; nil otherwise.
	Adversarial *Counterexample
	// ConvergeTimes are the times to converge (Outcome.ConvergeTime) of
	// the runs that passed before the first failure, in the order they
	// ran.
	ConvergeTimes []model.Time
	// Passed is the last run when every run passed (with Checks 1, the
	// run of the seed), its trace kept for a timeline page; nil when a run
	// failed.
	Passed *Outcome
}

var (
	searchMu   sync.Mutex
	searchInit sync.Once
)

// Search looks for a counterexample to Converges with rapid's engine and
// returns it shrunk, as a value. It sets rapid's flags for the duration
// (checks, seed, and no fail files: trap 7 in docs/design.md), so searches are
// serialized, and it must not run concurrently with other rapid tests in
// the same process. Outside `go test` it initializes the testing flags
// rapid reads.
//
// One bug, one finding (docs/design.md, section "One bug, one finding"): when the
// counterexample needs an adversarial fault and the mix has faithful kinds
// too, Search runs a second search, with the same seed, under
// the faithful kinds alone, with a budget of its own
// (SearchOptions.FaithfulChecks). A counterexample found there is the one
// returned, since it is a bug real clusters trigger; the adversarial one is
// kept apart in SearchResult.Adversarial.
func Search(sc Scenario, mix faults.Mix, opts SearchOptions) (*SearchResult, error) {
	p, err := prepare(sc, mix, runWrap(opts.Wrap))
	if err != nil {
		return nil, err
	}
	return p.Search(opts)
}

// Search is Search of the prepared scenario under its mix: every run and
// shrink step, and the second search of one bug, one finding, reuse what
// Prepare read.
func (p *Prepared) Search(opts SearchOptions) (*SearchResult, error) {
	searchMu.Lock()
	defer searchMu.Unlock()
	searchInit.Do(func() {
		testing.Init()
		if !flag.Parsed() {
			_ = flag.CommandLine.Parse(nil)
		}
	})
	if err := opts.Strategy.Validate(); err != nil {
		return nil, err
	}
	if opts.Checks < 0 || opts.FaithfulChecks < 0 {
		return nil, fmt.Errorf("checks must not be negative: Checks %d, FaithfulChecks %d", opts.Checks, opts.FaithfulChecks)
	}
	if opts.Test != nil {
		seed, err := testSeed(opts.Seed)
		if err != nil {
			return nil, err
		}
		opts.Seed = seed
	}
	if err := p.checkPlanRun(opts); err != nil {
		return nil, err
	}
	replay, err := newReplayer(p.shape.sc, opts)
	if err != nil {
		return nil, err
	}
	res, err := p.searchOnce(opts, replay.under(p.mix, false))
	if err == nil {
		replay.planned(res.Counterexample)
	}
	if err != nil || res.Counterexample == nil || res.Counterexample.Class != faults.Adversarial {
		return res, err
	}
	fp, err := p.faithfulOnly()
	if err != nil || fp == nil {
		return res, err
	}
	if opts.PlanRun > fp.PlannedRuns() {
		return res, nil
	}
	// The second search has a budget of its own: what the first search
	// left of Checks would be nothing when it failed late.
	faithful := opts
	if opts.FaithfulChecks > 0 {
		faithful.Checks = opts.FaithfulChecks
	}
	again, err := fp.searchOnce(faithful, replay.under(fp.mix, true))
	if err != nil {
		return nil, err
	}
	replay.planned(again.Counterexample)
	if again.Counterexample == nil {
		res.Counterexample.FaithfulRuns = again.Runs
		res.Runs += again.Runs
		return res, nil
	}
	again.Runs += res.Runs
	again.Adversarial = res.Counterexample
	again.Counterexample.Adversarial = res.Counterexample.Schedule
	return again, nil
}

// searchOnce is one search under opts.Strategy, which its searcher makes;
// searchMu is held. replay renders the replay line of a failing seed.
func (p *Prepared) searchOnce(opts SearchOptions, replay func(seed uint64) string) (*SearchResult, error) {
	impl, ok := opts.Strategy.impl()
	if !ok {
		return nil, opts.Strategy.Validate()
	}
	return impl.search(p, opts.Strategy, opts, replay)
}

// rapidSearch is one search by rapid's engine, the search of every
// rapidSearcher (random, PCT): rapid draws each run's schedule, inputs
// and choices (property), and shrinks the first failure; the faults the
// shrunk run does not need are then deleted. searchMu is held.
func (p *Prepared) rapidSearch(opts SearchOptions, replay func(seed uint64) string) (*SearchResult, error) {
	restore, err := setRapidFlags(opts)
	if err != nil {
		return nil, err
	}
	defer restore()

	sc := p.shape.sc
	var (
		runs      int
		made      int
		answered  bool
		failedYet bool
		minimal   *Outcome
		last      *Outcome
		choices   []int
		times     []model.Time
	)
	prog := newProgress(opts.Progress, sc.Name+"/"+p.mix.String())
	see := func(out *Outcome, ch []int) {
		if !answered {
			made++
		}
		answered = false
		if opts.observe != nil {
			opts.observe(out, ch)
		}
		prog.observed(out, ch)
		last = out
		if !failedYet {
			runs++
			if out.Converged {
				times = append(times, out.ConvergeTime)
			}
		}
		if out.Failure != nil {
			failedYet = true
			minimal, choices = out, ch
		}
	}
	prop := p.property(propConfig{logger: opts.Logger, strategy: opts.Strategy, timeout: opts.RunTimeout, noMemo: opts.noMemo, wrap: runWrap(opts.Wrap), memoAnswered: func() { answered = true; prog.answered() }, stopLoops: !opts.wholeLoops, observe: see})
	prop = prog.wrap(prop)
	tb := &captureTB{name: "converge/" + sc.Name + "/" + p.mix.String()}
	plan := p.plannedRuns(&opts)
	if len(plan) == 0 && opts.PlanRun == 0 {
		rapid.Check(tb, prop)
	} else {
		// Planned runs between rapid's (plan.go): rapid's own runs keep
		// their seeds, one Check each. A campaign's planned run is one
		// run of the plan alone (planrun.go).
		var planned *plannedFailure
		var err error
		if opts.PlanRun > 0 {
			planned, err = p.onePlanned(&opts, prog, see)
		} else {
			planned, err = p.interleave(tb, prop, plan, &opts, prog, see)
		}
		if err != nil {
			return nil, err
		}
		if planned != nil {
			res := &SearchResult{Runs: runs, ConvergeTimes: times}
			split, err := p.splitBundle(planned, &opts, prog, see)
			if err != nil {
				return nil, err
			}
			fr, ch, shrunk, deletions, err := p.deleteUnneeded(minimal, choices, opts)
			deletions += split
			if err != nil {
				return nil, err
			}
			if len(fr.schedule) > 0 && fr.out.Failure.Verdict != Hang {
				// Rapid shrinks the choices of its runs, and may find the
				// failure with no fault; a planned run's fault is tried
				// deleted with other choices, as a coverage run's are.
				var runs int
				fr, ch, runs, err = p.redrawDeletions(fr, ch, opts.Seed, opts)
				deletions += runs
				if err != nil {
					return nil, err
				}
			}
			var fewerRuns, budget int
			if len(fr.schedule) > 1 && fr.out.Failure.Verdict != Hang {
				// A bundle's failure that none of its faults makes alone
				// (splitBundle) and deletion kept whole goes through the
				// fewer-faults pass, as rapid's findings do.
				budget = fewerBudget(made+deletions, opts.fewerCap)
				opts.fewerCap = budget
				fr, ch, fewerRuns, err = p.targetedShrink(fr, ch, opts.Seed, opts, true)
				deletions += fewerRuns
				if err != nil {
					return nil, err
				}
			}
			res.Counterexample = p.counterexample(fr, ch, opts.Strategy, opts.Seed, replay(opts.Seed), shrunk, deletions)
			res.Counterexample.Planned = planned.n
			res.Counterexample.FewerRuns, res.Counterexample.FewerBudget = fewerRuns, budget
			return res, nil
		}
	}

	res := &SearchResult{Runs: runs, ConvergeTimes: times}
	if !tb.failed {
		res.Passed = last
		return res, nil
	}
	msg := strings.Join(tb.errors, "\n")
	switch {
	case strings.Contains(msg, "flaky test"):
		return nil, fmt.Errorf("scenario %s is nondeterministic: a re-run of the same seed failed differently (trap 6 in docs/design.md)\n%s", sc.Name, msg)
	case minimal == nil:
		return nil, fmt.Errorf("search of scenario %s failed outside the property: %s", sc.Name, msg)
	}
	seed := parseSeed(msg)
	if minimal.loopCut {
		// Made again in full, for its report and trace (docs/design.md,
		// "A loop that repeats stops"). Should it fail otherwise, a cut
		// was wrong, and the search is made again without cuts.
		full, diverged, err := p.replay(minimal.Schedule, choices, RunOptions{Logger: opts.Logger, Timeout: opts.RunTimeout, Inputs: minimal.Inputs, Wrap: runWrap(opts.Wrap)})
		if err != nil {
			return nil, err
		}
		if diverged || full.Failure == nil || full.Failure.Verdict != minimal.Failure.Verdict {
			restore()
			opts.wholeLoops = true
			return p.rapidSearch(opts, replay)
		}
		minimal = full
	}
	fr, choices, shrunk, deletions, err := p.deleteUnneeded(minimal, choices, opts)
	if err != nil {
		return nil, err
	}
	var fewerRuns, budget int
	if len(fr.schedule) > 1 && fr.out.Failure.Verdict != Hang && !opts.Strategy.PCT() {
		// Deletion keeps a fault when the failure needs it with the
		// others' parameters as drawn; a search under each kind alone
		// may find the same failure with one fault (docs/design.md,
		// "Faults rapid cannot delete").
		var runs int
		budget = fewerBudget(made+deletions, opts.fewerCap)
		opts.fewerCap = budget

		fr, choices, runs, err = p.targetedShrink(fr, choices, seed, opts, true)
		deletions += runs
		fewerRuns = runs
		if err != nil {
			return nil, err
		}
	}
	res.Counterexample = p.counterexample(fr, choices, opts.Strategy, seed, replay(seed), shrunk, deletions)
	res.Counterexample.FewerRuns, res.Counterexample.FewerBudget = fewerRuns, budget
	return res, nil
}

// deleteUnneeded is what every strategy's failing run goes through after
// the strategy's own shrinking, if any: the faults that never struck go
// (struckOnly), then every fault the failure does not need
// (deleteFaults). A hang is left as it is: each of its runs costs the
// time limit. It returns the run, its choices, the schedule before
// deletion and the runs deletion made.
func (p *Prepared) deleteUnneeded(minimal *Outcome, choices []int, opts SearchOptions) (fr failingRun, _ []int, shrunk faults.Schedule, deletions int, err error) {
	shrunk, _ = p.struckOnly(minimal, choices, opts)
	fr = failingRun{out: minimal, schedule: shrunk}
	if minimal.Failure.Verdict != Hang {
		if fr, deletions, err = p.deleteFaults(fr, choices, opts); err != nil {
			return fr, choices, shrunk, deletions, err
		}
	}
	if fr.decisions != nil {
		choices = choicesOf(fr.decisions)
	}
	return fr, choices, shrunk, deletions, nil
}

// counterexample is the finding of a search under strategy from seed: the
// minimal failing run fr with its choices, the schedule rapid (or the
// coverage search) shrank it to before deletion, and the runs deletion took.
func (p *Prepared) counterexample(fr failingRun, choices []int, strategy Strategy, seed uint64, replay string, shrunk faults.Schedule, deletions int) *Counterexample {
	return &Counterexample{
		Scenario:     p.shape.sc.Name,
		Faults:       p.mix,
		Strategy:     strategy,
		Seed:         seed,
		Failure:      fr.out.Failure,
		Schedule:     fr.schedule,
		Inputs:       fr.out.Inputs,
		Choices:      choices,
		Steps:        fr.out.Cluster.Steps(),
		Trace:        fr.out.Cluster.Trace(),
		Replay:       replay,
		Class:        fr.out.Schedule.Class(),
		Shrunk:       shrunk,
		DeletionRuns: deletions,
		minimal:      fr.out,
	}
}

// struckOnly drops from a failing run's schedule the faults that never
// struck (the violation came first, or quiescence did): they are no part of
// the counterexample. The trimmed schedule is kept only if it replays the
// same trace; otherwise the schedule stays whole. replayed says it took a
// replay to tell.
func (p *Prepared) struckOnly(minimal *Outcome, choices []int, opts SearchOptions) (_ faults.Schedule, replayed bool) {
	struck := minimal.Struck()
	if len(struck) == len(minimal.Schedule) {
		return minimal.Schedule, false
	}
	out, diverged, err := p.replay(struck, choices, RunOptions{Inputs: minimal.Inputs, Wrap: runWrap(opts.Wrap)})
	if err != nil || diverged || out.Cluster.Trace().Hash() != minimal.Cluster.Trace().Hash() {
		return minimal.Schedule, true
	}
	return struck, true
}

// setRapidFlags sets rapid's flags for one search and returns a function
// that restores them.
func setRapidFlags(opts SearchOptions) (func(), error) {
	// Shrinking runs to its fixed point with no time limit: rapid stops
	// shrinking at -rapid.shrinktime (30 s by default), so on a loaded
	// machine the same seed would shrink to a larger counterexample.
	// In a Go test, a limit set on the command line is the user's, and
	// stays (docs/design.md, "Reproducible shrinking").
	want := map[string]string{"rapid.nofailfile": "true", "rapid.seed": strconv.FormatUint(opts.Seed, 10)}
	switch {
	case opts.ShrinkTime > 0:
		want[shrinkTimeFlag] = opts.ShrinkTime.String()
	case opts.Test == nil || !shrinkTimeSet(os.Args[1:]):
		want[shrinkTimeFlag] = unlimitedShrink
	}
	if opts.Checks > 0 {
		want["rapid.checks"] = strconv.Itoa(opts.Checks)
	}
	saved := map[string]string{}
	for name, v := range want {
		f := flag.Lookup(name)
		if f == nil {
			return nil, fmt.Errorf("rapid flag -%s is not registered", name)
		}
		saved[name] = f.Value.String()
		if err := flag.Set(name, v); err != nil {
			return nil, err
		}
	}
	return func() {
		for name, v := range saved {
			_ = flag.Set(name, v)
		}
	}, nil
}

// shrinkTimeFlag is rapid's flag for its shrinking time limit.
const shrinkTimeFlag = "rapid.shrinktime"

// shrinkTimeSet reports whether args (up to "--") set -rapid.shrinktime,
// as -rapid.shrinktime=D, --rapid.shrinktime=D or -rapid.shrinktime D.
func shrinkTimeSet(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if !strings.HasPrefix(a, "-") {
			continue
		}
		name, _, _ := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-"), "=")
		if name == shrinkTimeFlag {
			return true
		}
	}
	return false
}

// unlimitedShrink is the shrink time limit Search gives rapid: long enough
// never to be reached, so that the shrunk counterexample depends on the
// seed alone. A run that hangs is fuzzrun's -run-timeout to catch.
const unlimitedShrink = "8760h"

var seedPattern = regexp.MustCompile(`-rapid\.seed=(\d+)`)

// parseSeed reads the failing seed from rapid's report.
func parseSeed(msg string) uint64 {
	m := seedPattern.FindStringSubmatch(msg)
	if m == nil {
		return 0
	}
	seed, _ := strconv.ParseUint(m[1], 10, 64)
	return seed
}

// captureTB is the rapid.TB a search hands to rapid.Check: it keeps the
// failure messages instead of failing a test.
type captureTB struct {
	name   string
	failed bool
	errors []string
}

var _ rapid.TB = (*captureTB)(nil)

func (c *captureTB) Helper()             {}
func (c *captureTB) Name() string        { return c.name }
func (c *captureTB) Logf(string, ...any) {}
func (c *captureTB) Log(...any)          {}
func (c *captureTB) Skipf(format string, args ...any) {
	c.Errorf("skipped: "+format, args...)
}
func (c *captureTB) Skip(args ...any) { c.Error(append([]any{"skipped: "}, args...)...) }
func (c *captureTB) SkipNow()         { c.Error("skipped") }
func (c *captureTB) Errorf(format string, args ...any) {
	c.failed = true
	c.errors = append(c.errors, fmt.Sprintf(format, args...))
}
func (c *captureTB) Error(args ...any) {
	c.failed = true
	c.errors = append(c.errors, fmt.Sprint(args...))
}
func (c *captureTB) Fatalf(format string, args ...any) { c.Errorf(format, args...) }
func (c *captureTB) Fatal(args ...any)                 { c.Error(args...) }
func (c *captureTB) FailNow()                          { c.failed = true }
func (c *captureTB) Fail()                             { c.failed = true }
func (c *captureTB) Failed() bool                      { return c.failed }
