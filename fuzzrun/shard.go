package fuzzrun

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Environment variables that select a shard when -shard is not given.
const (
	// EnvShardIndex is the shard index; a Kubernetes Indexed Job sets it
	// in every pod.
	EnvShardIndex = "JOB_COMPLETION_INDEX"
	// EnvShardCount is the number of shards. Kubernetes does not set it:
	// the Job's manifest does, to the Job's completions.
	EnvShardCount = "JOB_COMPLETIONS"
)

// Shard is one of Count disjoint parts of the seed space: each row's seeds
// start+Index, start+Index+Count, start+Index+2·Count, … Shards 0..Count−1
// together run every seed one unsharded campaign would, each exactly once.
type Shard struct {
	Index, Count int
}

// String renders "i/n".
func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// MaxShards bounds a shard count: far more than any CI matrix or Indexed
// Job, and small enough that seed offsets cannot overflow.
const MaxShards = 1 << 20

// ParseShard parses "i/n" with 0 <= i < n.
func ParseShard(v string) (Shard, error) {
	is, ns, ok := strings.Cut(v, "/")
	if !ok {
		return Shard{}, fmt.Errorf("shard %q: want i/n, as in 0/4", v)
	}
	i, err := strconv.Atoi(strings.TrimSpace(is))
	if err != nil {
		return Shard{}, fmt.Errorf("shard %q: index %q is not a number", v, is)
	}
	n, err := strconv.Atoi(strings.TrimSpace(ns))
	if err != nil {
		return Shard{}, fmt.Errorf("shard %q: count %q is not a number", v, ns)
	}
	return newShard(i, n, v)
}

func newShard(i, n int, v string) (Shard, error) {
	switch {
	case n < 1:
		return Shard{}, fmt.Errorf("shard %s: the count must be at least 1", v)
	case n > MaxShards:
		return Shard{}, fmt.Errorf("shard %s: the count must be at most %d", v, MaxShards)
	case i < 0 || i >= n:
		return Shard{}, fmt.Errorf("shard %s: the index must be in 0..%d", v, n-1)
	}
	return Shard{Index: i, Count: n}, nil
}

// shardFromEnv reads the shard from EnvShardIndex and EnvShardCount; with
// neither set it is the whole seed space, 0/1.
func shardFromEnv(getenv func(string) string) (Shard, error) {
	is, ns := getenv(EnvShardIndex), getenv(EnvShardCount)
	switch {
	case is == "" && ns == "":
		return Shard{Index: 0, Count: 1}, nil
	case is == "":
		return Shard{}, fmt.Errorf("%s=%s is set but %s is not", EnvShardCount, ns, EnvShardIndex)
	case ns == "":
		return Shard{}, fmt.Errorf("%s=%s is set but %s is not: set it to the Job's completions (docs/ci.md)", EnvShardIndex, is, EnvShardCount)
	}
	i, err := strconv.Atoi(is)
	if err != nil {
		return Shard{}, fmt.Errorf("%s=%q is not a number", EnvShardIndex, is)
	}
	n, err := strconv.Atoi(ns)
	if err != nil {
		return Shard{}, fmt.Errorf("%s=%q is not a number", EnvShardCount, ns)
	}
	return newShard(i, n, fmt.Sprintf("%s/%s from %s/%s", is, ns, EnvShardIndex, EnvShardCount))
}

// seed returns the j-th seed of the shard, and whether it lies within the
// first runs seeds of the space (runs 0 is unbounded).
func (s Shard) seed(start uint64, runs, j int) (uint64, bool) {
	off := s.Index + j*s.Count
	if runs > 0 && off >= runs {
		return 0, false
	}
	// The seed space ends at the largest uint64: wrapping around would
	// reach 0, which rapid reads as "pick a seed at random".
	if uint64(off) > math.MaxUint64-start {
		return 0, false
	}
	return start + uint64(off), true
}
