package properties

import (
	"slices"
	"testing"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestThePlansFirstRoundRunsBackToBack: after rapid's first run, the
// first pass of the plan's first round (one run of each kind) takes the
// next runs, back to back; then rapid's runs and the rest of the plan
// alternate (docs/design.md, "Ordering the plan"). A first round of
// several kinds is drawn firstRoundDraws times.
func TestThePlansFirstRoundRunsBackToBack(t *testing.T) {
	var rounds [][]faults.Schedule
	for range 3 {
		rounds = append(rounds, []faults.Schedule{{}, {}, {}})
	}
	plan := plannedRounds(rounds, 1)
	assert.Equal(t, 0, plan[3].round, "the first round's second pass")
	assert.True(t, plan[3].draws)
	assert.Len(t, plan, 3*(1+firstRoundDraws)+2*3*2, "the first round drawn firstRoundDraws times, the others once")
	assert.Equal(t, 1, plan[3*(1+firstRoundDraws)].round)
	assert.False(t, plan[3*(1+firstRoundDraws)].draws)
	assert.Len(t, plannedRounds([][]faults.Schedule{{{}}}, 1), 2, "a round of one kind is drawn once")

	slots := planSlots(12, plan[:6])
	want := []bool{false, true, true, true, false, true, false, true, false, true, false, false}
	assert.Equal(t, want, slots, "rapid, 3 kinds, then in turn until the plan is spent")

	var n int
	for _, s := range planSlots(100, plan) {
		if s {
			n++
		}
	}
	assert.Equal(t, len(plan), n, "every planned run has its slot")
	assert.Equal(t, []bool{false, true}, planSlots(2, plan[:1]))
	assert.Equal(t, []bool{false}, planSlots(1, nil))
}

// TestTheFirstRoundsDelayIsDrawnMore: a first round's delay is drawn
// delayDraws times more at the round's end, and the first delay planned
// is the late event of a child made the tick before (docs/design.md,
// "Ordering the plan"; the cronjob example's second Job).
func TestTheFirstRoundsDelayIsDrawnMore(t *testing.T) {
	d := faults.Schedule{{At: 11, Fault: faults.Delay{Controller: "c", Resource: "Job", For: 5}}}
	e := faults.Schedule{{At: 0, Fault: faults.Drop{Controller: "c", Resource: "Job"}}}
	plan := plannedRounds([][]faults.Schedule{{e, d}, {e, d}}, 1)
	assert.Len(t, plan, 2*(1+firstRoundDraws)+delayDraws+2*2)
	runs := map[faults.Kind]int{}
	for _, run := range plan {
		if run.round == 0 {
			runs[run.sched[0].Fault.Kind()]++
		}
	}
	assert.Greater(t, runs[faults.KindDelay], runs[faults.KindDrop], "the first round's delay is drawn more than its other kinds")
	for _, run := range plan[2*(1+firstRoundDraws) : 2*(1+firstRoundDraws)+delayDraws] {
		assert.Equal(t, d, run.sched)
		assert.True(t, run.draws)
		assert.Equal(t, 0, run.round)
	}

	lm := &landmarks{
		events: []eventMark{
			{at: 0, controller: "c", informer: "Parent"},
			{at: 10, controller: "c", informer: "Job"},
			{at: 11, controller: "c", informer: "Job"},
		},
		children: []childMark{{at: 10, object: model.Ref{Kind: "Job", Name: "j"}}},
	}
	got := plannedFor(faults.KindDelay, lm, faults.Topology{}, faults.Budget{MaxDown: 5})
	if assert.NotEmpty(t, got) {
		assert.Equal(t, faults.Timed{At: 11, Fault: faults.Delay{Controller: "c", Resource: "Job", For: 5}}, got[0], "the child's late event first")
	}
}

// TestTheFirstPassBundlesTwoKinds: the first pass of the plan's first
// round runs two kinds' first faults in one run, faithful with faithful
// only, when the budget allows two faults; the drawn passes keep one
// fault a run and the draws they made before bundling (docs/design.md,
// "Ordering the plan").
func TestTheFirstPassBundlesTwoKinds(t *testing.T) {
	at := func(k faults.Fault) faults.Schedule { return faults.Schedule{{At: 1, Fault: k}} }
	f1 := at(faults.Restart{Controller: "c", Down: 1})
	f2 := at(faults.Partition{Controller: "c", For: 1})
	f3 := at(faults.Expire{Controller: "c", Resource: "Pod"})
	adv := at(faults.Drop{Controller: "c", Resource: "Pod"})
	require.Equal(t, faults.Adversarial, adv.Class())
	round := []faults.Schedule{f1, f2, f3, adv}

	plan := plannedRounds([][]faults.Schedule{round}, 2)
	want := []faults.Schedule{append(slices.Clone(f1), f2...), f3, adv}
	for i, s := range want {
		assert.Equal(t, s, plan[i].sched, "first pass, run %d", i+1)
		assert.False(t, plan[i].draws)
	}
	single := plannedRounds([][]faults.Schedule{round}, 1)
	assert.Len(t, plan, len(single)-1, "one run fewer: two kinds share one")
	for i := range single[len(round):] {
		got, was := plan[len(want)+i], single[len(round)+i]
		assert.Len(t, got.sched, 1, "the drawn passes run one fault")
		assert.Equal(t, was, got, "a drawn run draws as before bundling")
	}
	for i, run := range single[:len(round)] {
		assert.Equal(t, round[i], run.sched, "a budget of one fault bundles nothing")
	}
}
