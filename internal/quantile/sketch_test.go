package quantile_test

import (
	"math"
	"slices"
	"testing"

	"github.com/converge-sim/converge/internal/quantile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// exact is the nearest-rank p-th percentile of sorted.
func exact(sorted []int64, p int) int64 {
	rank := (p*len(sorted) + 99) / 100
	return sorted[max(rank, 1)-1]
}

// values draws a stream mixing small durations, which the sketch keeps
// exactly, with large ones across the whole int64 range.
func values(t *rapid.T) []int64 {
	return rapid.SliceOfN(rapid.OneOf(
		rapid.Int64Range(0, 300),
		rapid.Int64Range(0, 100_000),
		rapid.Int64Range(0, math.MaxInt64),
	), 1, 500).Draw(t, "values")
}

func sketchOf(t *rapid.T, vs []int64) *quantile.Sketch {
	var s quantile.Sketch
	for _, v := range vs {
		require.NoError(t, s.Add(v))
	}
	return &s
}

// TestQuantilesAreWithinTheStatedError checks every percentile against the
// exact one of the same values: never above it, below it by less than
// 1/2^Precision of it, exact below 256; the maximum and count exact.
func TestQuantilesAreWithinTheStatedError(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		vs := values(t)
		s := sketchOf(t, vs)
		sorted := slices.Sorted(slices.Values(vs))
		assert.Equal(t, sorted[len(sorted)-1], s.Max())
		assert.Equal(t, uint64(len(vs)), s.Count())
		for p := 1; p <= 100; p++ {
			want, got := exact(sorted, p), s.Quantile(p)
			require.LessOrEqual(t, got, want, "p%d", p)
			if want < 256 {
				require.Equal(t, want, got, "p%d", p)
			}
			require.True(t, want == got || float64(want-got) < float64(want)/(1<<quantile.Precision), "p%d: %d for %d", p, got, want)
		}
	})
}

// TestMergedSketchesAreTheSketchOfBothStreams: sketches of two parts of a
// stream (two workers, two shards) merge into the sketch of the whole.
func TestMergedSketchesAreTheSketchOfBothStreams(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a, b := values(t), values(t)
		whole := sketchOf(t, append(slices.Clone(a), b...))
		merged := sketchOf(t, a)
		merged.Merge(sketchOf(t, b))
		var empty quantile.Sketch
		merged.Merge(&empty)
		assert.Equal(t, whole, merged)
		empty.Merge(whole)
		assert.Equal(t, whole, &empty)
	})
}

// TestMemoryStaysBoundedAsCountsGrow: 200,000 values in a small range
// use the buckets of the range, not one per value, and values across the
// whole int64 range use at most MaxBuckets.
func TestMemoryStaysBoundedAsCountsGrow(t *testing.T) {
	var small, wide quantile.Sketch
	for i := range int64(200_000) {
		require.NoError(t, small.Add(i%5000))
		require.NoError(t, wide.Add(i*(math.MaxInt64/200_000)))
	}
	buckets := small.Buckets()
	for i := range int64(200_000) {
		require.NoError(t, small.Add(i%5000))
	}
	assert.Equal(t, buckets, small.Buckets(), "200,000 more values of the same range add no bucket")
	assert.Less(t, buckets, 800)
	require.NoError(t, wide.Add(math.MaxInt64))
	assert.LessOrEqual(t, wide.Buckets(), quantile.MaxBuckets)
	assert.Equal(t, int64(math.MaxInt64), wide.Max())
	assert.Equal(t, uint64(400_000), small.Count())
}

func TestANegativeValueIsAnError(t *testing.T) {
	var s quantile.Sketch
	require.EqualError(t, s.Add(-1), "quantile: negative value -1")
	assert.Zero(t, s.Count())
}

func TestAnEmptySketchIsZero(t *testing.T) {
	var s quantile.Sketch
	assert.Zero(t, s.Quantile(50))
	assert.Zero(t, s.Max())
}
