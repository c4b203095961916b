package fuzzrun

import (
	"testing"

	"github.com/converge-sim/converge/model"
	"github.com/stretchr/testify/assert"
)

// TestARowsConvergeTimesTakeBoundedMemory: a row keeps a sketch of its
// converge times, not each time (issue 37, item 6): 100,000 runs of times
// 0…999 take the buckets of that range (506), and the printed p50/p99/max
// are within the sketch's error: the max exact, p50 (499 exactly) and p99
// (989) at most 1/128 below.
func TestARowsConvergeTimesTakeBoundedMemory(t *testing.T) {
	var r RowResult
	for i := range 100_000 {
		r.converged(model.Time(i % 1000))
	}
	r.judge(Row{})
	assert.Equal(t, 506, r.times.Buckets())
	assert.Equal(t, 100_000, r.Converge.Runs)
	for _, q := range []struct{ got, exact model.Time }{{r.Converge.P50, 499}, {r.Converge.P99, 989}} {
		assert.LessOrEqual(t, q.got, q.exact)
		assert.Less(t, float64(q.exact-q.got), float64(q.exact)/128)
	}
	assert.Equal(t, model.Time(999), r.Converge.Max)
}

func TestANegativeConvergeTimeIsTheRowsError(t *testing.T) {
	var r RowResult
	r.converged(-3)
	assert.Equal(t, "a worker reported a time to converge of -3 ticks: quantile: negative value -3", r.Error)
}
