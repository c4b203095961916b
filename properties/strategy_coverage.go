package properties

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
)

// Coverage-guided search (StrategyCoverage; docs/design.md,
// "Coverage-guided search"). A run is a schedule, the inputs of a
// scenario that has them, and a prefix of choices; past the prefix, its
// choices come from a PRNG seeded by the search's seed and the run's
// number, with rapid's distribution (drawChoice: 0, settle, half the
// time). A run that reaches coverage no run before it reached is kept in
// the corpus with the choices it made; a later run either draws afresh or
// mutates a corpus entry. Everything is a function of the seed and the
// runs before, so one seed gives one search, and a corpus shared by the
// seeds of a fuzzrun worker gives one campaign per seed order.
//
// A failing run is shrunk as rapid's counterexamples are after rapid is
// done (struckOnly, then deleteFaults): the faults it does not need are
// deleted, so its schedule is 1-minimal under deletion. Since rapid never
// shrank it, two more passes search for smaller schedules as rapid's
// shrinking does (redrawDeletions, targetedShrink).

// coverageStrategy is StrategyCoverage: coverageSearch, outside rapid.
type coverageStrategy struct{}

func (coverageStrategy) validate(s Strategy) error { return noDepth(s) }
func (coverageStrategy) describe(Strategy) string  { return StrategyCoverage }
func (coverageStrategy) replayFlags(Strategy) string {
	return "-strategy " + StrategyCoverage
}
func (coverageStrategy) seeded() bool      { return true }
func (coverageStrategy) keepsCorpus() bool { return true }

func (coverageStrategy) search(p *Prepared, _ Strategy, opts SearchOptions, replay func(uint64) string) (*SearchResult, error) {
	return p.coverageSearch(opts, replay)
}

// Corpus is the memory of the coverage-guided strategy: per fault mix,
// the coverage seen so far and the runs that first reached some of it.
// A Corpus is used by one search at a time, as Search serializes
// searches.
type Corpus struct {
	mixes map[string]*corpus
	// fingerprints makes coverage the state fingerprints the fault phase
	// reached (model.Cluster.Fingerprint) instead of the trace's edges:
	// the alternative docs/design.md measures, for tests.
	fingerprints bool
	// fresh draws every run afresh and keeps nothing: the search without
	// feedback, for tests.
	fresh bool
	// limit is the most entries each mix keeps (MaxCorpusEntries).
	limit int
}

// MaxCorpusEntries is the most runs a Corpus keeps under one mix
// (docs/design.md, "Coverage-guided search": the corpus's bound). Past
// it, each run kept evicts one: the oldest whose every feature another
// entry also reached, or, when each has a feature of its own, the oldest.
// The features seen stay seen, so an evicted run's coverage is not new
// again.
const MaxCorpusEntries = 64

// NewCorpus returns an empty corpus, bounded by MaxCorpusEntries per mix.
func NewCorpus() *Corpus { return &Corpus{mixes: map[string]*corpus{}, limit: MaxCorpusEntries} }

// NewBoundedCorpus returns an empty corpus that keeps at most limit runs
// per mix, evicting as NewCorpus's does; zero keeps every run that
// reached new coverage, as corpora did before the bound.
func NewBoundedCorpus(limit int) (*Corpus, error) {
	if limit < 0 {
		return nil, fmt.Errorf("corpus limit %d: must not be negative (0: no limit)", limit)
	}
	return &Corpus{mixes: map[string]*corpus{}, limit: limit}, nil
}

// Evicted returns the number of runs evicted to keep the bound, over
// every mix.
func (c *Corpus) Evicted() int {
	n := 0
	for _, m := range c.mixes {
		n += m.evicted
	}
	return n
}

// Len returns the number of runs kept, over every mix.
func (c *Corpus) Len() int {
	n := 0
	for _, m := range c.mixes {
		n += len(m.entries)
	}
	return n
}

// Features returns the number of coverage features seen, over every mix.
func (c *Corpus) Features() int {
	n := 0
	for _, m := range c.mixes {
		n += len(m.seen)
	}
	return n
}

