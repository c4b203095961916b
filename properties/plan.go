package properties

import (
	"flag"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
	"pgregory.net/rapid"
)

// Faults planned from the reference run (docs/design.md, "Faults planned
// from the reference run"). Prepare's fault-free dry run records its
// landmarks: the controllers' writes and the reconciles they belong to,
// the events their informers were told of, the children they made. From
// them, plannedSchedules builds single-fault schedules aimed at those
// moments, as Sieve and Acto perturb a reference trace where it matters,
// and the random strategy runs them between rapid's draws
// (interleave).

// landmarks are what the dry run did, in the order it did it.
type landmarks struct {
	// reconciles are the reconciles of the fault targets that wrote.
	reconciles []reconcileMark
	// writes are the fault targets' writes.
	writes []writeMark
	// events are the deliveries to the fault targets' informers.
	events []eventMark
	// children are the objects created with a controller owner reference.
	children []childMark
	// settle is the time of the controllers' last write.
	settle model.Time
	// ticks are the times the fault targets reconciled, in order, each
	// once.
	ticks []model.Time
}

// reconcileMark is one reconcile that wrote: its time, its controller,
// how many writes it made, and how many writes of the controller came
// before it at the same time.
type reconcileMark struct {
	at         model.Time
	controller string
	writes     int
	sameTick   int
}

// writeMark is one write: its time, its controller, its verb and object,
// which reconcile of reconciles it belonged to, and its number among the
// controller's writes (from 1).
type writeMark struct {
	at         model.Time
	controller string
	verb       model.Verb
	object     model.Ref
	reconcile  int
	nth        int
}

// eventMark is one delivery to an informer of a controller.
type eventMark struct {
	at         model.Time
	controller string
	informer   string
}

// childMark is one object created with a controller owner reference.
type childMark struct {
	at     model.Time
	object model.Ref
}

// landmarksOf reads the landmarks of a dry run's trace; targets are the
// controllers faults may strike.
func landmarksOf(tr *model.Trace, targets []faults.Target, settle model.Time) *landmarks {
	aimed := map[string]bool{}
	for _, t := range targets {
		aimed[t.Controller] = true
	}
	lm := &landmarks{settle: settle}
	nth := map[string]int{}
	lastTick := map[string]model.Time{}
	sameTick := map[string]int{}
	for _, r := range tr.Records {
		if r.Kind == model.ActDeliver && aimed[r.Actor] && r.Informer != "" && !r.Replay {
			lm.events = append(lm.events, eventMark{at: r.Time, controller: r.Actor, informer: r.Informer})
		}
		if r.Kind == model.ActReconcile && aimed[r.Actor] && (len(lm.ticks) == 0 || lm.ticks[len(lm.ticks)-1] != r.Time) {
			lm.ticks = append(lm.ticks, r.Time)
		}
		own := 0
		for _, w := range r.Writes {
			if w.Verb == model.VerbCreate && w.New != nil {
				if _, ok := w.New.ControllerRef(); ok {
					lm.children = append(lm.children, childMark{at: r.Time, object: w.Ref()})
				}
			}
			if !aimed[w.Caller] {
				continue
			}
			if lastTick[w.Caller] != r.Time || nth[w.Caller] == 0 {
				lastTick[w.Caller], sameTick[w.Caller] = r.Time, 0
			}
			if own == 0 && r.Kind == model.ActReconcile {
				lm.reconciles = append(lm.reconciles, reconcileMark{at: r.Time, controller: w.Caller, sameTick: sameTick[w.Caller]})
			}
			own++
			nth[w.Caller]++
			sameTick[w.Caller]++
			rec := -1
			if r.Kind == model.ActReconcile {
				rec = len(lm.reconciles) - 1
				lm.reconciles[rec].writes++
			}
			lm.writes = append(lm.writes, writeMark{at: r.Time, controller: w.Caller, verb: w.Verb, object: w.Ref(), reconcile: rec, nth: nth[w.Caller]})
		}
	}
	return lm
}

