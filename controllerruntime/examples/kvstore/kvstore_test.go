package kvstore_test

import (
	"testing"
	"testing/synctest"

	"github.com/converge-sim/converge/controllerruntime/examples/kvstore"
	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/properties"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// faithful are the fault kinds a real cluster shows the operator (no
// drop, no rival, no outside edit of the target's spec).
var faithful = faults.Mix{faults.KindDuplicate, faults.KindDelay, faults.KindExpire, faults.KindRestart, faults.KindStale, faults.KindAPIError, faults.KindPartition, faults.KindTimeTravel}

func world(t *testing.T) kvstore.World {
	t.Helper()
	w, err := kvstore.NewWorld()
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

// Both bugs are found with no goal written, by the history-dependent
// oracle alone, from specs drawn from the CRD, shrunk to at most two
// transitions with no fault, and replay from the counterexample.
func TestKVStoreInputBugsAreFoundWithoutAGoal(t *testing.T) {
	w := world(t)
	for _, tc := range []struct {
		name        string
		opts        kvstore.Options
		transitions int
		diff        string
	}{
		{"stale-scaledown", kvstore.Options{StaleOnScaleDown: true}, 1,
			`StatefulSet default/store spec.template.metadata.annotations["store.example.converge.dev/config-hash"]: "f66aae230081c69b" after the transitions, "c56637dce3e539a0" in a fresh cluster`},
		{"stale-loglevel", kvstore.Options{KeepsRemovedLogLevel: true}, 2,
			`ConfigMap default/store-config spec.data.logLevel: "debug" after the transitions, <none> in a fresh cluster`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := kvstore.Scenario("kvstore-"+tc.name, w, tc.opts)
			res, memo := search(t, sc, nil, 100)
			cx := res.Counterexample
			require.NotNil(t, cx, "no goal, yet the oracle must find the bug")
			assert.Equal(t, properties.HistoryDependent, cx.Failure.Verdict, cx.Report())
			assert.Len(t, cx.Inputs, tc.transitions, cx.Report())
			assert.LessOrEqual(t, len(cx.Inputs), 2)
			assert.Empty(t, cx.Schedule)
			assert.Contains(t, cx.Failure.Details, tc.diff, cx.Report())
			assert.Contains(t, cx.Report(), "<- the history starts here")
			assert.Positive(t, memo.Hits, "shrinking ends on the same final specs again and again")
			t.Logf("runs to the failure: %d, reference runs: %d misses, %d hits\n%s", res.Runs, memo.Misses, memo.Hits, cx.Report())

			// The counterexample replays from its transitions and choices.
			synctest.Test(t, func(t *testing.T) {
				out, diverged, err := properties.Replay(sc, cx.Schedule, cx.Choices, properties.RunOptions{Inputs: cx.Inputs})
				require.NoError(t, err)
				assert.False(t, diverged)
				require.NotNil(t, out.Failure)
				assert.Equal(t, cx.Failure.Report(cx.Schedule), out.Failure.Report(cx.Schedule))
			})
		})
	}
}

// The fixed operator ends every sequence of transitions where the final
// spec alone leads, with no fault and under the faithful ones.
func TestTheFixedKVStoreIsHistoryIndependent(t *testing.T) {
	w := world(t)
	for _, mix := range []faults.Mix{nil, faithful} {
		res, memo := search(t, kvstore.Scenario("kvstore-fixed", w, kvstore.Options{}), mix, 50)
		if cx := res.Counterexample; cx != nil {
			t.Fatalf("must pass under %v, but:\n%s", mix, cx.Report())
		}
		// 4 replica counts x 2 images x 3 log levels: 24 specs. A spec's
		// reference run is made again for a history that went quiet at
		// another time (a reconcile that waits, as the operator polls in
		// its bubble, can run across the end of the fault phase) or whose
		// world drew otherwise; since the transitions a phase left are
		// applied at its end, each once the cluster settled
		// (docs/design.md, "State-transition inputs"), these 50 runs make
		// 25, so the bound allows each spec two.
		limit := 2 * 24
		assert.LessOrEqual(t, memo.Misses, limit)
		t.Logf("faults %v: %d runs, reference runs: %d misses, %d hits", mix, res.Runs, memo.Misses, memo.Hits)
	}
}
