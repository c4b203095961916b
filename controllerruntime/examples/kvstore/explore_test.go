package kvstore_test

import (
	"testing"
	"testing/synctest"

	crt "github.com/converge-sim/converge/controllerruntime"
	"github.com/converge-sim/converge/controllerruntime/examples/kvstore"
	"github.com/converge-sim/converge/properties"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestExploreFindsTheInputBugs: exploration applies every sequence of up
// to three transitions among six specs drawn from the CRD's schema, and
// finds both bugs at depth 1 with no fault, each with the fewest
// transitions that show it; each counterexample replays byte for byte in
// a bubble. The fixed operator shows nothing at depth 2, and its
// reconciler's memory, walked by the adapter, is in the state key. The
// explorations share the world's CRDs, whose admissions they remember
// (crd's admissionMemo): one of a world that remembers none shows the
// same states and executions.
func TestExploreFindsTheInputBugs(t *testing.T) {
	w := world(t)
	for _, tc := range []struct {
		name        string
		opts        kvstore.Options
		transitions int
	}{
		{"stale-scaledown", kvstore.Options{StaleOnScaleDown: true}, 1},
		{"stale-loglevel", kvstore.Options{KeepsRemovedLogLevel: true}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := kvstore.Scenario("kvstore-"+tc.name, w, tc.opts)
			res, err := crt.Explore(t, sc, nil, properties.ExploreOptions{Depth: 2})
			require.NoError(t, err)
			cx := res.Counterexample
			require.NotNil(t, cx, res.Guarantee())
			assert.Equal(t, 1, res.Depth)
			assert.Equal(t, properties.HistoryDependent, cx.Failure.Verdict, cx.Report())
			assert.Len(t, cx.Inputs, tc.transitions, cx.Report())
			assert.Contains(t, res.Guarantee(), "; inputs: ≤3 transitions among 6 specs)")
			t.Logf("%s\n%s", res.Guarantee(), cx.Report())

			synctest.Test(t, func(t *testing.T) {
				out, diverged, err := properties.Replay(sc, cx.Schedule, cx.Choices, properties.RunOptions{Inputs: cx.Inputs})
				require.NoError(t, err)
				assert.False(t, diverged)
				assert.Equal(t, cx.Trace.Hash(), out.Cluster.Trace().Hash())
			})
		})
	}

	res, err := crt.Explore(t, kvstore.Scenario("kvstore-fixed", w, kvstore.Options{}), nil, properties.ExploreOptions{Depth: 2})
	require.NoError(t, err)
	assert.Nil(t, res.Counterexample, res.Guarantee())
	assert.Equal(t, 2, res.Depth)
	assert.Empty(t, res.Unfingerprinted, "the adapter walks the reconciler")
	t.Log(res.Guarantee())

	fresh, err := kvstore.NewWorld()
	require.NoError(t, err)
	cold, err := crt.Explore(t, kvstore.Scenario("kvstore-fixed", fresh, kvstore.Options{}), nil, properties.ExploreOptions{Depth: 2})
	require.NoError(t, err)
	assert.Equal(t, res.Guarantee(), cold.Guarantee())
}
