package properties

import (
	"cmp"
	"maps"
	"math/rand/v2"
	"slices"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
)

// failingRun is a counterexample in the making: a failing run, the
// schedule that replays it (the faults that struck, see struckOnly) and
// the decisions it made.
type failingRun struct {
	out       *Outcome
	schedule  faults.Schedule
	decisions []decision
}

// deleteFaults deletes from a shrunk counterexample the faults it does not
// need, which rapid cannot delete (docs/design.md, "Faults rapid cannot
// delete"): the schedule is drawn before the step choices, so dropping a
// fault's draws shifts every later draw, and the choices that survive pick
// other actions. While the counterexample has two faults or more, it runs
// the scenario with one fault deleted, in deletionOrder, twice at most:
// making the recorded decisions where they still fit (follower), then
// making every choice 0, the interleaving rapid's shrinking tends to. The
// first run that fails with the same property and verdict is adopted,
// with the decisions it made, and the pass starts over from it. A
// deletion never adds a fault, so the class never gets worse: a faithful
// counterexample stays faithful, and an adversarial one may become
// faithful.
//
// The counterexample rapid shrank records choices, not the actions they
// picked: one replay of its choices reads them. Then k faults take at most
// 2k + 2(k−1) + … + 4 runs, and one replay per adopted run whose faults
// did not all strike (struckOnly); runs counts them all.
func (p *Prepared) deleteFaults(fr failingRun, choices []int, opts SearchOptions) (_ failingRun, runs int, err error) {
	if len(fr.schedule) < 2 {
		return fr, 0, nil
	}
	if _, fr.decisions, err = p.follow(fr.schedule, &follower{choices: choices}, fr.out.Inputs, opts); err != nil {
		return fr, 1, err
	}
	runs = 1
	for len(fr.schedule) >= 2 {
		next, n, err := p.deleteOne(fr, opts)
		runs += n
		if err != nil || next == nil {
			return fr, runs, err
		}
		fr = *next
	}
	return fr, runs, nil
}

// deleteOne tries deleting each fault of fr's schedule in deletionOrder and
// returns the first smaller run that fails as fr does, or nil, with the
// number of runs it made.
func (p *Prepared) deleteOne(fr failingRun, opts SearchOptions) (*failingRun, int, error) {
	runs := 0
	for _, i := range deletionOrder(fr.schedule) {
		smaller := slices.Delete(slices.Clone(fr.schedule), i, i+1)
		for _, recorded := range [][]decision{fr.decisions, nil} {
			out, made, err := p.follow(smaller, &follower{recorded: recorded}, fr.out.Inputs, opts)
			runs++
			if err != nil {
				return nil, runs, err
			}
			if f := out.Failure; f != nil && f.Property == fr.out.Failure.Property && f.Verdict == fr.out.Failure.Verdict {
				sched, replayed := p.struckOnly(out, choicesOf(made), opts)
				if replayed {
					runs++
				}
				return &failingRun{out: out, schedule: sched, decisions: made}, runs, nil
			}
			if !slices.ContainsFunc(made, func(d decision) bool { return d.choice != 0 }) {
				break // it made every choice 0 already
			}
		}
	}
	return nil, runs, nil
}

// deletionOrder returns the indexes of the schedule's faults in the order
// deleteOne tries deleting them. Adversarial faults come first: without
// them the counterexample is faithful, a bug real clusters trigger (One
// bug, one finding). Then the earliest fault first, in schedule order at
// one time: a fault rapid could not delete, it could still simplify, and
// rapid shrinks a fault's time toward 0 (and its parameters toward their
// least) unless the failure needs them, so a fault the failure does not
// need tends to be left at the start.
func deletionOrder(s faults.Schedule) []int {
	order := make([]int, len(s))
	for i := range order {
		order[i] = i
	}
	adversarial := func(i int) bool { return faults.Schedule{s[i]}.Class() == faults.Adversarial }
	slices.SortStableFunc(order, func(a, b int) int {
		if adversarial(a) != adversarial(b) {
			if adversarial(a) {
				return -1
			}
			return 1
		}
		return cmp.Compare(s[a].At, s[b].At)
	})
	return order
}

