package properties_test

import (
	"testing"
	"testing/synctest"

	"github.com/converge-sim/converge/properties"
	"github.com/converge-sim/converge/scenarios"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRunOptionsWrapRunsTheExecutionInside: RunOptions.Wrap runs the
// execution inside it, once, and the run is the one without it; a wrap
// that does not call it, or calls it twice, is an error.
func TestRunOptionsWrapRunsTheExecutionInside(t *testing.T) {
	sc := scenarios.ReplicaSetLevel()
	plain, plainDiverged, err := properties.Replay(sc, nil, nil, properties.RunOptions{})
	require.NoError(t, err)

	calls, bubbled := 0, false
	out, diverged, err := properties.Replay(sc, nil, nil, properties.RunOptions{Wrap: func(run func()) {
		calls++
		synctest.Test(t, func(*testing.T) {
			run()
			bubbled = true
		})
	}})
	require.NoError(t, err)
	assert.Equal(t, plainDiverged, diverged)
	assert.Equal(t, 1, calls)
	assert.True(t, bubbled)
	assert.Equal(t, plain.Cluster.Trace().Hash(), out.Cluster.Trace().Hash())

	_, _, err = properties.Replay(sc, nil, nil, properties.RunOptions{Wrap: func(func()) {}})
	require.ErrorContains(t, err, "the run's Wrap (RunOptions) called it 0 times, want exactly once")
	_, _, err = properties.Replay(sc, nil, nil, properties.RunOptions{Wrap: func(run func()) { run(); run() }})
	require.ErrorContains(t, err, "the run's Wrap (RunOptions) called it 2 times, want exactly once")
}
