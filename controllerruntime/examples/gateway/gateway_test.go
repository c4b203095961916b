package gateway_test

import (
	"testing"
	"testing/synctest"

	"github.com/converge-sim/converge/controllerruntime/examples/gateway"
	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/properties"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// faithful are the fault kinds a real cluster shows the operator (no
// drop, no rival, no outside edit of the target's spec).
var faithful = faults.Mix{faults.KindDuplicate, faults.KindDelay, faults.KindExpire, faults.KindRestart, faults.KindStale, faults.KindAPIError, faults.KindPartition, faults.KindTimeTravel}

func world(t *testing.T) gateway.World {
	t.Helper()
	w, err := gateway.NewWorld()
	require.NoError(t, err)
	return w
}

// search searches sc from seed 1 in bubbles and returns the result with
// the memo counts of its reference runs.
func search(t *testing.T, sc properties.Scenario, mix faults.Mix, checks int) (*properties.SearchResult, properties.MemoStats) {
	t.Helper()
	// The dry run that scales the budget to the run reads the clock in a
	// bubble too.
	p, err := properties.PrepareWith(sc, mix, properties.PrepareOptions{Wrap: properties.InBubble(t)})
	require.NoError(t, err)
	res, err := p.Search(properties.SearchOptions{Test: t, Checks: checks, Seed: 1, Wrap: properties.InBubble(t)})
	require.NoError(t, err)
	return res, p.ReferenceRuns()
}

// TLS with no secret name, which the schema admits, panics the broken
// reconciler: found with no goal written, from specs drawn from the CRD,
// shrunk to one transition with the smallest port and no replicas.
func TestAGatewayInputTheOperatorMishandlesIsFoundInOneTransition(t *testing.T) {
	sc := gateway.Scenario("gateway-nil-secret", world(t), gateway.Options{DerefsSecretName: true})
	res, memo := search(t, sc, nil, 100)
	cx := res.Counterexample
	require.NotNil(t, cx)
	assert.Equal(t, properties.ControllerPanic, cx.Failure.Verdict, cx.Report())
	require.Len(t, cx.Inputs, 1, cx.Report())
	assert.Equal(t, `{replicas: 0, tls.port: 1}`, cx.Inputs[0].String())
	assert.Contains(t, cx.Failure.Summary, "gateway panicked: runtime error: invalid memory address or nil pointer dereference")
	assert.Empty(t, cx.Schedule)
	t.Logf("runs to the failure: %d, reference runs: %d misses, %d hits\n%s", res.Runs, memo.Misses, memo.Hits, cx.Report())

	synctest.Test(t, func(t *testing.T) {
		out, diverged, err := properties.Replay(sc, cx.Schedule, cx.Choices, properties.RunOptions{Inputs: cx.Inputs})
		require.NoError(t, err)
		assert.False(t, diverged)
		require.NotNil(t, out.Failure)
		assert.Equal(t, cx.Failure.Report(cx.Schedule), out.Failure.Report(cx.Schedule))
	})
}

// The fixed operator defaults the secret name: every sequence of
// transitions ends where the final spec alone leads, with no fault and
// under the faithful ones, the ReplicaSet and its pods included.
func TestTheFixedGatewayIsHistoryIndependent(t *testing.T) {
	w := world(t)
	for _, mix := range []faults.Mix{nil, faithful} {
		res, memo := search(t, gateway.Scenario("gateway-fixed", w, gateway.Options{}), mix, 50)
		if cx := res.Counterexample; cx != nil {
			t.Fatalf("must pass under %v, but:\n%s", mix, cx.Report())
		}
		t.Logf("faults %v: %d runs, reference runs: %d misses, %d hits", mix, res.Runs, memo.Misses, memo.Hits)
	}
}
