package replicaset_test

import (
	"testing"

	"github.com/converge-sim/converge/controllerruntime/convert"
	"github.com/converge-sim/converge/controllerruntime/examples/replicaset"
	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/properties"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// checks is the number of runs each claim gets.
const checks = 100

var everyFault = faults.Mix{faults.KindDrop, faults.KindRestart, faults.KindEdit}

func converter(t *testing.T) *convert.Converter {
	t.Helper()
	conv, err := replicaset.Converter()
	require.NoError(t, err)
	return conv
}

func search(t *testing.T, sc properties.Scenario, mix faults.Mix) *properties.SearchResult {
	t.Helper()
	res, err := properties.Search(sc, mix, properties.SearchOptions{Test: t, Checks: checks, Seed: 1})
	require.NoError(t, err)
	return res
}

func requireConverges(t *testing.T, sc properties.Scenario, mix faults.Mix) {
	t.Helper()
	res := search(t, sc, mix)
	if cx := res.Counterexample; cx != nil {
		t.Fatalf("%s must converge under %s, but:\n%s\ntrace:\n%v", sc.Name, mix, cx.Report(), cx.Trace)
	}
	assert.Equal(t, checks, res.Runs)
}

func TestReconcilerConvergesUnderEveryFault(t *testing.T) {
	sc := replicaset.Scenario("replicaset", converter(t), replicaset.Options{Scale: true})
	for _, mix := range []faults.Mix{nil, {faults.KindDrop}, {faults.KindRestart}, {faults.KindEdit}, everyFault} {
		t.Run(mix.String(), func(t *testing.T) { requireConverges(t, sc, mix) })
	}
}

func TestGenerateNameAfterAStaleListDuplicatesPods(t *testing.T) {
	conv := converter(t)
	buggy := replicaset.Scenario("generatename", conv, replicaset.Options{GenerateName: true})
	buggy.Invariants = []properties.Invariant{replicaset.AtMostOneExtraPod(conv)}
	cx := search(t, buggy, faults.Mix{faults.KindDrop, faults.KindRestart}).Counterexample
	require.NotNil(t, cx, "the search must find the duplicate pods")
	assert.Equal(t, properties.InvariantBroken, cx.Failure.Verdict, cx.Report())
	assert.Equal(t, "invariant at most replicas+1 pods", cx.Failure.Property)
	assert.Empty(t, cx.Schedule, "no fault is needed: a stale cache is every cluster's normal\n%s", cx.Report())
	t.Logf("shrunk counterexample:\n%s", cx.Report())

	fixed := buggy
	fixed.Name = "slots"
	fixed.Build = replicaset.Scenario("slots", conv, replicaset.Options{}).Build
	requireConverges(t, fixed, faults.Mix{faults.KindDrop, faults.KindRestart})
}