func (c *Corpus) of(mix faults.Mix) *corpus {
	key := mix.String()
	m := c.mixes[key]
	if m == nil {
		m = &corpus{seen: map[uint64]bool{}, fresh: c.fresh, limit: c.limit, holders: map[uint64]int{}}
		c.mixes[key] = m
	}
	return m
}

// corpus is a Corpus under one mix.
type corpus struct {
	seen    map[uint64]bool
	entries []coverageRun
	fresh   bool
	// limit bounds len(entries); zero for none.
	limit int
	// holders counts, for each feature, the entries that reached it.
	holders map[uint64]int
	// evicted counts the entries evicted to keep the bound.
	evicted int
}

// freshShare is the share of runs drawn afresh once the corpus has
// entries: one in freshShare.
const freshShare = 2

// coverageRun is one run's input: a schedule, inputs, and the prefix of
// choices it replays before drawing its own. A corpus entry is a run that
// reached new coverage, with every choice it made: it replays that run.
type coverageRun struct {
	sched   faults.Schedule
	inputs  Transitions
	choices []int
	// mutant says the run was a mutant of a corpus entry.
	mutant bool
	// features is the coverage an entry reached, for eviction.
	features []uint64
}

// coverageSearch is one search under StrategyCoverage.
func (p *Prepared) coverageSearch(opts SearchOptions, replay func(seed uint64) string) (*SearchResult, error) {
	checks := opts.Checks
	if checks == 0 {
		checks = rapidChecks()
	}
	seed := opts.Seed
	if seed == 0 {
		// As rapid does without a seed: one drawn at random, reported
		// with any finding. Only the search's own seed is random.
		seed = rand.Uint64() | 1
	}
	cp := opts.Corpus
	if cp == nil {
		cp = NewCorpus()
	}
	m := cp.of(p.mix)
	// A corpus handed in with runs in it was built by earlier searches
	// (a fuzzrun worker's seeds before this one): a run mutating it is not
	// made again by this search's seed alone.
	inherited := opts.Corpus != nil && len(m.entries) > 0
	prog := newProgress(opts.Progress, p.shape.sc.Name+"/"+p.mix.String())
	res := &SearchResult{}
	for i := range checks {
		rng := rand.New(rand.NewPCG(seed, uint64(i)))
		in := p.nextRun(m, rng)
		ch := &coverageChooser{prefix: in.choices, rng: rng, fingerprints: cp.fingerprints}
		out, err := p.execute(in.sched, ch, RunOptions{Logger: opts.Logger, Timeout: opts.RunTimeout, Inputs: in.inputs, Wrap: runWrap(opts.Wrap)})
		if err != nil {
			return nil, err
		}
		res.Runs++
		if opts.observe != nil {
			opts.observe(out, ch.log)
		}
		prog.runs++
		prog.observed(out, ch.log)
		if n := prog.runs; prog.w != nil && n >= firstProgressLine && n&(n-1) == 0 {
			prog.line()
		}
		if out.Failure != nil {
			cx, err := p.coverageCounterexample(out, ch.log, seed, opts, replay)
			if err != nil {
				return nil, err
			}
			if inherited {
				cx.Replay, cx.FromCorpus = "", true
			}
			res.Counterexample = cx
			return res, nil
		}
		if out.Converged {
			res.ConvergeTimes = append(res.ConvergeTimes, out.ConvergeTime)
		}
		res.Passed = out
		if features := ch.coverage(out); m.add(features) && !m.fresh {
			m.keep(coverageRun{sched: out.Schedule, inputs: out.Inputs, choices: slices.Clip(ch.log), mutant: in.mutant, features: features})
		}
	}
	return res, nil
}

// coverageCounterexample shrinks a failing run of the coverage-guided
// search as searchOnce shrinks what rapid found: the faults that never
// struck go, then every fault the failure does not need.
func (p *Prepared) coverageCounterexample(minimal *Outcome, choices []int, seed uint64, opts SearchOptions, replay func(seed uint64) string) (*Counterexample, error) {
	fr, choices, shrunk, deletions, err := p.deleteUnneeded(minimal, choices, opts)
	if err != nil {
		return nil, err
	}
	if minimal.Failure.Verdict != Hang {
		var runs int
		fr, choices, runs, err = p.redrawDeletions(fr, choices, seed, opts)
		deletions += runs
		if err != nil {
			return nil, err
		}
		fr, choices, runs, err = p.targetedShrink(fr, choices, seed, opts, false)
		deletions += runs
		if err != nil {
			return nil, err
		}
	}
	return p.counterexample(fr, choices, opts.Strategy, seed, replay(seed), shrunk, deletions), nil
}

