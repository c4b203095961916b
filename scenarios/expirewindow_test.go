package scenarios_test

import (
	"slices"
	"testing"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/properties"
	"github.com/converge-sim/converge/scenarios"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReplicaSetLevelHasAnExpireWindow settles the reference claim of
// replicaset-level (docs/design.md, "Prompt convergence"): under expire a
// single expired Pod watch, in the interleaving PCT seed 6844 chooses,
// leaves it resync-dependent, so the catalog claims convergence only under
// every healable fault but expire; and under that mix it converges, the
// same seed included.
func TestReplicaSetLevelHasAnExpireWindow(t *testing.T) {
	sc := scenarios.ReplicaSetLevel()
	pct := properties.Strategy{Name: properties.StrategyPCT}
	const seed = 6844

	res, err := properties.Search(sc, faults.Mix{faults.KindExpire}, properties.SearchOptions{Test: t, Checks: 1, Seed: seed, Strategy: pct})
	require.NoError(t, err)
	cx := res.Counterexample
	require.NotNil(t, cx, "PCT seed %d must find the expire window", seed)
	assert.Equal(t, properties.ResyncDependent, cx.Failure.Verdict, cx.Report())
	assert.Equal(t, 1, cx.Schedule.Count(faults.KindExpire), cx.Report())
	assert.Len(t, cx.Schedule, 1, cx.Report())

	butExpire := slices.DeleteFunc(slices.Clone(scenarios.Healable), func(k faults.Kind) bool { return k == faults.KindExpire })
	var declared bool
	for _, e := range sc.Expect {
		assert.False(t, e.Fails == "" && slices.Contains(e.Faults, faults.KindExpire), "replicaset-level must not claim convergence under expire: %s", e.Faults)
		declared = declared || (e.Fails == "" && slices.Equal(e.Faults, butExpire))
	}
	assert.True(t, declared, "replicaset-level claims convergence under every healable fault but expire")

	for _, opts := range []properties.SearchOptions{
		{Test: t, Checks: 1, Seed: seed, Strategy: pct},
		{Test: t, Checks: 100, Seed: 1, Strategy: pct},
		{Test: t, Checks: 100, Seed: 1},
	} {
		res, err := properties.Search(sc, butExpire, opts)
		require.NoError(t, err)
		if cx := res.Counterexample; cx != nil {
			t.Fatalf("replicaset-level must converge under %s, but:\n%s", butExpire, cx.Report())
		}
	}
}
