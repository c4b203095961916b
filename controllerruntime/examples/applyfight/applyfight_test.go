package applyfight_test

import (
	"testing"

	"github.com/converge-sim/converge/controllerruntime/examples/applyfight"
	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/properties"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const checks = 50

func search(t *testing.T, sc properties.Scenario, mix faults.Mix) *properties.SearchResult {
	t.Helper()
	res, err := properties.Search(sc, mix, properties.SearchOptions{Checks: checks, Seed: 1})
	require.NoError(t, err)
	return res
}

func TestTwoApplyManagersFightOverReplicas(t *testing.T) {
	conv, err := applyfight.Converter()
	require.NoError(t, err)
	cx := search(t, applyfight.Scenario("apply-fight", conv, true), nil).Counterexample
	require.NotNil(t, cx, "both managers force spec.replicas")
	assert.Equal(t, properties.Fight, cx.Failure.Verdict, cx.Report())
	assert.Contains(t, cx.Failure.Details, "field: spec.replicas")
	assert.Contains(t, cx.Failure.Details, "writers: autoscaler (field manager hpa), gitops (field manager argocd)")
	t.Logf("diagnosis:\n%s", cx.Report())

	res := search(t, applyfight.Scenario("apply-handover", conv, false), faults.Mix{faults.KindDrop, faults.KindRestart})
	if cx := res.Counterexample; cx != nil {
		t.Fatalf("with replicas handed over to the autoscaler, both converge, but:\n%s", cx.Report())
	}
	assert.Equal(t, checks, res.Runs)
}