// redrawTries is the number of runs redrawDeletions makes for each fault
// it tries deleting.
const redrawTries = 16

// redrawDeletions deletes more faults from a failing run than
// deleteFaults can: rapid, shrinking, searches the smaller schedules with
// fresh choices, which deleteFaults, following the run's own decisions,
// does not; a coverage-guided run, which rapid never saw, gets that
// search here. Each fault is tried deleted with redrawTries runs that
// replay a prefix of the run's choices, cut at a point drawn from the
// search's seed, and draw the rest; the first run that fails as the run
// did is adopted, and the pass starts over from it, down to no fault at
// all. It returns the run, its choices and the runs it made.
func (p *Prepared) redrawDeletions(fr failingRun, choices []int, seed uint64, opts SearchOptions) (failingRun, []int, int, error) {
	runs := 0
	want := fr.out.Failure
	stream := uint64(1) << 40
	for adopted := true; adopted && len(fr.schedule) > 0; {
		adopted = false
		for _, i := range deletionOrder(fr.schedule) {
			for try := range redrawTries {
				rng := rand.New(rand.NewPCG(seed, stream))
				stream++
				smaller := slices.Delete(slices.Clone(fr.schedule), i, i+1)
				if try >= redrawTries/2 && len(smaller) > 0 {
					// The other faults may need another time or other
					// parameters without this one, as rapid would try.
					smaller = p.nudge(smaller, rng)
				}
				// Half the tries make every choice past the cut 0, the
				// interleaving rapid's shrinking tends to; the others draw.
				prefix := choices
				if try > 0 {
					prefix = choices[:rng.IntN(len(choices)+1)]
				}
				ch := &coverageChooser{prefix: prefix, rng: rng, zeros: try%2 == 1}
				out, err := p.execute(smaller, ch, RunOptions{Logger: opts.Logger, Timeout: opts.RunTimeout, Inputs: fr.out.Inputs, Wrap: runWrap(opts.Wrap)})
				runs++
				if err != nil {
					return fr, choices, runs, err
				}
				if f := out.Failure; f != nil && f.Property == want.Property && f.Verdict == want.Verdict {
					sched, _ := p.struckOnly(out, ch.log, opts)
					fr, choices, adopted = failingRun{out: out, schedule: sched}, ch.log, true
					break
				}
			}
			if adopted {
				break
			}
		}
	}
	return fr, choices, runs, nil
}

// targetedChecks is the number of runs of each targeted search of
// targetedShrink.
const targetedChecks = 60

// fewerFloor is the least budget of the random strategy's pass for fewer
// faults than deletion leaves (fewerBudget): on the class benchmark, the
// pass cut every pair it cut with 1,000 runs in 470 at most (swallows-errors
// seed 19, whose partition alone fails after its own kinds and four
// others found nothing; BENCHMARKS.md, "The fewer-faults pass, bounded").
const fewerFloor = 500

// fewerBudget is the number of runs the random strategy's pass for fewer
// faults than deletion leaves may make, for a search that made spent runs
// to find its failure, shrink it and delete its faults: as many again, and
// at least fewerFloor, what the benchmark's pairs needed; at most limit, when it is positive (the part
// left of an enclosing pass's budget). A pass that finds nothing then
// costs at most what the search before it did, or the runs of one kind's
// search, whichever is more (docs/design.md, "Fewer faults than deletion
// leaves").
func fewerBudget(spent, limit int) int {
	b := max(spent, fewerFloor)
	if limit > 0 {
		b = min(b, limit)
	}
	return b
}

