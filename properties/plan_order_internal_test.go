package properties

import (
	"testing"

	"github.com/converge-sim/converge/faults"
	"github.com/stretchr/testify/assert"
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
	plan := plannedRounds(rounds)
	assert.Equal(t, 0, plan[3].round, "the first round's second pass")
	assert.True(t, plan[3].draws)
	assert.Len(t, plan, 3*(1+firstRoundDraws)+2*3*2, "the first round drawn firstRoundDraws times, the others once")
	assert.Equal(t, 1, plan[3*(1+firstRoundDraws)].round)
	assert.False(t, plan[3*(1+firstRoundDraws)].draws)
	assert.Len(t, plannedRounds([][]faults.Schedule{{{}}}), 2, "a round of one kind is drawn once")

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
