package crd_test

import (
	"encoding/json"
	"testing"

	"github.com/converge-sim/converge/controllerruntime/crd"
	"github.com/converge-sim/converge/internal/quiettb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// TestFallbackWhenTheMinimalSpecBreaksARule: the Feed's minimal spec (one
// empty source, an empty target) breaks its CEL rules, as trust-manager's
// Bundle's does. The generator still draws, every spec passes the rules
// (the fallback too: with one try most draws fall back), and the same
// seed gives the same spec from two generators.
func TestFallbackWhenTheMinimalSpecBreaksARule(t *testing.T) {
	crds := loadAll(t)
	stats := &crd.GenStats{}
	specs, err := version(t, crds, feed).Specs(crd.GenOptions{Tries: 1, Stats: stats})
	require.NoError(t, err)
	again, err := version(t, crds, feed).Specs(crd.GenOptions{Tries: 1})
	require.NoError(t, err)
	for seed := range 200 {
		s := specs.Example(seed)
		require.Equal(t, s, again.Example(seed), "seed %d", seed)
		sources, _ := s["sources"].([]any)
		require.NotEmpty(t, sources, "seed %d: %v", seed, s)
		for _, src := range sources {
			assert.Len(t, src, 1, "seed %d: a source is exactly one of its kinds: %v", seed, src)
		}
		target, _ := s["target"].(map[string]any)
		assert.True(t, target["configMap"] != nil || target["secret"] != nil, "seed %d: %v", seed, s)
	}
	assert.Positive(t, stats.Fallbacks)
}

// TestFallbacksVaryAndShrinkToTheSmallest: when the minimal spec is
// invalid, a draw that falls back chooses among the valid specs the
// search found, not always the same one, and a property that fails on
// every spec shrinks to the smallest of them: no spec drawn is shorter.
func TestFallbacksVaryAndShrinkToTheSmallest(t *testing.T) {
	setSeed := quiettb.FixedSeeds(t)
	setSeed(1)
	stats := &crd.GenStats{}
	specs, err := version(t, loadAll(t), feed).Specs(crd.GenOptions{Tries: 1, Stats: stats})
	require.NoError(t, err)
	fallbacks := map[string]bool{}
	shortest := -1
	for seed := range 200 {
		n := stats.Fallbacks
		j, err := json.Marshal(specs.Example(seed))
		require.NoError(t, err)
		if stats.Fallbacks > n {
			fallbacks[string(j)] = true
		}
		if shortest < 0 || len(j) < shortest {
			shortest = len(j)
		}
	}
	assert.Greater(t, len(fallbacks), 3, "fallbacks drawn vary")
	var last map[string]any
	tb := &quiettb.TB{}
	rapid.Check(tb, func(t *rapid.T) {
		last = specs.Draw(t, "spec")
		t.Fatalf("any spec")
	})
	require.True(t, tb.Failed())
	j, err := json.Marshal(last)
	require.NoError(t, err)
	assert.LessOrEqual(t, len(j), shortest, "shrunk to %s", j)
}