// childOfTick says a child of kind kind was made at tick at.
func (lm *landmarks) childOfTick(kind string, at model.Time) bool {
	return slices.ContainsFunc(lm.children, func(c childMark) bool { return c.object.Kind == kind && c.at == at })
}

// maxPlanned bounds the schedules planned for one kind: the first
// landmarks matter most, and the plan shares the search's runs.
const maxPlanned = 24

// plannedSchedules is the plan of single-fault schedules for mix, read
// off the landmarks, within the budget b and topology topo: per kind, the
// faults its landmarks call for in time order (plannedFor); then one
// schedule per kind in turn, faithful kinds first, so that each kind gets
// its first landmarks early. seed permutes the kinds within each round,
// so that seeds differ; the same seed gives the same plan.
func plannedSchedules(lm *landmarks, mix faults.Mix, topo faults.Topology, b faults.Budget, seed uint64) []faults.Schedule {
	var out []faults.Schedule
	for _, round := range planRounds(lm, mix, topo, b, seed) {
		out = append(out, round...)
	}
	return out
}

// planRounds is plannedSchedules by round: one schedule of each kind
// that has one left.
func planRounds(lm *landmarks, mix faults.Mix, topo faults.Topology, b faults.Budget, seed uint64) [][]faults.Schedule {
	if lm == nil {
		return nil
	}
	faithful, adversarial := mix.Split()
	var perKind [][]faults.Schedule
	nFaithful := 0
	for i, k := range append(slices.Clone(faithful), adversarial...) {
		var list []faults.Schedule
		seen := map[any]bool{}
		for _, tf := range plannedFor(k, lm, topo, b) {
			s := faults.Schedule{tf}
			key := planKey(tf)
			if seen[key] || s.Fits(mix, topo, b) != nil {
				continue
			}
			seen[key] = true
			list = append(list, s)
			if len(list) == maxPlanned {
				break
			}
		}
		if len(list) > 0 {
			perKind = append(perKind, list)
			if i < len(faithful) {
				nFaithful++
			}
		}
	}
	rng := rand.New(rand.NewPCG(seed, 0x706c616e)) // "plan"
	var out [][]faults.Schedule
	for round := 0; ; round++ {
		order := make([]int, 0, len(perKind))
		// Faithful kinds first, each part in an order the seed draws.
		f := rng.Perm(nFaithful)
		a := rng.Perm(len(perKind) - nFaithful)
		order = append(order, f...)
		for _, i := range a {
			order = append(order, nFaithful+i)
		}
		var this []faults.Schedule
		for _, i := range order {
			if round < len(perKind[i]) {
				this = append(this, perKind[i][round])
			}
		}
		if len(this) == 0 {
			return out
		}
		out = append(out, this)
	}
}

// editKey is an edit's planKey: an edit target holds a slice.
type editKey struct {
	at              model.Time
	resource, path  string
	owned, recreate bool
	pick, choice    int
	value           int64
}

// planKey tells planned faults apart: the timed fault itself, which is
// comparable for every kind but an edit.
func planKey(t faults.Timed) any {
	if e, ok := t.Fault.(faults.Edit); ok {
		return editKey{at: t.At, resource: e.Target.Resource, path: e.Target.Path, owned: e.Target.Owned, recreate: e.Target.Recreate, pick: e.Pick, choice: e.Choice, value: e.Value}
	}
	return t
}

