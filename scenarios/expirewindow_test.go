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

// TestDeploymentHasATimeTravelWindow settles the deployment row's claim
// (scenarios.Deployment): under time travel alone, seed 1406 restarts the
// ReplicaSet controller onto a server far behind, and it deletes pods below
// the rollout's availability bound; so the catalog claims the bounds under
// every healable fault but time travel, and under that mix the same seed
// holds.
func TestDeploymentHasATimeTravelWindow(t *testing.T) {
	sc := scenarios.Deployment()
	const seed = 1406

	res, err := properties.Search(sc, faults.Mix{faults.KindTimeTravel}, properties.SearchOptions{Test: t, Checks: 1, Seed: seed})
	require.NoError(t, err)
	cx := res.Counterexample
	require.NotNil(t, cx, "seed %d must find the time-travel window", seed)
	assert.Equal(t, properties.InvariantBroken, cx.Failure.Verdict, cx.Report())
	assert.Equal(t, cx.Schedule.Count(faults.KindTimeTravel), len(cx.Schedule), cx.Report())

	butTimeTravel := slices.DeleteFunc(slices.Clone(scenarios.Healable), func(k faults.Kind) bool { return k == faults.KindTimeTravel })
	var declared bool
	for _, e := range sc.Expect {
		assert.False(t, e.Fails == "" && slices.Contains(e.Faults, faults.KindTimeTravel), "deployment must not claim its bounds under time travel: %s", e.Faults)
		declared = declared || (e.Fails == "" && slices.Equal(e.Faults, butTimeTravel))
	}
	assert.True(t, declared, "deployment claims its bounds under every healable fault but time travel")

	res, err = properties.Search(sc, butTimeTravel, properties.SearchOptions{Test: t, Checks: 1, Seed: seed})
	require.NoError(t, err)
	if cx := res.Counterexample; cx != nil {
		t.Fatalf("deployment must converge under %s, but:\n%s", butTimeTravel, cx.Report())
	}
}
