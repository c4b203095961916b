package replicaset_test

import (
	"testing"
	"testing/synctest"

	crt "github.com/converge-sim/converge/controllerruntime"
	"github.com/converge-sim/converge/controllerruntime/examples/replicaset"
	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/properties"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestExploreFindsDuplicatePodsAndProvesSlots: bounded exhaustive
// exploration of the controller-runtime reconciler finds the duplicate
// pods a stale List makes with generated names, at its minimal depth, and
// its counterexample replays byte for byte; the fixed twin (numbered
// slots) shows nothing within the same bounds. The reconciler declares
// that it keeps no memory, and the chaos actor's move is a func declared
// at package level, so the guarantee names nothing.
func TestExploreFindsDuplicatePodsAndProvesSlots(t *testing.T) {
	conv := converter(t)
	mix := faults.Mix{faults.KindDrop, faults.KindRestart}
	opts := properties.ExploreOptions{Depth: 6, Deviations: 2}
	buggy := replicaset.Scenario("generatename", conv, replicaset.Options{GenerateName: true})
	buggy.Invariants = []properties.Invariant{replicaset.AtMostOneExtraPod(conv)}
	res, err := crt.Explore(t, buggy, mix, opts)
	require.NoError(t, err)
	cx := res.Counterexample
	require.NotNil(t, cx, res.Guarantee())
	assert.Equal(t, properties.InvariantBroken, cx.Failure.Verdict, cx.Report())
	t.Logf("%s\n%s", res.Guarantee(), cx.Report())
	synctest.Test(t, func(t *testing.T) {
		out, diverged, err := properties.Replay(buggy, cx.Schedule, cx.Choices, properties.RunOptions{})
		require.NoError(t, err)
		assert.False(t, diverged)
		assert.Equal(t, cx.Trace.Hash(), out.Cluster.Trace().Hash())
	})

	fixed := buggy
	fixed.Name = "slots"
	fixed.Build = replicaset.Scenario("slots", conv, replicaset.Options{}).Build
	res, err = crt.Explore(t, fixed, mix, opts)
	require.NoError(t, err)
	assert.Nil(t, res.Counterexample)
	assert.Empty(t, res.Unfingerprinted)
	assert.Contains(t, res.Guarantee(), "slots: no counterexample with ≤1 fault (drop,restart) and ≤6 decisions, ≤2 of them off the canonical schedule (")
	t.Log(res.Guarantee())
}
