package memcached_test

import (
	"testing"
	"testing/synctest"

	crt "github.com/converge-sim/converge/controllerruntime"
	"github.com/converge-sim/converge/controllerruntime/examples/memcached"
	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/properties"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestExploreFindsForgottenOwnsAtDepthOne: bounded exhaustive exploration
// of the project as it is, every execution in its own bubble, finds the
// Memcached that never hears its Deployment became ready on the canonical
// schedule itself, without a fault, and the counterexample replays byte
// for byte.
func TestExploreFindsForgottenOwnsAtDepthOne(t *testing.T) {
	sc := memcached.Scenario("memcached-bug", converter(t), memcached.Options{ForgetOwns: true})
	res, err := crt.Explore(t, sc, faults.Mix{faults.KindEdit}, properties.ExploreOptions{Depth: 4})
	require.NoError(t, err)
	cx := res.Counterexample
	require.NotNil(t, cx)
	assert.Equal(t, 1, res.Depth)
	assert.Equal(t, properties.GoalUnmet, cx.Failure.Verdict, cx.Report())
	assert.Contains(t, cx.Failure.Report(cx.Schedule), "is not Available")
	assert.Equal(t, "go test ./examples/memcached -run '^TestExploreFindsForgottenOwnsAtDepthOne$'", cx.Replay)
	synctest.Test(t, func(t *testing.T) {
		out, diverged, err := properties.Replay(sc, cx.Schedule, cx.Choices, properties.RunOptions{})
		require.NoError(t, err)
		assert.False(t, diverged)
		assert.Equal(t, cx.Trace.Hash(), out.Cluster.Trace().Hash())
	})
}

// TestExploreTheFixedProject: the fixed project shows nothing within the
// bounds; the built-in controllers declare their memory and the adapter
// walks the project's reconciler (a client, a scheme, a recorder and a
// flag), and its user is an actor whose move is a func declared at
// package level, which captures nothing, so the guarantee names nothing;
// and the exploration is the same every time, as the clock user code
// reads is virtual.
func TestExploreTheFixedProject(t *testing.T) {
	sc := memcached.Scenario("memcached", converter(t), memcached.Options{})
	opts := properties.ExploreOptions{Depth: 3}
	res, err := crt.Explore(t, sc, faults.Mix{faults.KindEdit}, opts)
	require.NoError(t, err)
	assert.Nil(t, res.Counterexample)
	assert.Empty(t, res.Unfingerprinted)
	assert.Contains(t, res.Guarantee(), "memcached: no counterexample with ≤1 fault (edit) and ≤3 decisions (")
	assert.NotContains(t, res.Guarantee(), "memory not fingerprinted")

	again, err := crt.Explore(t, sc, faults.Mix{faults.KindEdit}, opts)
	require.NoError(t, err)
	assert.Equal(t, res.Guarantee(), again.Guarantee())

	// Its executions run in their own bubbles, two at a time, alike.
	opts.Workers = 2
	side, err := crt.Explore(t, sc, faults.Mix{faults.KindEdit}, opts)
	require.NoError(t, err)
	assert.Nil(t, side.Counterexample)
	assert.Equal(t, res.Depth, side.Depth)
	assert.Contains(t, side.Guarantee(), "sleep sets, 2 workers;")
}
