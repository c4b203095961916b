package properties

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"pgregory.net/rapid"

	"github.com/converge-sim/converge/internal/quiettb"
)

// TestPassedRunsAnswerOnlyTheirOwnDraws: a recorded passing run answers a
// run with the same prefix, whose choices it draws ahead of the run; a run
// under another prefix is made. A run that asks for a choice among other
// values than the recorded run did at the same point is nondeterministic
// and says so. Choices among one value always draw 0, which fixes the
// draws of this test.
func TestPassedRunsAnswerOnlyTheirOwnDraws(t *testing.T) {
	tb := &quiettb.TB{}
	rapid.Check(tb, func(rt *rapid.T) {
		m := &runMemo{}
		run := &rapidChooser{t: rt, keep: true}
		run.Choose(1, "a")
		run.Choose(1, "b")
		m.record("k", run, nil)
		assert.Equal(t, 3, m.nodes, "a node per draw, and the end")

		again := &rapidChooser{t: rt, keep: true}
		assert.NotNil(t, m.walk("k", again), "the same prefix and draws")
		assert.Equal(t, 2, again.ahead, "both choices drawn ahead")
		assert.Nil(t, m.walk("other", &rapidChooser{t: rt, keep: true}), "another prefix")

		odd := &rapidChooser{t: rt, keep: true}
		odd.drawAhead(1, "a")
		assert.Equal(t, 0, odd.Choose(3, "a"), "a value in range")
		assert.Equal(t, "the scenario is nondeterministic: runs with the same draws asked for their choice 0 among 1 values (a), then among 3 (a) (trap 6 in docs/design.md)", odd.nondeterministic)
	})
	assert.False(t, tb.Failed())
}