// targetedShrink looks, for a failing run with faults, for a smaller
// counterexample with the same property and verdict where rapid finds one
// fastest: a rapid search, from the same seed, under each kind of the
// run's schedule alone (the targeted mix, which finds each benchmark class
// in a few runs with one fault), shrunk by rapid. Its schedule fits the
// whole mix, and its choices replay it.
//
// The coverage-guided search (fewer false) adopts a counterexample with
// no more faults: rapid has shrunk each fault's parameters too (a time
// travel's distance, a restart's down time), which deletion does not, so
// that one bug found from many mutants has one shrunk schedule and is one
// finding (fuzzrun's key is the schedule's signature; a 10-minute
// campaign before this kept 667 files of one time-travel bug).
//
// The random search (fewer true) runs it only on a schedule deletion left
// with two faults or more, and searches for fewer faults outright: each
// search draws at most one fault less than fr has, so what it finds has
// fewer, and is adopted unless it is adversarial where fr is faithful. A
// pair deletion cannot cut is often one fault whose time or parameters
// the other stood in for (a Pod deleted at t=0 twice where once at t=51
// fails); rapid, searching and shrinking one kind alone, finds that one.
// The schedule's own faithful kinds are searched first, then one of its
// faults is tried alone at other times and for longer (oneMoved), then
// its own adversarial kinds and the mix's others, faithful before
// adversarial (the same property failing with the same verdict, as
// rapid's own shrinking accepts), so that an adversarial pair a faithful
// fault also fails becomes faithful. Each search makes targetedChecks
// runs; a search under one of the schedule's own kinds is aimed at the
// controllers and informers its faults of that kind aim at (ownTargets).
// A kind that is the whole mix is searched again too: at most one fault
// less, it is another search than the one that found fr. The pass stops
// when it has made opts.fewerCap runs (fewerBudget), a search cut short
// to what is left; with opts.Progress set, it writes a line before each
// turn and one at its end (docs/design.md, "Fewer faults than deletion
// leaves").
//
// It returns the run, its choices and the runs it made.
func (p *Prepared) targetedShrink(fr failingRun, choices []int, seed uint64, opts SearchOptions, fewer bool) (failingRun, []int, int, error) {
	if len(fr.schedule) == 0 {
		return fr, choices, 0, nil
	}
	want := fr.out.Failure
	var kinds faults.Mix
	for _, t := range fr.schedule {
		if k := t.Fault.Kind(); !slices.Contains(kinds, k) {
			kinds = append(kinds, k)
		}
	}
	slices.Sort(kinds)
	own := kinds
	budget := 0
	if fewer {
		faithful, adversarial := kinds.Split()
		rest := slices.DeleteFunc(slices.Clone(p.mix), func(k faults.Kind) bool { return slices.Contains(kinds, k) })
		slices.Sort(rest)
		restFaithful, restAdversarial := rest.Split()
		kinds = slices.Concat(faithful, adversarial, restFaithful, restAdversarial)
		budget = opts.fewerCap
		if budget <= 0 {
			budget = fewerBudget(0, 0)
		}
	}
	name := p.shape.sc.Name + "/" + p.mix.String()
	from := len(fr.schedule)
	runs := 0
	// In the search for fewer faults, the turn of one of the faults moved
	// (oneMoved) comes after the own faithful kinds', before the others'.
	const moveOne faults.Kind = ""
	if fewer {
		faithful, _ := own.Split()
		kinds = slices.Insert(kinds, len(faithful), moveOne)
	}
	for _, k := range kinds {
		if fewer && runs >= budget {
			break
		}
		if k == moveOne {
			limit := min(movedRuns, budget-runs)
			if opts.Progress != nil {
				_, _ = fmt.Fprintf(opts.Progress, "converge: %s: fewer faults than deletion leaves (%s): one of them moved, up to %d runs; %d of the pass's %d runs left\n",
					name, plural(len(fr.schedule), "fault"), limit, budget-runs, budget)
			}
			one, oneChoices, n, err := p.oneMoved(fr, seed, limit, opts)
			runs += n
			if err != nil {
				return fr, choices, runs, err
			}
			if one != nil {
				fr, choices = *one, oneChoices
				break
			}
			continue
		}
		var sub *Prepared
		var err error
		if fewer {
			sub, err = p.shape.underAtMost(faults.Mix{k}, len(fr.schedule)-1)
		} else {
			sub, err = p.shape.under(faults.Mix{k})
		}
		if err != nil {
			continue // a kind the topology cannot draw alone
		}
		checks := targetedChecks
		aim := ""
		if fewer && slices.Contains(own, k) {
			if targets := ownTargets(fr.schedule, k, sub.plan.Topology.Targets); targets != nil {
				sub.plan.Topology.Targets = targets
				sub.gen = faults.Schedules(sub.mix, sub.plan.Topology, sub.plan.Budget)
				aim = " aimed at " + targetNames(targets)
			}
		}
		o := SearchOptions{Checks: checks, Seed: seed, Logger: opts.Logger, RunTimeout: opts.RunTimeout, Wrap: opts.Wrap, ShrinkTime: opts.ShrinkTime, Test: opts.Test}
		if fewer {
			o.Checks = min(checks, budget-runs)
			o.fewerCap = budget - runs - o.Checks
			if o.fewerCap <= 0 {
				o.fewerCap = 1 // nothing left for a pass of its own
			}
			if opts.Progress != nil {
				_, _ = fmt.Fprintf(opts.Progress, "converge: %s: fewer faults than deletion leaves (%s): under %s%s, %d runs; %d of the pass's %d runs left\n",
					name, plural(len(fr.schedule), "fault"), k, aim, o.Checks, budget-runs, budget)
			}
		}
		res, err := sub.searchOnce(o, func(uint64) string { return "" })
		if err != nil {
			return fr, choices, runs, err
		}
		runs += res.Runs
		cx := res.Counterexample
		if cx == nil {
			continue
		}
		runs += cx.DeletionRuns
		f := cx.Failure
		if f.Property != want.Property || f.Verdict != want.Verdict {
			continue
		}
		adopt := len(cx.Schedule) <= len(fr.schedule)
		if fewer {
			adopt = len(cx.Schedule) < len(fr.schedule) &&
				!(cx.Schedule.Class() == faults.Adversarial && fr.schedule.Class() == faults.Faithful)
		}
		if adopt {
			fr, choices = failingRun{out: cx.minimal, schedule: cx.Schedule}, cx.Choices
			if len(fr.schedule) < 2 {
				break
			}
		}
	}
	if fewer && opts.Progress != nil {
		_, _ = fmt.Fprintf(opts.Progress, "converge: %s: fewer faults than deletion leaves: %s → %s in %d of the pass's %d runs\n",
			name, plural(from, "fault"), plural(len(fr.schedule), "fault"), runs, budget)
	}
	return fr, choices, runs, nil
}

