package properties

import "github.com/converge-sim/converge/model"

// loopStop ends, in a search's runs (RunOptions.stopLoops), a settle of
// quiescence that has come back to a state it was in: it is busy for ever,
// and the step bound would end it as no-fixed-point, the verdict it gets
// at once (docs/design.md, "A loop that repeats stops").
//
// A state is the cluster's loop fingerprint (model.Cluster.LoopFingerprint)
// with the fair scheduler's position. A loop counts only if nothing was
// drawn in it (a drawn choice may differ the next time round) and no field
// changed hands in it (the fight detector counts those up to a fight).
//
// It ends, too, quiet rounds that each write and come back to a state an
// earlier round ended in, the clock aside (roundRepeats): a hot loop,
// the verdict the last quiet round would give (docs/design.md, "A hot
// loop that repeats stops").
type loopStop struct {
	// draws counts the choices the run drew (countingChooser).
	draws int
	// cut says the run was ended by a loop.
	cut bool
	// settled holds the marks of the current settle's checkpoints, taken
	// every loopCheckEvery steps; taken counts its steps.
	settled map[uint64]loopMark
	taken   int
	// rounds holds, by state without the clock, the marks of the
	// current quietRounds' round ends, and roundSteps the cluster's steps
	// at each (index 0: where it began; roundRepeats).
	rounds     map[uint64]loopMark
	roundSteps []int
}

// loopMark is a point of a run: its checkpoint (a settle's step, or a
// quiet round), choices drawn and changes of hands so far.
type loopMark struct {
	at, draws, changes int
}

// loopCheckFrom is the steps a settle of quiescence takes before it looks
// for a loop, and loopCheckEvery how often it takes its state from there:
// a settle shorter than loopCheckFrom, as nearly all are, costs no
// fingerprint, and a loop of p steps is seen within lcm(p, loopCheckEvery)
// steps of the first check after it began, at one fingerprint per
// loopCheckEvery steps.
const (
	loopCheckFrom  = 256
	loopCheckEvery = 32
)

func (l *loopStop) beginSettle() {
	l.settled = nil
	l.taken = 0
}

// loopState is the runner's state for loopStop: the cluster's loop fingerprint
// and the fair scheduler's position.
func (r *runner) loopState() uint64 {
	return r.c.LoopFingerprint()*mixLoop ^ uint64(r.last)
}

// mixLoop spreads the fingerprint before the scheduler's position is
// mixed in.
const mixLoop = 0x9e3779b97f4a7c15

// settleRepeats says that the settle of quiescence under way has come back
// to a state it was in, with nothing drawn and no change of hands since:
// it would go on to the step bound.
func (r *runner) settleRepeats() bool {
	l := r.loop
	if l.taken++; l.taken < loopCheckFrom || l.taken%loopCheckEvery != 0 {
		return false
	}
	if l.settled == nil {
		l.settled = map[uint64]loopMark{}
	}
	m := loopMark{at: l.taken, draws: l.draws, changes: r.fights.changes}
	state := r.loopState()
	prev, ok := l.settled[state]
	if !ok {
		l.settled[state] = m
		return false
	}
	if prev.draws != m.draws || prev.changes != m.changes {
		return false
	}
	l.cut = true
	return true
}

// countingChooser counts the choices a run draws.
type countingChooser struct {
	inner model.Chooser
	n     *int
}

func (c countingChooser) Choose(n int, label string) int {
	*c.n++
	return c.inner.Choose(n, label)
}

// beginRounds starts the marks of a call of quietRounds. The state it
// begins in takes no mark: a run that settles, whose first round writes
// nothing, then takes no fingerprint at all.
func (r *runner) beginRounds() {
	r.loop.rounds = nil
	r.loop.roundSteps = append(r.loop.roundSteps[:0], r.c.Steps())
}

// roundRepeats says, at the end of a quiet round that wrote (round), that
// the quiet rounds have come back to a state they were in at the end of
// an earlier round, the clock aside, with no choice drawn and no field
// changing hands since, and that the rounds still to come up to the hot
// loop's bound fit within the step bound: every one of them would write
// as its counterpart a period earlier did, and the run would end as a
// hot loop at that bound (docs/design.md, "A hot loop that repeats
// stops").
func (r *runner) roundRepeats(round int) bool {
	l := r.loop
	steps := r.c.Steps()
	l.roundSteps = append(l.roundSteps, steps)
	m := loopMark{at: round, draws: l.draws, changes: r.fights.changes}
	state := r.c.LoopFingerprintWithoutClock()*mixLoop ^ uint64(r.last)
	if l.rounds == nil {
		l.rounds = map[uint64]loopMark{}
	}
	prev, ok := l.rounds[state]
	if !ok || prev.draws != m.draws || prev.changes != m.changes {
		l.rounds[state] = m
		return false
	}
	// Rounds prev.at+1 .. round repeat, in that order, until the bound.
	period, end := round-prev.at, steps
	for next := round + 1; next <= r.b.settleRounds; next++ {
		k := prev.at + (next-round-1)%period + 1
		end += l.roundSteps[k] - l.roundSteps[k-1]
	}
	if end >= r.b.maxSteps+r.backlog {
		return false // the step bound would end the run first
	}
	l.cut = true
	return true
}
