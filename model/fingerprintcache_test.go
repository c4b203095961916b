package model_test

import (
	"math/rand/v2"
	"testing"

	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/scenarios"
	"github.com/stretchr/testify/require"
)

// TestFingerprintCacheAgrees: at every step of random runs of every
// catalog scenario, the fingerprint a cluster computes with its cache of
// object and history hashes equals one computed afresh, so the cache
// never keeps a hash of something that changed.
func TestFingerprintCacheAgrees(t *testing.T) {
	for _, sc := range scenarios.All() {
		for seed := range uint64(3) {
			c, err := sc.Build(model.Config{DiscardTrace: true})
			require.NoError(t, err, sc.Name)
			require.NoError(t, c.Start(), sc.Name)
			r := rand.New(rand.NewPCG(seed, 7))
			var acts []model.Action
			for step := 0; step < 400 && c.Panic() == nil; step++ {
				require.Equal(t, model.FreshFingerprint(c), c.Fingerprint(), "%s seed %d step %d", sc.Name, seed, step)
				if acts = c.Enabled(acts[:0]); len(acts) == 0 {
					break
				}
				c.Do(acts[r.IntN(len(acts))])
			}
		}
	}
}