// ownTargets returns the targets of a search for fewer faults of kind k
// than schedule s has: the controllers its faults of kind k aim at, each
// with the informers they aim at when the kind aims at one, in the order
// of all (the topology's targets). It returns nil when the kind aims at
// no controller (edit, rival) or s's faults of kind k aim at every
// target all has.
func ownTargets(s faults.Schedule, k faults.Kind, all []faults.Target) []faults.Target {
	informers := map[string][]string{}
	aimed := false
	for _, t := range s {
		if t.Fault.Kind() != k {
			continue
		}
		f, ok := t.Fault.(interface{ Target() string })
		if !ok {
			return nil
		}
		aimed = true
		c := f.Target()
		res := ""
		switch f := t.Fault.(type) {
		case faults.Drop:
			res = f.Resource
		case faults.Duplicate:
			res = f.Resource
		case faults.Delay:
			res = f.Resource
		case faults.Expire:
			res = f.Resource
		case faults.Stale:
			res = f.Resource
		}
		if _, ok := informers[c]; !ok {
			informers[c] = nil
		}
		if res != "" && !slices.Contains(informers[c], res) {
			informers[c] = append(informers[c], res)
		}
	}
	if !aimed {
		return nil
	}
	var out []faults.Target
	same := true
	for _, t := range all {
		res, ok := informers[t.Controller]
		if !ok {
			same = false
			continue
		}
		kept := t
		if len(res) > 0 {
			kept.Kinds = slices.DeleteFunc(slices.Clone(t.Kinds), func(kind string) bool { return !slices.Contains(res, kind) })
			if len(kept.Kinds) == 0 {
				continue
			}
			same = same && len(kept.Kinds) == len(t.Kinds)
		}
		out = append(out, kept)
	}
	if same || len(out) == 0 {
		return nil
	}
	return out
}

