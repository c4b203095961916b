package cronjob_test

import (
	"testing"
	"testing/synctest"

	crt "github.com/converge-sim/converge/controllerruntime"
	"github.com/converge-sim/converge/controllerruntime/examples/cronjob"
	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/properties"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestExploreFindsTheDoubleRun: bounded exhaustive exploration of the
// time-driven project, every execution in its own bubble so that the
// reconciler's clock is the model's, finds the Job a late event makes it
// create twice for one run, with one choice off the canonical schedule,
// at depth 4; the counterexample replays byte for byte. The fixed project
// shows nothing within the same bounds.
func TestExploreFindsTheDoubleRun(t *testing.T) {
	conv := converter(t)
	late := faults.Mix{faults.KindDelay}
	opts := properties.ExploreOptions{Depth: 6, Deviations: 1}
	buggy := cronjob.Scenario("periodicjob-bug", conv, cronjob.Options{NameByCreationTime: true})
	res, err := crt.Explore(t, buggy, late, opts)
	require.NoError(t, err)
	cx := res.Counterexample
	require.NotNil(t, cx, res.Guarantee())
	assert.Equal(t, 4, res.Depth)
	assert.Equal(t, "invariant one Job per run", cx.Failure.Property, cx.Report())
	require.Len(t, cx.Schedule, 1, cx.Report())
	assert.Equal(t, faults.KindDelay, cx.Schedule[0].Fault.Kind())
	synctest.Test(t, func(t *testing.T) {
		out, diverged, err := properties.Replay(buggy, cx.Schedule, cx.Choices, properties.RunOptions{})
		require.NoError(t, err)
		assert.False(t, diverged)
		assert.Equal(t, cx.Trace.Hash(), out.Cluster.Trace().Hash())
	})

	res, err = crt.Explore(t, cronjob.Scenario("periodicjob", conv, cronjob.Options{}), late, opts)
	require.NoError(t, err)
	assert.Nil(t, res.Counterexample, res.Guarantee())
	assert.Equal(t, 6, res.Depth)
	t.Log(res.Guarantee())
}