// plannedFor is the faults of kind k the landmarks call for, earlier
// landmarks first (edits: the last first), before deduplication and the
// budget's check.
func plannedFor(k faults.Kind, lm *landmarks, topo faults.Topology, b faults.Budget) []faults.Timed {
	down := b.MaxDown
	var out []faults.Timed
	add := func(at model.Time, f faults.Fault) { out = append(out, faults.Timed{At: at, Fault: f}) }
	switch k {
	case faults.KindAPIError:
		// The writes of one reconcile fail, each error kind in turn; the
		// count takes in the controller's writes earlier in the same
		// tick, which the fault, armed at the tick, meets first.
		for _, r := range lm.reconciles {
			n := min(r.sameTick+r.writes, b.MaxFailures)
			for _, e := range faults.ErrorKinds() {
				add(r.at, faults.APIError{Controller: r.controller, Error: e, Count: max(1, n)})
			}
		}
	case faults.KindPartition:
		for _, w := range lm.writes {
			add(w.at, faults.Partition{Controller: w.controller, For: down})
		}
	case faults.KindRestart:
		// A crash right after the controller's 1st or 2nd write of a
		// tick (between a reconcile's writes, or between a reconcile and
		// the next), and one at each write's tick.
		for _, w := range lm.writes {
			k := w.nth
			for _, e := range lm.writes {
				if e.controller == w.controller && e.at < w.at {
					k--
				}
			}
			if k >= 1 && k <= 2 {
				add(w.at, faults.Restart{Controller: w.controller, Down: 1, AfterWrites: k})
			}
			add(w.at, faults.Restart{Controller: w.controller, Down: 1})
		}
	case faults.KindDelay, faults.KindDrop, faults.KindDuplicate, faults.KindExpire, faults.KindStale:
		if k == faults.KindDelay {
			// First the events of a child a tick after it was made: a
			// reconcile that does not see its own child makes it again
			// (the cronjob example's second Job; docs/design.md,
			// "Ordering the plan").
			for _, e := range lm.events {
				if lm.childOfTick(e.informer, e.at-1) {
					add(e.at, faults.Delay{Controller: e.controller, Resource: e.informer, For: down})
				}
			}
		}
		for _, e := range lm.events {
			var f faults.Fault
			switch k {
			case faults.KindDelay:
				f = faults.Delay{Controller: e.controller, Resource: e.informer, For: down}
			case faults.KindDrop:
				f = faults.Drop{Controller: e.controller, Resource: e.informer}
			case faults.KindDuplicate:
				f = faults.Duplicate{Controller: e.controller, Resource: e.informer}
			case faults.KindExpire:
				f = faults.Expire{Controller: e.controller, Resource: e.informer}
			case faults.KindStale:
				// As far behind as a lag goes first (below).
				f = faults.Stale{Controller: e.controller, Resource: e.informer, Behind: 5, For: down}
			}
			add(e.at, f)
		}
		if k == faults.KindStale {
			for _, e := range lm.events {
				add(e.at, faults.Stale{Controller: e.controller, Resource: e.informer, Behind: 1, For: down})
			}
		}
	case faults.KindEdit:
		// An object deleted or edited once the work of a tick where a
		// controller reconciled is done (the children made in it exist
		// then), and a tick later, past the timers of that tick: the last
		// tick first, where nothing the controllers still have queued
		// repairs it, then the others, each object in turn.
		var ticks []model.Time
		for i := len(lm.ticks) - 1; i >= 0; i-- {
			ticks = append(ticks, lm.ticks[i]+1, lm.ticks[i])
		}
		for pick := range min(max(len(lm.children), 1), 8) {
			for _, at := range ticks {
				for _, t := range topo.Edits {
					switch {
					case t.Owned, t.Path == "":
						add(at, faults.Edit{Target: t, Pick: pick})
					case pick == 0:
						add(at, faults.Edit{Target: t, Value: t.Min})
						if t.Max != t.Min {
							add(at, faults.Edit{Target: t, Value: t.Max})
						}
					}
				}
			}
		}
	case faults.KindTimeTravel:
		// As far back as the history goes, then back to each landmark of
		// it, the farthest first, once the controllers settled; then one
		// version back at each write's time.
		for _, t := range topo.Targets {
			if n := len(lm.writes); n > 0 {
				add(lm.settle, faults.TimeTravel{Controller: t.Controller, Behind: uint64(n), Down: 1})
			}
			for l := 10; l >= 1; l-- {
				add(lm.settle, faults.TimeTravel{Controller: t.Controller, Landmark: l, Down: 1})
			}
		}
		for _, w := range lm.writes {
			add(w.at, faults.TimeTravel{Controller: w.controller, Behind: 1, Down: 1})
		}
	}
	return out
}

// plannedFailure is the planned run that failed: its number in the
// plan, from 1, and the run.
type plannedFailure struct {
	n   int
	run plannedRun
}

