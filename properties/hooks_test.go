package properties_test

import (
	"testing"

	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
	"github.com/converge-sim/converge/scenarios"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTraceAndFightDetectionSurviveAUserHook: a scenario whose Build adds
// its own write callback and intercept to the server still has its writes
// recorded in the trace and its fight found, exactly as without them.
func TestTraceAndFightDetectionSurviveAUserHook(t *testing.T) {
	plain := scenarios.HPAGitOpsFight()
	hooked := plain
	var built, seen, asked int
	hooked.Build = func(cfg model.Config) (*model.Cluster, error) {
		c, err := plain.Build(cfg)
		if err != nil {
			return nil, err
		}
		built = c.Writes()
		c.Server().OnWrite(func(model.Write) { seen++ })
		c.Server().AddIntercept(func(string, model.Verb, model.Ref) (error, bool) { asked++; return nil, false })
		return c, nil
	}

	want, _, err := properties.Replay(plain, nil, nil, properties.RunOptions{})
	require.NoError(t, err)
	got, _, err := properties.Replay(hooked, nil, nil, properties.RunOptions{})
	require.NoError(t, err)

	require.NotNil(t, want.Failure)
	require.Equal(t, properties.Fight, want.Failure.Verdict, "the scenario fights without hooks")
	require.NotNil(t, got.Failure, "a user hook hid the fight")
	assert.Equal(t, *want.Failure, *got.Failure)
	assert.Equal(t, want.Cluster.Trace().Hash(), got.Cluster.Trace().Hash(), "a user hook changed the trace")
	recorded := 0
	for _, r := range got.Cluster.Trace().Records {
		recorded += len(r.Writes)
	}
	assert.Equal(t, got.Cluster.Writes(), recorded, "the trace missed writes")
	assert.Equal(t, got.Cluster.Writes()-built, seen, "the user's callback missed writes")
	assert.Positive(t, asked)
}
