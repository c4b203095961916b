package properties

import (
	"testing"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
	"github.com/stretchr/testify/assert"
)

// TestDeletionOrder: adversarial faults first, then the earliest, in
// schedule order at one time.
func TestDeletionOrder(t *testing.T) {
	restart := faults.Restart{Controller: "c", Down: 1}
	s := faults.Schedule{
		{At: 5, Fault: restart},
		{At: 0, Fault: restart},
		{At: 7, Fault: faults.Drop{Controller: "c", Resource: "Pod"}},
		{At: 2, Fault: restart},
		{At: 0, Fault: restart},
	}
	assert.Equal(t, []int{2, 1, 4, 3, 0}, deletionOrder(s))
}

// TestFollowerMakesTheRecordedDecisionsThatFit: a step takes the next
// recorded step whose action is enabled, or settles when the record says
// so and the cluster is busy, passing over the steps that do not fit;
// other choices follow in turn when in range; anything else is 0.
func TestFollowerMakesTheRecordedDecisionsThatFit(t *testing.T) {
	deliver := model.Action{Kind: model.ActDeliver, Index: 1}
	reconcile := model.Action{Kind: model.ActReconcile}
	timer := model.Action{Kind: model.ActTimer}
	f := &follower{recorded: []decision{
		{choice: 1, step: true, action: timer},
		{choice: 3},
		{choice: 2, step: true, action: deliver},
		{choice: 0, step: true, settle: true},
		{choice: 1},
		{choice: 2, step: true, action: reconcile},
	}}
	r := &runner{acts: []model.Action{reconcile, deliver}}
	assert.Equal(t, 2, f.chooseStep(r, 3, true), "the timer is not enabled: the delivery, after settling")
	assert.Equal(t, 0, f.Choose(3, "pick"), "3 is out of range")
	assert.Equal(t, 0, f.chooseStep(r, 3, true), "settle")
	assert.Equal(t, 1, f.Choose(2, "pick"))
	assert.Equal(t, 0, f.chooseStep(r, 2, false), "the reconcile, first of two when not busy")
	assert.Equal(t, 0, f.chooseStep(r, 3, true), "the record is spent")
	assert.Equal(t, 0, f.Choose(2, "pick"))
	assert.Equal(t, []int{2, 0, 0, 1, 0, 0, 0}, choicesOf(f.made))
	assert.Equal(t, decision{choice: 2, step: true, action: deliver}, f.made[0])
	assert.Equal(t, decision{choice: 0, step: true, settle: true}, f.made[2])
	assert.Equal(t, decision{choice: 0, step: true, action: reconcile}, f.made[4])

	replay := &follower{choices: []int{2, 1}}
	assert.Equal(t, 2, replay.chooseStep(r, 3, true), "a choice list is made as it is")
	assert.Equal(t, 1, replay.Choose(2, "pick"))
	assert.Equal(t, 0, replay.Choose(2, "pick"), "past its end")
	assert.Equal(t, decision{choice: 2, step: true, action: deliver}, replay.made[0], "and read")
}
