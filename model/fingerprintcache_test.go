package model_test

import (
	"math/rand/v2"
	"testing"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/scenarios"
	"github.com/stretchr/testify/assert"
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

// TestFingerprintCacheAgreesUnderFaults: the same, with faults of every
// kind a scenario can take applied at random steps (and whenever nothing
// is enabled), so that stale and partitioned caches, held and delayed
// events, restarts and time travel are hashed too; with a history window
// of 4 events, so that compaction drops the history's start again and
// again, and hashing every step in one seed and every third in the
// other, so that both ways the cache notices a compaction are taken.
func TestFingerprintCacheAgreesUnderFaults(t *testing.T) {
	budget := faults.Budget{MaxFaults: 1, Horizon: 10, MaxDown: 3}
	applied := map[faults.Kind]int{}
	for _, sc := range scenarios.All() {
		for seed := range uint64(2) {
			c, err := sc.Build(model.Config{DiscardTrace: true, HistoryWindow: 4})
			require.NoError(t, err, sc.Name)
			topo := faults.TopologyOf(c, sc.Edits, sc.Rivals)
			var space []faults.Fault
			for _, k := range faults.Kinds() {
				if fs, err := faults.Canonical(faults.Mix{k}, topo, budget); err == nil {
					space = append(space, fs...)
				}
			}
			require.NotEmpty(t, space, sc.Name)
			require.NoError(t, c.Start(), sc.Name)
			r := rand.New(rand.NewPCG(seed, 11))
			var acts []model.Action
			idle := 0
			for step := 0; step < 400 && c.Panic() == nil && idle < 5; step++ {
				if step%int(1+2*seed) == 0 {
					require.Equal(t, model.FreshFingerprint(c), c.Fingerprint(), "%s seed %d step %d", sc.Name, seed, step)
				}
				acts = c.Enabled(acts[:0])
				if len(acts) == 0 {
					idle++
				}
				if len(acts) == 0 || r.IntN(15) == 0 {
					f := space[r.IntN(len(space))]
					require.NoError(t, f.Apply(c), "%s: %s", sc.Name, f)
					applied[f.Kind()]++
					continue
				}
				idle = 0
				c.Do(acts[r.IntN(len(acts))])
			}
		}
	}
	for _, k := range faults.Kinds() {
		assert.Positive(t, applied[k], "no %s fault was applied", k)
	}
}