// targetNames renders targets for a progress line: controller's informer
// kinds, or the controller alone when it has all of them.
func targetNames(targets []faults.Target) string {
	names := make([]string, len(targets))
	for i, t := range targets {
		names[i] = t.Controller
		if len(t.Kinds) > 0 {
			names[i] += " (" + strings.Join(t.Kinds, ", ") + ")"
		}
	}
	return strings.Join(names, ", ")
}

// nudge moves one fault of sched earlier or redraws its parameters; a
// schedule that would no longer fit the budget is returned as it was.
func (p *Prepared) nudge(sched faults.Schedule, rng *rand.Rand) faults.Schedule {
	out := slices.Clone(sched)
	i := rng.IntN(len(out))
	if rng.IntN(2) == 0 {
		out[i].At = model.Time(rng.Int64N(int64(out[i].At) + 1)) // toward 0, as rapid shrinks
	} else if t, ok := p.freshFault(rng, out[i].Fault.Kind()); ok {
		out[i].Fault = t.Fault
	}
	if out.Fits(p.mix, p.plan.Topology, p.plan.Budget) != nil {
		return sched
	}
	return out
}

// timeSpan is the end of the span a mutant's fault time is drawn afresh
// in: the budget's Busy time or its Horizon, on a coin flip, as the
// mix's generator draws a fault's time (faults.Budget.Busy).
func (p *Prepared) timeSpan(rng *rand.Rand) int64 {
	b := p.plan.Budget
	if b.Busy > 0 && b.Busy < b.Horizon && rng.IntN(2) == 0 {
		return int64(b.Busy)
	}
	return int64(b.Horizon)
}

// rapidChecks is rapid's number of checks (-rapid.checks), which a search
// without Checks makes.
func rapidChecks() int {
	if f := flag.Lookup("rapid.checks"); f != nil {
		if n, err := strconv.Atoi(f.Value.String()); err == nil && n > 0 {
			return n
		}
	}
	return 100
}

// add records the features of a run and reports whether any was new.
func (m *corpus) add(features []uint64) bool {
	grew := false
	for _, f := range features {
		if !m.seen[f] {
			m.seen[f] = true
			grew = true
		}
	}
	return grew
}

// keep adds entry e to the corpus and, past the bound, evicts one entry:
// the oldest whose every feature another entry holds too (it adds no
// coverage the corpus would lose), else the oldest. e itself reached a
// feature no entry had, so it is never the one evicted unless the bound
// is one entry.
func (m *corpus) keep(e coverageRun) {
	m.entries = append(m.entries, e)
	for _, f := range e.features {
		m.holders[f]++
	}
	if m.limit == 0 || len(m.entries) <= m.limit {
		return
	}
	victim := 0
	for i, old := range m.entries {
		if !slices.ContainsFunc(old.features, func(f uint64) bool { return m.holders[f] < 2 }) {
			victim = i
			break
		}
	}
	for _, f := range m.entries[victim].features {
		if m.holders[f]--; m.holders[f] == 0 {
			delete(m.holders, f)
		}
	}
	m.entries = slices.Delete(m.entries, victim, victim+1)
	m.evicted++
}

// nextRun draws the next run's input: afresh while the corpus is empty and
// one run in freshShare after, else a mutant of a corpus entry.
func (p *Prepared) nextRun(m *corpus, rng *rand.Rand) coverageRun {
	if len(m.entries) == 0 || rng.IntN(freshShare) == 0 || m.fresh {
		return coverageRun{sched: p.freshSchedule(rng), inputs: p.freshInputs(rng)}
	}
	e := m.entries[rng.IntN(len(m.entries))]
	other := m.entries[rng.IntN(len(m.entries))]
	return p.mutate(e, other, rng)
}

