package faults_test

import (
	"testing"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/internal/quiettb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// narrow counts, over schedules of at least four faults drawn from fixed
// seeds, those whose faults are all of one kind and those aimed at one
// controller alone.
func narrow(t *testing.T, b faults.Budget, mix faults.Mix) (long, oneKind, oneController int) {
	gen := faults.Schedules(mix, topo, b)
	for seed := range 2000 {
		s := gen.Example(seed)
		require.NoError(t, s.Fits(mix, topo, b), "seed %d", seed)
		if len(s) < 4 {
			continue
		}
		long++
		kinds, controllers := map[faults.Kind]bool{}, map[string]bool{}
		for _, f := range s {
			kinds[f.Fault.Kind()] = true
			controllers[f.Fault.(interface{ Target() string }).Target()] = true
		}
		if len(kinds) == 1 {
			oneKind++
		}
		if len(controllers) == 1 {
			oneController++
		}
	}
	return long, oneKind, oneController
}

// TestSwarmDrawsAScheduleFromAPartOfTheMix: with Swarm, a schedule of
// four faults or more, drawn from a mix of four kinds aimed at two
// controllers, is often of one kind, or aimed at one controller alone;
// under the uniform draw that is rare. The same seed draws the same
// schedule, and every schedule fits the mix and the budget.
func TestSwarmDrawsAScheduleFromAPartOfTheMix(t *testing.T) {
	mix := faults.Mix{faults.KindDrop, faults.KindExpire, faults.KindRestart, faults.KindPartition}
	b := faults.Budget{MaxFaults: 6, Horizon: 50, MaxDown: 7}
	uniformLong, uniformKind, uniformController := narrow(t, b, mix)
	b.Swarm = true
	long, oneKind, oneController := narrow(t, b, mix)
	t.Logf("uniform: %d long, %d of one kind, %d at one controller; swarm: %d long, %d of one kind, %d at one controller",
		uniformLong, uniformKind, uniformController, long, oneKind, oneController)
	require.Greater(t, long, 100)
	require.Greater(t, uniformLong, 100)
	assert.Greater(t, oneKind*uniformLong, 10*max(uniformKind, 1)*long, "swarm schedules of one kind")
	assert.Greater(t, oneController*uniformLong, 2*uniformController*long, "swarm schedules aimed at one controller")

	gen := faults.Schedules(mix, topo, b)
	for seed := range 50 {
		assert.Equal(t, gen.Example(seed), gen.Example(seed), "seed %d", seed)
	}
}

// TestSwarmShrinksToOneFault: with Swarm, a failure that needs a stale
// informer of controller b, among every kind of fault, shrinks to exactly
// that one fault, at t=0 with its least parameters, from every one of 40
// fixed seeds: the part of the mix drawn first blocks no deletion.
func TestSwarmShrinksToOneFault(t *testing.T) {
	setSeed := quiettb.FixedSeeds(t)
	b := budget
	b.Swarm = true
	gen := faults.Schedules(faults.Mix(faults.Kinds()), topo, b)
	want := faults.Schedule{{At: 0, Fault: faults.Stale{Controller: "b", Resource: "Pod", Behind: 1, For: 1}}}
	for seed := 1; seed <= 40; seed++ {
		setSeed(uint64(seed))
		var last faults.Schedule
		tb := &quiettb.TB{}
		rapid.Check(tb, func(t *rapid.T) {
			s := gen.Draw(t, "s")
			for _, f := range s {
				if st, ok := f.Fault.(faults.Stale); ok && st.Controller == "b" {
					last = s
					t.Fatalf("found")
				}
			}
		})
		require.True(t, tb.Failed(), "seed %d: no schedule had a stale informer of b", seed)
		assert.Equal(t, want, last, "seed %d", seed)
	}
}