// plannedRun is one run of the plan: a schedule, and whether the choices
// its fault's strike does not make are drawn (planChooser.rng) or 0.
type plannedRun struct {
	sched faults.Schedule
	draws bool
	// round is the plan's round the schedule belongs to, from 0.
	round int
	// key seeds the run's draws: its number in the plan (from 1) as if
	// the first pass bundled nothing, so that bundling moves the drawn
	// runs earlier without changing what they draw.
	key int
}

// plannedShare is the most of a search's runs the plan takes: one in
// plannedShare.
const plannedShare = 2

// plannedChecks is the runs of a random search with opts: Checks, or
// rapid's setting, of which rapid runs a fifth under -short.
func plannedChecks(opts *SearchOptions) int {
	checks := opts.Checks
	if checks == 0 {
		checks = rapidChecks()
	}
	if testing.Short() {
		checks /= 5
	}
	return checks
}

// plannedRuns is the plan of a random search with opts: none for
// another strategy, a search of one run (fuzzrun's), a mix without
// faults, a scenario with inputs (its planned runs would have none), or
// a scenario not measured by a dry run. Its first schedules come first,
// at most half the search's runs. A search without a seed gets one here,
// as rapid would draw one, since the seed orders the plan.
func (p *Prepared) plannedRuns(opts *SearchOptions) []plannedRun {
	if opts.Strategy.Name != "" && opts.Strategy.Name != StrategyRandom {
		return nil
	}
	checks := plannedChecks(opts)
	if checks < 2 || opts.NoPlan || !p.plannable() {
		return nil
	}
	if opts.Seed == 0 {
		opts.Seed = rand.Uint64() | 1
	}
	plan := p.wholePlan(opts.Seed)
	return plan[:min(len(plan), checks/plannedShare)]
}

// interleave runs a search's rapid runs and its planned runs where
// planSlots puts them, rapid's first: rapid's r-th run is a Check of one run from the seed
// rapid would give its r-th run in a Check of them all (seed + r(r+1)/2),
// so that its runs, and what it shrinks, are the same as without the
// plan. A planned run's choices are 0, the settle-first schedule of the
// dry run its faults were read off, or drawn (plannedRun.draws). It
// stops at the first failure:
// rapid's, shrunk, is left in tb for the caller; a planned run's is
// returned, already seen by see.
func (p *Prepared) interleave(tb *captureTB, prop func(*rapid.T), plan []plannedRun, opts *SearchOptions, prog *progress, see func(*Outcome, []int)) (*plannedFailure, error) {
	checks := plannedChecks(opts)
	// The flags are the search's to restore (setRapidFlags saves only
	// those it sets).
	for _, name := range []string{"rapid.checks", "rapid.seed"} {
		if f := flag.Lookup(name); f != nil {
			saved := f.Value.String()
			defer func() { _ = flag.Set(name, saved) }()
		}
	}
	per := "1"
	if testing.Short() {
		per = "5" // rapid runs a fifth of its checks under -short
	}
	if err := flag.Set("rapid.checks", per); err != nil {
		return nil, err
	}
	rapidRuns, planned := 0, 0
	slots := planSlots(checks, plan)
	for slot := range checks {
		if slots[slot] {
			planned++
			failed, err := p.runPlanned(plan[planned-1], planned, opts, prog, see)
			if err != nil || failed != nil {
				return failed, err
			}
			if n := prog.runs; prog.w != nil && n >= firstProgressLine && n&(n-1) == 0 {
				prog.line()
			}
			continue
		}
		r := uint64(rapidRuns)
		rapidRuns++
		if err := flag.Set("rapid.seed", strconv.FormatUint(opts.Seed+r*(r+1)/2, 10)); err != nil {
			return nil, err
		}
		rapid.Check(tb, prop)
		if tb.failed {
			return nil, nil
		}
	}
	return nil, nil
}