// follow runs the prepared scenario with schedule sched and chooser ch,
// each execution inside the search's Wrap, and returns the outcome with the decisions it
// made: with sched, their choices replay it exactly.
func (p *Prepared) follow(sched faults.Schedule, ch *follower, inputs Transitions, opts SearchOptions) (*Outcome, []decision, error) {
	out, err := p.execute(sched, ch, RunOptions{Logger: opts.Logger, Timeout: opts.RunTimeout, Inputs: inputs, Wrap: runWrap(opts.Wrap)})
	return out, ch.made, err
}

// decision is one choice of a run: a step of the fault phase (letting the
// cluster settle, or one enabled action), or any other choice (an
// actor's, a built-in controller's). choice is the number a choice list
// records for it.
type decision struct {
	choice int
	step   bool
	settle bool
	action model.Action
}

// choicesOf returns the choice list of decisions.
func choicesOf(ds []decision) []int {
	if ds == nil {
		return nil
	}
	out := make([]int, len(ds))
	for i, d := range ds {
		out[i] = d.choice
	}
	return out
}

// follower makes the decisions of another run where they still fit, and
// records the decisions it makes. A step takes the first recorded step
// not yet taken that fits, passing over those that do not: the same
// action if it is enabled, settling if the cluster is busy; any other
// choice takes the next recorded one if it is in range. Where nothing
// fits, or nothing is left, it chooses 0, where rapid shrinks every
// choice: the first enabled action or, with the cluster busy, letting it
// settle. Given a choice list instead (choices), it makes those choices in
// turn, to read what they decided.
type follower struct {
	recorded []decision
	choices  []int
	// steps and others are where the record's steps and other choices
	// are next looked for.
	steps, others int
	made          []decision
}

func (f *follower) chooseStep(r *runner, n int, busy bool) int {
	if n <= 1 {
		return 0 // no choice, and none recorded
	}
	v, ok := f.listed(n)
	if !ok {
		v = f.nextStep(r.acts, busy)
	}
	made := decision{choice: v, step: true}
	switch {
	case !busy:
		made.action = r.acts[v]
	case v == 0:
		made.settle = true
	default:
		made.action = r.acts[v-1]
	}
	f.made = append(f.made, made)
	return v
}

// nextStep returns the next recorded step that fits, with acts enabled, in
// the runner's numbering, or 0.
func (f *follower) nextStep(acts []model.Action, busy bool) int {
	for j := f.steps; j < len(f.recorded); j++ {
		d := f.recorded[j]
		if !d.step {
			continue
		}
		if d.settle && busy {
			f.steps = j + 1
			return 0
		}
		if i := slices.Index(acts, d.action); !d.settle && i >= 0 {
			f.steps = j + 1
			if busy {
				i++
			}
			return i
		}
	}
	return 0
}

func (f *follower) Choose(n int, _ string) int {
	v, ok := f.listed(n)
	if !ok {
		v = f.nextOther(n)
	}
	f.made = append(f.made, decision{choice: v})
	return v
}

// nextOther returns the next recorded choice that is not a step, if it is
// one of n, or 0.
func (f *follower) nextOther(n int) int {
	for j := f.others; j < len(f.recorded); j++ {
		if d := f.recorded[j]; !d.step {
			f.others = j + 1
			return fit(d.choice, n)
		}
	}
	return 0
}

// listed returns the next choice of a follower given a choice list
// (fitted to n), and whether it was given one.
func (f *follower) listed(n int) (int, bool) {
	if f.choices == nil {
		return 0, false
	}
	if i := len(f.made); i < len(f.choices) {
		return fit(f.choices[i], n), true
	}
	return 0, true
}

// fit returns choice if it is one of n, else 0.
func fit(choice, n int) int {
	if choice < 0 || choice >= n {
		return 0
	}
	return choice
}

