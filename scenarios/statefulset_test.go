package scenarios

import (
	"testing"

	"github.com/converge-sim/converge/controllers/statefulset"
	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/properties"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStatefulSetScenarioCatchesAControllerThatDeletesRetainedClaims: the
// statefulset scenario, run with a broken twin of the controller that
// deletes a pod's claims when it scales the pod away, breaks its invariant
// without a single fault, and the finding names a claim of web, whose
// retention policy keeps them.
func TestStatefulSetScenarioCatchesAControllerThatDeletesRetainedClaims(t *testing.T) {
	sc := statefulSetScenario("statefulset-deletes-claims",
		statefulset.Options{Resync: resyncPeriod, DeleteClaimsOnScaleDown: true},
		"the StatefulSet controller with a bug: it deletes the claims of the pods it scales away")
	sc.Program = "" // fuzzrun does not know the twin: a finding replays through go test
	res, err := properties.Search(sc, faults.Mix{}, properties.SearchOptions{Test: t, Checks: 60, Seed: 1})
	require.NoError(t, err)
	cx := res.Counterexample
	require.NotNil(t, cx, "the broken twin passed %d runs", res.Runs)
	assert.Equal(t, properties.InvariantBroken, cx.Failure.Verdict, cx.Report())
	assert.Contains(t, cx.Report(), "PersistentVolumeClaim default/data-web-")
	assert.Contains(t, cx.Report(), "retained claims are never deleted")
}

// TestStatefulSetControllerIsIdempotent: without faults, in the statefulset
// scenario, a second reconcile of a key right after one that wrote writes
// nothing.
func TestStatefulSetControllerIsIdempotent(t *testing.T) {
	sc := StatefulSet()
	sc.CheckIdempotence = true
	sc.Program = ""
	res, err := properties.Search(sc, faults.Mix{}, properties.SearchOptions{Test: t, Checks: 100, Seed: 1})
	require.NoError(t, err)
	if cx := res.Counterexample; cx != nil {
		t.Fatal(cx.Report())
	}
}
