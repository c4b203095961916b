package properties_test

import (
	"testing"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
	"github.com/converge-sim/converge/scenarios"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// countBuilds makes sc count the clusters it builds; the count is the
// returned int's.
func countBuilds(sc *properties.Scenario) *int {
	n := new(int)
	build := sc.Build
	sc.Build = func(cfg model.Config) (*model.Cluster, error) {
		*n++
		return build(cfg)
	}
	return n
}

// TestAPreparedScenarioBuildsOnlyForItsRuns: Prepare builds the scenario
// once, and once more for the fault-free dry run that scales the budget
// to the run (a mix with faults; docs/design.md, "Faults"); a search of
// it then builds one cluster per run, plus, for its first PCT search, the
// dry run that estimates PCT's steps.
func TestAPreparedScenarioBuildsOnlyForItsRuns(t *testing.T) {
	sc := scenarios.ReplicaSetLevel()
	builds := countBuilds(&sc)
	p, err := properties.Prepare(sc, faults.Mix{faults.KindDrop, faults.KindRestart, faults.KindEdit})
	require.NoError(t, err)
	require.Equal(t, 2, *builds, "Prepare builds once, and once for its dry run")
	for _, tc := range []struct {
		strategy properties.Strategy
		seed     uint64
		want     int
	}{
		{properties.Strategy{}, 1, 1},
		{properties.Strategy{}, 2, 1},
		{pct, 1, 2}, // and the dry run
		{pct, 2, 1},
		{properties.Strategy{Name: properties.StrategyPCT, Depth: 2}, 3, 1},
	} {
		before := *builds
		res, err := p.Search(properties.SearchOptions{Checks: 1, Seed: tc.seed, Strategy: tc.strategy})
		require.NoError(t, err)
		require.Nil(t, res.Counterexample, "replicaset-level converges under drop, restart and edit")
		assert.Equal(t, tc.want, *builds-before, "%s, seed %d", tc.strategy, tc.seed)
	}
}

// TestAPreparedScenarioSearchesAsAFreshOne: searches that reuse one
// prepared scenario, each after others, find what a fresh Search finds,
// down to the trace and the replay line; that includes a second search of
// one bug, one finding.
func TestAPreparedScenarioSearchesAsAFreshOne(t *testing.T) {
	skipUnderRace(t)
	sc := scenarios.ReplicaSetEdge()
	for _, mix := range []faults.Mix{{faults.KindDrop}, {faults.KindDrop, faults.KindRestart}} {
		p, err := properties.Prepare(sc, mix)
		require.NoError(t, err)
		for _, s := range []properties.Strategy{{}, pct} {
			for seed := uint64(1); seed <= 2; seed++ {
				opts := properties.SearchOptions{Checks: 100, Seed: seed, Strategy: s}
				reused, err := p.Search(opts)
				require.NoError(t, err)
				fresh, err := properties.Search(sc, mix, opts)
				require.NoError(t, err)
				require.NotNil(t, fresh.Counterexample, "%s, %s, seed %d", mix, s, seed)
				require.NotNil(t, reused.Counterexample, "%s, %s, seed %d", mix, s, seed)
				a, b := reused.Counterexample, fresh.Counterexample
				assert.Equal(t, b.Seed, a.Seed)
				assert.Equal(t, b.Faults, a.Faults)
				assert.Equal(t, b.Schedule, a.Schedule)
				assert.Equal(t, b.Choices, a.Choices)
				assert.Equal(t, b.Trace.Hash(), a.Trace.Hash())
				assert.Equal(t, b.Replay, a.Replay)
				assert.Equal(t, b.Adversarial, a.Adversarial)
				assert.Equal(t, fresh.Runs, reused.Runs)
			}
		}
	}
}

// TestReplayLine: one rule for -pct-depth, printed only when the depth
// is not the default, however the default is spelled.
func TestReplayLine(t *testing.T) {
	mix := faults.Mix{faults.KindDrop, faults.KindEdit}
	for _, tc := range []struct {
		s    properties.Strategy
		want string
	}{
		{properties.Strategy{}, "fuzzrun -scenario sc -faults drop,edit -seed 7"},
		{properties.Strategy{Name: properties.StrategyRandom}, "fuzzrun -scenario sc -faults drop,edit -seed 7"},
		{pct, "fuzzrun -scenario sc -faults drop,edit -strategy pct -seed 7"},
		{properties.Strategy{Name: properties.StrategyPCT, Depth: properties.DefaultPCTDepth}, "fuzzrun -scenario sc -faults drop,edit -strategy pct -seed 7"},
		{properties.Strategy{Name: properties.StrategyPCT, Depth: 2}, "fuzzrun -scenario sc -faults drop,edit -strategy pct -pct-depth 2 -seed 7"},
	} {
		assert.Equal(t, tc.want, properties.ReplayLine("fuzzrun", "sc", mix, tc.s, 7), "%+v", tc.s)
	}
}

// TestFaultTargetsAimTheFaultsAtTheNamedControllers: a scenario that names
// its operator in FaultTargets draws every fault aimed at a controller at
// the operator alone (edits are not aimed at one, and stay); a name that
// is not a controller of the cluster, or one named twice, is an error.
func TestFaultTargetsAimTheFaultsAtTheNamedControllers(t *testing.T) {
	sc := scenarios.DatabaseBroken()
	require.Equal(t, []string{"database"}, sc.FaultTargets)
	all := sc
	all.FaultTargets = nil
	mix := faults.Mix{faults.KindRestart, faults.KindDrop, faults.KindEdit}
	whole, err := properties.PlanFor(all, mix)
	require.NoError(t, err)
	require.Greater(t, len(whole.Topology.Targets), 1, "the operator runs among built-in controllers")

	aimed, err := properties.PlanFor(sc, mix)
	require.NoError(t, err)
	require.Len(t, aimed.Topology.Targets, 1)
	assert.Equal(t, "database", aimed.Topology.Targets[0].Controller)
	assert.Equal(t, whole.Topology.Edits, aimed.Topology.Edits)
	struck := 0
	for seed := range 50 {
		for _, f := range faults.Schedules(mix, aimed.Topology, aimed.Budget).Example(seed) {
			if a, ok := f.Fault.(faults.Aimed); ok {
				assert.Equal(t, "database", a.Target(), "seed %d: %s", seed, f)
				struck++
			}
		}
	}
	assert.Positive(t, struck, "restarts and drops were drawn")

	for names, want := range map[string][]string{
		`FaultTargets names "kubelet", which is not a controller of its cluster`: {"database", "kubelet"},
		`FaultTargets names "database" twice`:                                    {"database", "database"},
	} {
		bad := sc
		bad.FaultTargets = want
		_, err := properties.Prepare(bad, mix)
		require.Error(t, err)
		assert.Contains(t, err.Error(), names)
	}
}