// freshSchedule draws a schedule from the mix's generator, seeded from
// rng: the draw rapid makes, as its Generator.Example makes it.
func (p *Prepared) freshSchedule(rng *rand.Rand) faults.Schedule {
	if p.gen == nil {
		return nil
	}
	return p.gen.Example(int(rng.Int64()))
}

// freshInputs draws the inputs of a scenario that has them.
func (p *Prepared) freshInputs(rng *rand.Rand) Transitions {
	if p.shape.inputs == nil {
		return nil
	}
	return p.shape.inputs.Example(int(rng.Int64()))
}

// freshFault draws one fault from the mix, of kind kind unless kind is
// empty; ok is false when a few draws found none.
func (p *Prepared) freshFault(rng *rand.Rand, kind faults.Kind) (faults.Timed, bool) {
	for range 16 {
		s := p.freshSchedule(rng)
		if len(s) == 0 {
			continue
		}
		start := rng.IntN(len(s))
		for j := range s {
			t := s[(start+j)%len(s)]
			if kind == "" || t.Fault.Kind() == kind {
				return t, true
			}
		}
	}
	return faults.Timed{}, false
}

// The mutations of a corpus entry.
const (
	mutDrop = iota
	mutAdd
	mutMove
	mutParams
	mutSplice
	mutPerturb
	mutTruncate
	mutations
)

// mutate returns a mutant of corpus entry e (other is a second entry to
// splice with): one to three mutations of its schedule and choices. A
// schedule that no longer fits the mix's budget is replaced by e's.
func (p *Prepared) mutate(e, other coverageRun, rng *rand.Rand) coverageRun {
	sched := slices.Clone(e.sched.Sorted())
	choices := slices.Clone(e.choices)
	horizon := int64(p.plan.Budget.Horizon)
	for range 1 + rng.IntN(3) {
		switch rng.IntN(mutations) {
		case mutDrop:
			if len(sched) > 0 {
				i := rng.IntN(len(sched))
				sched = slices.Delete(sched, i, i+1)
			}
		case mutAdd:
			if len(sched) < p.plan.Budget.MaxFaults {
				if t, ok := p.freshFault(rng, ""); ok {
					sched = append(sched, t)
				}
			}
		case mutMove:
			if len(sched) > 0 {
				i := rng.IntN(len(sched))
				at := int64(sched[i].At)
				if rng.IntN(2) == 0 {
					at = rng.Int64N(p.timeSpan(rng) + 1)
				} else {
					d := 1 + rng.Int64N(horizon/8+1)
					if rng.IntN(2) == 0 {
						d = -d
					}
					at = min(max(at+d, 0), horizon)
				}
				sched[i].At = model.Time(at)
			}
		case mutParams:
			if len(sched) > 0 {
				i := rng.IntN(len(sched))
				if t, ok := p.freshFault(rng, sched[i].Fault.Kind()); ok {
					sched[i].Fault = t.Fault
				}
			}
		case mutSplice:
			o := other.sched.Sorted()
			a, b := rng.IntN(len(sched)+1), rng.IntN(len(o)+1)
			sched = append(slices.Clone(sched[:a]), o[b:]...)
			if len(sched) > p.plan.Budget.MaxFaults {
				sched = sched[:p.plan.Budget.MaxFaults]
			}
			cut := rng.IntN(len(choices) + 1)
			if cut < len(other.choices) {
				choices = append(choices[:cut:cut], other.choices[cut:]...)
			}
		case mutPerturb:
			for range 1 + rng.IntN(4) {
				if len(choices) == 0 {
					break
				}
				j := rng.IntN(len(choices))
				choices[j] = rng.IntN(max(choices[j]+2, 3))
			}
		case mutTruncate:
			choices = choices[:rng.IntN(len(choices)+1)]
		}
	}
	if len(sched) == 0 {
		sched = nil
	}
	if sched.Fits(p.mix, p.plan.Topology, p.plan.Budget) != nil {
		sched = e.sched
	}
	return coverageRun{sched: sched, inputs: e.inputs, choices: choices, mutant: true}
}

