package crd_test

import (
	"testing"

	"github.com/converge-sim/converge/controllerruntime/crd"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
