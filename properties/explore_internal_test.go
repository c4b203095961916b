package properties

import (
	"hash"
	"sync/atomic"
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

// TestWorkersShareTheStateBound: a worker beside others records a state
// only while the cache it reads and every worker's own states are under
// the bound, so that workers together hold no more than one explorer.
func TestWorkersShareTheStateBound(t *testing.T) {
	e := &explorer{seen: map[uint64]seenState{}, maxStates: 20}
	for k := range uint64(15) {
		e.record(k, 1, 1, nil)
	}
	var recorded atomic.Int64
	recorded.Store(4) // by the other workers
	w := e.worker(&recorded, nil)
	w.record(100, 1, 1, nil)
	assert.Equal(t, int64(5), recorded.Load())
	assert.False(t, w.full)
	w.record(100, 2, 1, nil) // again: not a new state
	assert.False(t, w.full)
	w.record(101, 1, 1, nil)
	assert.True(t, w.full)
	assert.Len(t, w.seen, 1)
	assert.Len(t, e.seen, 15, "the cache a worker reads is left as it was")
}