// runPlanned makes run, the k-th run of the plan (from 1), and sees it:
// a search's interleave and a campaign's one planned run (onePlanned)
// make it alike, with the same draws. It returns the failure, if the run
// failed.
func (p *Prepared) runPlanned(run plannedRun, k int, opts *SearchOptions, prog *progress, see func(*Outcome, []int)) (*plannedFailure, error) {
	ch := &planChooser{}
	if run.draws {
		ch.rng = rand.New(rand.NewPCG(opts.Seed, 1<<41+uint64(run.key)))
	}
	prog.runs++
	out, err := p.execute(run.sched, ch, RunOptions{Logger: opts.Logger, Timeout: opts.RunTimeout, Wrap: runWrap(opts.Wrap)})
	if err != nil {
		return nil, err
	}
	see(out, ch.log)
	if out.Failure != nil {
		return &plannedFailure{n: k, run: run}, nil
	}
	return nil, nil
}

// plannedRounds makes each round of the plan (a schedule of each kind)
// twice: with every choice past the strike 0, the reference
// run's, then drawn. A bug in an interleaving the settle-first schedule
// does not take (the cronjob example's second Job for one run) needs the
// draws; one the fault's moment alone exposes is found in the first.
// The first round, when it has more than one kind, is drawn
// firstRoundDraws times, each time with other draws (docs/design.md,
// "Ordering the plan"): under a whole mix, a kind's first landmark is
// the one most likely to matter, and a bug that needs it and one
// interleaving in ten or three is missed by a single draw. Its delay is
// then drawn delayDraws times more. The first round's first pass runs
// its kinds two a run when maxFaults allows (bundled).
func plannedRounds(rounds [][]faults.Schedule, maxFaults int) []plannedRun {
	var out []plannedRun
	n := 0 // the runs before, as if nothing were bundled
	add := func(s faults.Schedule, draws bool, r int) {
		n++
		out = append(out, plannedRun{sched: s, draws: draws, round: r, key: n})
	}
	for r, round := range rounds {
		draws := 1
		if r == 0 && len(round) > 1 {
			draws = firstRoundDraws
		}
		for pass := range 1 + draws {
			if r == 0 && pass == 0 {
				for _, s := range bundled(round, maxFaults) {
					out = append(out, plannedRun{sched: s, round: r, key: n + 1})
					n += len(s)
				}
				continue
			}
			for _, s := range round {
				add(s, pass > 0, r)
			}
		}
		if r == 0 && len(round) > 1 {
			for _, s := range round {
				if len(s) > 0 && s[0].Fault.Kind() == faults.KindDelay {
					for range delayDraws {
						add(s, true, r)
					}
				}
			}
		}
	}
	return out
}

// bundled is the first pass of the plan's first round: its schedules,
// in order, joined bundleWidth at a time into one schedule of as many
// faults, each at its own landmark, when the budget allows that many
// (docs/design.md, "Ordering the plan"). Only schedules of one class
// are joined: a faithful fault beside an adversarial one would make
// its run adversarial. A bug one kind's first landmark exposes is then
// found within the pass's length of runs, about the kinds' number over
// bundleWidth, not the kinds' number; a bundle that fails is split
// (splitBundle), so the finding keeps the one fault it needs.
func bundled(round []faults.Schedule, maxFaults int) []faults.Schedule {
	width := min(bundleWidth, maxFaults)
	var out []faults.Schedule
	for i := 0; i < len(round); {
		s := slices.Clone(round[i])
		j := i + 1
		for ; j < len(round) && j-i < width && round[j].Class() == round[i].Class(); j++ {
			s = append(s, round[j]...)
		}
		out = append(out, s)
		i = j
	}
	return out
}

// bundleWidth is how many kinds' first schedules one run of the first
// pass joins.
const bundleWidth = 2

// firstRoundDraws is how many times a first round of several kinds is
// run with its choices drawn. 3 found the cronjob example from 6 seeds of
// 20 and 5 from 7, against 3 with 1, and 5 leaves the whole mix's plan of
// 100 runs no room for a second round (BENCHMARKS.md, "Ordering the
// plan").
const firstRoundDraws = 3