// coverageChooser makes a coverage-guided run's choices: the prefix's
// first (each brought into range as fit does), then draws of its own from
// rng, as drawChoice distributes rapid's. It records every answer, and
// with fingerprints the state fingerprint at each step of the fault
// phase.
type coverageChooser struct {
	prefix       []int
	rng          *rand.Rand
	log          []int
	fingerprints bool
	states       []uint64
	// zeros makes every choice past the prefix 0 instead of a draw.
	zeros bool
}

func (c *coverageChooser) Choose(n int, _ string) int {
	var v int
	switch {
	case len(c.log) < len(c.prefix):
		v = fit(c.prefix[len(c.log)], n)
	case n > 1 && !c.zeros && c.rng.IntN(2) == 1:
		v = 1 + c.rng.IntN(n-1)
	}
	c.log = append(c.log, v)
	return v
}

// chooseStep records the state's fingerprint when coverage is made of
// them, then chooses as the runner would of a plain chooser.
func (c *coverageChooser) chooseStep(r *runner, n int, _ bool) int {
	if c.fingerprints {
		c.states = append(c.states, r.c.Fingerprint())
	}
	if n > 1 {
		return c.Choose(n, "step")
	}
	return 0
}

// coverage returns a finished run's coverage features: the state
// fingerprints it reached, or its trace's edges.
func (c *coverageChooser) coverage(out *Outcome) []uint64 {
	if c.fingerprints {
		return c.states
	}
	return edges(out.Cluster.Trace())
}

// edges returns the coverage of a trace, as AFL counts branches: each
// step is an edge (who acted, how, on what kind of object, and with what
// outcome: the verbs it wrote, the notes it left, the reasons its calls
// failed with), counted in the buckets AFL uses (1, 2, 3, 4–7, 8–15,
// 16–31, 32–127, 128 and more). Steps no action made (the setup, a heal)
// are left out. Pairs of consecutive edges, AFL's next refinement, found
// no more on the class benchmark and kept a larger corpus
// (docs/design.md, "Coverage-guided search").
func edges(tr *model.Trace) []uint64 {
	counts := map[uint64]int{}
	for i := range tr.Records {
		rec := &tr.Records[i]
		if rec.Kind == 0 && rec.Fault == 0 {
			continue
		}
		counts[edgeOf(rec)]++
	}
	out := make([]uint64, 0, len(counts))
	for e, n := range counts {
		out = append(out, e^uint64(hitBucket(n))*0xff51afd7ed558ccd)
	}
	slices.Sort(out)
	return out
}

// edgeOf hashes one step's edge (FNV-1a, field by field).
func edgeOf(rec *model.Record) uint64 {
	h := edgeHash(14695981039346656037)
	h.str(rec.Actor)
	h.byte(byte(rec.Kind))
	h.byte(byte(rec.Timer))
	h.byte(byte(rec.Event))
	h.str(rec.Informer)
	h.str(rec.Target.Kind)
	h.bool(rec.Replay)
	h.bool(rec.Fault != 0)
	for _, w := range rec.Writes {
		h.byte('w')
		h.byte(byte(w.Verb))
		h.bool(w.Unconditional)
	}
	for _, n := range rec.Notes {
		h.byte('n')
		h.byte(byte(n.Kind))
		if n.Call != nil {
			h.byte(byte(n.Call.Verb))
			h.str(string(n.Call.Reason))
			h.bool(n.Call.Applied)
		}
	}
	return uint64(h)
}

// edgeHash is an FNV-1a hash being written.
type edgeHash uint64

func (h *edgeHash) byte(b byte) { *h = (*h ^ edgeHash(b)) * 1099511628211 }

func (h *edgeHash) bool(b bool) {
	if b {
		h.byte(1)
	} else {
		h.byte(0)
	}
}

// str writes s and a separator, so that "ab","c" and "a","bc" differ.
func (h *edgeHash) str(s string) {
	for i := 0; i < len(s); i++ {
		h.byte(s[i])
	}
	h.byte(0xff)
}

// hitBucket is AFL's hit-count bucket of n.
func hitBucket(n int) int {
	switch {
	case n <= 3:
		return n
	case n <= 7:
		return 4
	case n <= 15:
		return 5
	case n <= 31:
		return 6
	case n <= 127:
		return 7
	}
	return 8
}
