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
	res, err := properties.Search(sc, mix, properties.SearchOptions{Test: t, Checks: checks, Seed: 1})
	require.NoError(t, err)
	return res
}

func TestTwoApplyManagersFightOverReplicas(t *testing.T) {
	conv, err := applyfight.Converter()
	require.NoError(t, err)
	cx := search(t, applyfight.Scenario("apply-fight", conv, applyfight.Options{DeclareReplicas: true}), nil).Counterexample
	require.NotNil(t, cx, "both managers force spec.replicas")
	assert.Equal(t, properties.Fight, cx.Failure.Verdict, cx.Report())
	assert.Contains(t, cx.Failure.Details, "field: spec.replicas")
	assert.Contains(t, cx.Failure.Details, "writers: autoscaler (field manager hpa), gitops (field manager argocd)")
	t.Logf("diagnosis:\n%s", cx.Report())

	res := search(t, applyfight.Scenario("apply-handover", conv, applyfight.Options{}), faults.Mix{faults.KindDrop, faults.KindRestart})
	if cx := res.Counterexample; cx != nil {
		t.Fatalf("with replicas handed over to the autoscaler, both converge, but:\n%s", cx.Report())
	}
	assert.Equal(t, checks, res.Runs)
}

func TestApplyWithoutForceIsStuckOnTheConflict(t *testing.T) {
	conv, err := applyfight.Converter()
	require.NoError(t, err)
	cx := search(t, applyfight.Scenario("apply-no-force", conv, applyfight.Options{DeclareReplicas: true, NoForce: true}), nil).Counterexample
	require.NotNil(t, cx, "the sync's apply conflicts with the autoscaler's replicas forever")
	f := cx.Failure
	assert.Equal(t, properties.RejectedWrites, f.Verdict, cx.Report())
	assert.Contains(t, f.Summary, "gitops retries its update of Deployment default/web forever: the API server rejects it with an apply conflict")
	assert.Contains(t, f.Summary, `field .spec.replicas, conflict with "hpa"`)
	assert.Contains(t, f.Diagnosis[len(f.Diagnosis)-1], "apply with ForceOwnership to take it, or leave it out of the applied configuration")
	t.Logf("diagnosis:\n%s", cx.Report())
}
