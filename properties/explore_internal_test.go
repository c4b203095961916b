package properties

import (
	"hash"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/converge-sim/converge/model"
)

// TestSeenStateCoversOnlyWithAsMuchLeft: a state explored with some
// decisions and deviations left covers a later visit only when that visit
// has no more of either left; a state reached first off the canonical
// schedule and again closer to it must be explored again.
func TestSeenStateCoversOnlyWithAsMuchLeft(t *testing.T) {
	seen := seenState{left: 4, devLeft: 1}
	assert.True(t, covers(seen, nil, 4, 1, nil))
	assert.True(t, covers(seen, nil, 3, 1, nil))
	assert.True(t, covers(seen, nil, 4, 0, nil))
	assert.False(t, covers(seen, nil, 4, 2, nil), "more deviations left")
	assert.False(t, covers(seen, nil, 5, 1, nil), "more decisions left")
}

// TestStateKeyHoldsMonitorMemory: two runner states that differ only in
// what a monitor remembers have different keys when the monitor writes
// its memory (Invariant.Fingerprint), and the same key when it does not;
// two monitors' memories do not run into each other.
func TestStateKeyHoldsMonitorMemory(t *testing.T) {
	c := model.NewCluster(model.Config{})
	memory := "a"
	write := func(s *string) func(h hash.Hash64) {
		return func(h hash.Hash64) { _, _ = h.Write([]byte(*s)) }
	}
	r := &runner{c: c, invariants: []Invariant{{Name: "remembers", Fingerprint: write(&memory)}}}
	before := r.stateKey(0)
	memory = "b"
	assert.NotEqual(t, before, r.stateKey(0))

	r.invariants[0].Fingerprint = nil
	unwritten := r.stateKey(0)
	memory = "a"
	assert.Equal(t, unwritten, r.stateKey(0))

	first, second := "ab", ""
	r.invariants = []Invariant{{Fingerprint: write(&first)}, {Fingerprint: write(&second)}}
	joined := r.stateKey(0)
	first, second = "a", "b"
	assert.NotEqual(t, joined, r.stateKey(0))
}
