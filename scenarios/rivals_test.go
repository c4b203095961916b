package scenarios_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
	"github.com/converge-sim/converge/scenarios"
	"github.com/stretchr/testify/require"
)

// prng is a chooser for checks of every run, outside rapid's search.
type prng struct{ r *rand.Rand }

func (p prng) Choose(n int, _ string) int { return p.r.IntN(n) }

// rivalRuns is how many seeded runs TestFightsAlwaysInvolveAController
// checks per scenario.
const rivalRuns = 300

// healableMix is every fault kind but rival.
func healableMix(sc properties.Scenario) faults.Mix {
	var mix faults.Mix
	for _, k := range faults.Kinds() {
		if k == faults.KindRival || (k == faults.KindEdit && len(sc.Edits) == 0) {
			continue
		}
		mix = append(mix, k)
	}
	return mix
}

// claimsConvergenceWithoutRivals says whether sc claims convergence under
// some faults that include no rival: replicaset-level claims it under every
// healable fault but expire, not under all of them (its expectations).
func claimsConvergenceWithoutRivals(sc properties.Scenario) bool {
	return slices.ContainsFunc(sc.Expect, func(e properties.Expectation) bool {
		return e.Fails == "" && len(e.Faults) > 0 && !slices.Contains(e.Faults, faults.KindRival)
	})
}

// TestFightsAlwaysInvolveAController checks every run of 300 seeds, not only
// the first failure of a search: each reference scenario that declares rivals and
// whose controller converges under faults without rivals may fail under rival
// only by a fight between one of its controllers and the rival. Before a
// field had at most one rival, two persistent rivals with different values
// fought each other within 1 to 36 runs.
func TestFightsAlwaysInvolveAController(t *testing.T) {
	checked := 0
	for _, sc := range scenarios.All() {
		if len(sc.Rivals) == 0 {
			continue
		}
		if !claimsConvergenceWithoutRivals(sc) {
			continue
		}
		checked++
		mix := faults.Mix{faults.KindRival}
		plan, err := properties.PlanFor(sc, mix)
		require.NoError(t, err)
		gen := faults.Schedules(mix, plan.Topology, plan.Budget)
		cluster, err := sc.Build(model.Config{DiscardTrace: true})
		require.NoError(t, err)
		controllers := cluster.Controllers()
		for seed := range uint64(rivalRuns) {
			sched := gen.Example(int(seed))
			out, err := properties.Execute(sc, sched, prng{rand.New(rand.NewPCG(seed, 11))}, properties.RunOptions{DiscardTrace: true})
			require.NoError(t, err)
			f := out.Failure
			if f == nil {
				continue
			}
			require.Equal(t, properties.Fight, f.Verdict, "%s seed %d: under rival only a fight may fail: %s", sc.Name, seed, f.Summary)
			involved := slices.ContainsFunc(f.Writers, func(w string) bool { return slices.Contains(controllers, w) })
			require.True(t, involved && len(f.Writers) == 2 && slices.Contains(f.Writers, faults.RivalWriter),
				"%s seed %d: a fight must be between one controller and the rival, got %v\n%s", sc.Name, seed, f.Writers, f.Report(sched))
		}
	}
	require.Positive(t, checked, "no reference scenario with rivals converges under the healable faults")
}
