package controllerruntime

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestARunReadsItsGoroutineOnce: every reconcile binds the run's stream
// to the goroutine that steps the run, and that goroutine is read from
// runtime.Stack once per run, not once per reconcile; each binding still
// serves that goroutine and is undone after.
func TestARunReadsItsGoroutineOnce(t *testing.T) {
	rr := &runRandom{}
	me := goroutineID()
	before := goroutineIDReads.Load()
	for range 100 {
		unbind := dispatcher.bind(rr)
		dispatcher.mu.Lock()
		bound := dispatcher.byG[me]
		dispatcher.mu.Unlock()
		assert.Same(t, rr, bound, "the reconcile's reads are the run's")
		unbind()
	}
	assert.Equal(t, uint64(1), goroutineIDReads.Load()-before, "runtime.Stack reads for 100 reconciles of one run")
	dispatcher.mu.Lock()
	_, still := dispatcher.byG[me]
	dispatcher.mu.Unlock()
	assert.False(t, still, "unbound after the reconcile")
}