// movedRuns is the most runs oneMoved makes.
const movedRuns = 100

// oneMoved looks for a counterexample with one fault where deletion left
// two or more and the failure needs one of them at another time or for
// longer, with another interleaving, which neither deletion (the
// recorded decisions, or every choice 0) nor a search drawing the fault
// afresh reaches often: the cronjob example's pair of a 1-tick delay of
// its Job event at t=0 and a watch expiry at t=11 fails as one Job delay
// at t=11 does, under one interleaving in 10 to 40 (docs/design.md,
// "Fewer faults than deletion leaves"). Its candidates are each fault of
// fr's schedule alone, at each time a step of the failing run was at up
// to the failure or a fault of it struck, lasting as long as it did, as
// long as the budget allows, or until each other fault ended, faithful
// faults first. They take turns, a run each, the first turn with every
// choice 0 and the others with choices drawn from the seed as rapid
// distributes them (coverageChooser), until one fails as fr does or
// limit runs are made. A candidate adversarial where fr is faithful is
// not tried. It returns the run adopted, if any, its choices and the
// runs it made.
func (p *Prepared) oneMoved(fr failingRun, seed uint64, limit int, opts SearchOptions) (*failingRun, []int, int, error) {
	want := fr.out.Failure
	times := map[model.Time]bool{}
	for _, r := range fr.out.Cluster.Trace().Records {
		if r.Step <= want.Step {
			times[r.Time] = true
		}
	}
	for _, t := range fr.schedule {
		times[t.At] = true
	}
	var candidates []faults.Schedule
	seen := map[string]bool{}
	order := deletionOrder(fr.schedule)
	adversarial := func(i int) bool { return faults.Schedule{fr.schedule[i]}.Class() == faults.Adversarial }
	slices.SortStableFunc(order, func(a, b int) int { // faithful faults first, kept
		switch {
		case adversarial(a) == adversarial(b):
			return 0
		case adversarial(b):
			return -1
		}
		return 1
	})
	for _, i := range order {
		f := fr.schedule[i].Fault
		if fr.schedule.Class() == faults.Faithful && adversarial(i) {
			continue
		}
		for _, at := range slices.Sorted(maps.Keys(times)) {
			spans := []model.Time{0, p.plan.Budget.MaxDown} // 0: as drawn
			for j, o := range fr.schedule {
				if d := faults.Lasts(o.Fault); d > 0 && j != i {
					spans = append(spans, o.At+d-at)
				}
			}
			for _, d := range spans {
				g := f
				if d != 0 {
					var ok bool
					if g, ok = faults.Lasting(f, d); !ok {
						continue
					}
				}
				c := faults.Schedule{{At: at, Fault: g}}
				key := c.String()
				if seen[key] || c.Fits(p.mix, p.plan.Topology, p.plan.Budget) != nil {
					continue
				}
				seen[key] = true
				candidates = append(candidates, c)
			}
		}
	}
	runs := 0
	stream := uint64(1) << 41
	for turn := 0; len(candidates) > 0 && runs < limit; turn++ {
		for _, c := range candidates {
			if runs >= limit {
				break
			}
			ch := &coverageChooser{rng: rand.New(rand.NewPCG(seed, stream)), zeros: turn == 0}
			stream++
			out, err := p.execute(c, ch, RunOptions{Logger: opts.Logger, Timeout: opts.RunTimeout, Inputs: fr.out.Inputs, Wrap: runWrap(opts.Wrap)})
			runs++
			if err != nil {
				return nil, nil, runs, err
			}
			if f := out.Failure; f != nil && f.Property == want.Property && f.Verdict == want.Verdict {
				sched, replayed := p.struckOnly(out, ch.log, opts)
				if replayed {
					runs++
				}
				return &failingRun{out: out, schedule: sched}, ch.log, runs, nil
			}
		}
	}
	return nil, nil, runs, nil
}
