package fuzzrun

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// TestShardsPartitionTheSeedSpace: for any count, start and number of
// runs, shards 0..n-1 together run seeds start..start+runs-1, each once.
func TestShardsPartitionTheSeedSpace(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 9).Draw(t, "shards")
		start := rapid.Uint64Range(1, 1000).Draw(t, "start")
		runs := rapid.IntRange(1, 60).Draw(t, "runs")
		seen := map[uint64]int{}
		for i := range n {
			s := Shard{Index: i, Count: n}
			for j := 0; ; j++ {
				seed, ok := s.seed(start, runs, j)
				if !ok {
					break
				}
				seen[seed]++
			}
		}
		if len(seen) != runs {
			t.Fatalf("shards ran %d distinct seeds, want %d", len(seen), runs)
		}
		for seed, times := range seen {
			if seed < start || seed >= start+uint64(runs) || times != 1 {
				t.Fatalf("seed %d ran %d times", seed, times)
			}
		}
	})
}

func TestUnboundedShardsAreDisjoint(t *testing.T) {
	a, b := Shard{Index: 0, Count: 2}, Shard{Index: 1, Count: 2}
	for j := range 100 {
		sa, ok := a.seed(1, 0, j)
		require.True(t, ok)
		sb, _ := b.seed(1, 0, j)
		assert.Equal(t, uint64(1+2*j), sa)
		assert.Equal(t, uint64(2+2*j), sb)
	}
}

func TestParseShard(t *testing.T) {
	s, err := ParseShard(" 2 / 5 ")
	require.NoError(t, err)
	assert.Equal(t, Shard{Index: 2, Count: 5}, s)
	assert.Equal(t, "2/5", s.String())
}
