package kvstore_test

import (
	"testing"

	"github.com/converge-sim/converge/controllerruntime/examples/kvstore"
	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/properties"
	"github.com/stretchr/testify/require"
)

func world(t *testing.T) kvstore.World {
	t.Helper()
	w, err := kvstore.NewWorld()
	require.NoError(t, err)
	return w
}

// search searches sc from seed 1 and returns the result with the memo
// counts of its reference runs.
func search(t *testing.T, sc properties.Scenario, mix faults.Mix, checks int) (*properties.SearchResult, properties.MemoStats) {
	t.Helper()
	p, err := properties.Prepare(sc, mix)
	require.NoError(t, err)
	res, err := p.Search(properties.SearchOptions{Test: t, Checks: checks, Seed: 1, Wrap: properties.InBubble(t)})
	require.NoError(t, err)
	return res, p.ReferenceRuns()
}

func TestProbe(t *testing.T) {
	w := world(t)
	for _, o := range []kvstore.Options{{StaleOnScaleDown: true}, {KeepsRemovedLogLevel: true}, {}} {
		res, memo := search(t, kvstore.Scenario("kv", w, o), nil, 50)
		if cx := res.Counterexample; cx != nil {
			t.Logf("%+v runs %d memo %+v\n%s", o, res.Runs, memo, cx.Report())
		} else {
			t.Logf("%+v passes, runs %d memo %+v", o, res.Runs, memo)
		}
	}
}
