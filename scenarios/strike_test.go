package scenarios_test

import (
	"github.com/converge-sim/converge/faults"
	"math/rand/v2"
	"testing"

	"github.com/converge-sim/converge/properties"
	"github.com/converge-sim/converge/scenarios"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestScheduledFaultsStrike: in the runs of each reference scenario that
// must converge under the healable faults, every scheduled fault strikes
// before quiescence in at least 98 of 100. With a fault phase of 400 steps,
// a third of the deployment runs healed before the clock reached their last
// fault. A run still misses when the cluster stays busy for the whole step
// budget of the fault phase, and the clock never gets there.
func TestScheduledFaultsStrike(t *testing.T) {
	const runs = 100
	for _, sc := range scenarios.All() {
		mix := healableMix(sc)
		if e, ok := sc.ExpectationFor(mix); !ok || e.Fails != "" {
			continue
		}
		plan, err := properties.PlanFor(sc, mix)
		require.NoError(t, err)
		missed := 0
		for seed := range uint64(runs) {
			sched := randomSchedule(int(seed), plan, mix)
			out, err := properties.Execute(sc, sched, prng{rand.New(rand.NewPCG(seed, 13))}, properties.RunOptions{DiscardTrace: true})
			require.NoError(t, err)
			if out.Healed && out.FaultsFired < len(sched) {
				missed++
				t.Logf("%s seed %d: steps %d, struck %s of %s", sc.Name, seed, out.FaultSteps, out.Struck(), sched)
			}
		}
		assert.LessOrEqual(t, missed, 2, "%s under %s: %d of %d runs healed before all their faults struck", sc.Name, mix, missed, runs)
	}
}

// randomSchedule draws a schedule from the generator rapid uses, from a
// seed, outside rapid.
func randomSchedule(seed int, plan properties.Plan, mix faults.Mix) faults.Schedule {
	return faults.Schedules(mix, plan.Topology, plan.Budget).Example(seed)
}