// delayDraws is how many more times a first round's delay is drawn, at
// the round's end. The delay planned first is a child's late event
// (plannedFor), and the reconcile that then misses the child needs an
// interleaving about one draw in ten takes (the cronjob example's second
// Job): 10 more draws found the controller-runtime cronjob class from 19
// seeds of 20, against 11 without (BENCHMARKS.md, "Ordering the plan").
const delayDraws = 10

// planSlots says which of a search's checks runs are planned: rapid's
// first run, then the first pass of the plan's first round (its kinds
// two a run, bundled), back to back, then rapid's runs and the rest of
// the plan in turn (docs/design.md, "Ordering the plan"). A bug one kind's first
// landmark exposes is then found within the first round's length of
// runs, whichever place the seed gives its kind, not twice that.
func planSlots(checks int, plan []plannedRun) []bool {
	slots := make([]bool, checks)
	planned, slot := 0, 1
	for ; slot < checks && planned < len(plan) && plan[planned].round == 0 && !plan[planned].draws; slot++ {
		slots[slot] = true
		planned++
	}
	for slot++; slot < checks && planned < len(plan); slot += plannedShare {
		slots[slot] = true
		planned++
	}
	return slots
}

// splitBundle runs each fault of a failed bundle (bundled) alone, as
// the first pass's run of its kind would have been, and stops at the
// first that fails, which see then holds as the failing run: a bug one
// kind exposes is reported with that kind's fault alone, not beside a
// fault deletion cannot cut from the pair's run (docs/design.md,
// "Ordering the plan"). It returns the runs it made; none for a run of
// one fault.
func (p *Prepared) splitBundle(failed *plannedFailure, opts *SearchOptions, prog *progress, see func(*Outcome, []int)) (int, error) {
	if failed.run.draws || len(failed.run.sched) < 2 {
		return 0, nil
	}
	for i, t := range failed.run.sched {
		alone := plannedRun{sched: faults.Schedule{t}, round: failed.run.round}
		f, err := p.runPlanned(alone, failed.n, opts, prog, see)
		if err != nil || f != nil {
			return i + 1, err
		}
	}
	return len(failed.run.sched), nil
}

// planChooser makes a planned run: its fault strikes at the start of its
// tick, before the work the cluster owes then (the reference run's
// writes and events of that tick), and every other choice is 0, the
// settle-first schedule of the reference run. An edit or a time travel
// strikes once the tick's work is done instead (afterTheTick).
// It records its choices as a rapid chooser would, so that Replay makes
// the run again.
type planChooser struct {
	log []int
	// rng, when set, draws the choices the fault's strike does not make,
	// as the coverage strategy's runs do (0 half the time).
	rng *rand.Rand
}

func (c *planChooser) Choose(n int, _ string) int {
	v := c.draw(n)
	c.log = append(c.log, v)
	return v
}

// draw is a choice among n the strike does not make.
func (c *planChooser) draw(n int) int {
	if c.rng == nil || n <= 1 || c.rng.IntN(2) == 0 {
		return 0
	}
	return 1 + c.rng.IntN(n-1)
}

func (c *planChooser) chooseStep(r *runner, n int, busy bool) int {
	if n <= 1 {
		return 0
	}
	v := -1
	if busy && strikesNow(r) {
		if i := slices.IndexFunc(r.acts, func(a model.Action) bool { return a.Kind == model.ActTimer }); i >= 0 {
			v = i + 1
		}
	}
	if v < 0 {
		v = c.draw(n)
	}
	c.log = append(c.log, v)
	return v
}

// afterTheTick says a planned fault of kind k strikes once the work of
// its tick is done: an edit, whose children are made in the tick, and a
// time travel, whose history is.
func afterTheTick(k faults.Kind) bool { return k == faults.KindEdit || k == faults.KindTimeTravel }

// strikesNow says a fault of the run's schedule that strikes at the start
// of its tick is due and has not struck.
func strikesNow(r *runner) bool {
	for i, t := range r.faultTimers {
		if t.Fired() || t.At > r.c.Now() {
			continue
		}
		if s := r.sched.Sorted(); i < len(s) && !afterTheTick(s[i].Fault.Kind()) {
			return true
		}
	}
	return false
}
