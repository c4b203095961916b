package examples_test

import (
	"testing"
	"time"

	crt "github.com/converge-sim/converge/controllerruntime"
	"github.com/converge-sim/converge/controllerruntime/examples/gateway"
	"github.com/converge-sim/converge/controllerruntime/examples/kvstore"
	"github.com/converge-sim/converge/controllerruntime/examples/schemaops"
	"github.com/converge-sim/converge/operators/suite"
	"github.com/converge-sim/converge/properties"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The campaigns of the controller-runtime examples that carry inputs of
// their own (gateway, kvstore: crt.Inputs of their CRD, no declaration)
// and of schemaops' Batch, each with the fixed operator, as a new user
// would run them (operators/QUIET.md, "After: the other examples").
// replicaset and applyfight have no custom resource, and schemaops' App
// has a writer of its spec (its GitOps sync), so they have no campaign.

func gatewayScenario(t *testing.T) properties.Scenario {
	t.Helper()
	w, err := gateway.NewWorld()
	if err != nil {
		t.Fatal(err)
	}
	return gateway.Scenario("gateway-inputs", w, gateway.Options{})
}

func kvstoreScenario(t *testing.T) properties.Scenario {
	t.Helper()
	w, err := kvstore.NewWorld()
	if err != nil {
		t.Fatal(err)
	}
	return kvstore.Scenario("kvstore-inputs", w, kvstore.Options{})
}

// batchScenario is schemaops' Batch scenario (the controller that caps
// status.active at the CRD's 10 items, the CRDs served), its goal
// included, with inputs of its Batch drawn from the whole CRD.
func batchScenario(t *testing.T) properties.Scenario {
	t.Helper()
	w, err := schemaops.NewWorld()
	if err != nil {
		t.Fatal(err)
	}
	target := &schemaops.Batch{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "nightly"},
		Spec:       schemaops.BatchSpec{Parallelism: 12, Image: "worker:v2"},
	}
	in, err := crt.Inputs(w.CRDs, w.Conv, target, crt.InputsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sc := w.BatchScenario("batch-inputs", true, true)
	sc.Inputs = in
	return sc
}

// TestQuietGateway runs the Gateway campaign (-operators.quiet=10m).
func TestQuietGateway(t *testing.T) {
	suite.Quiet(t, gatewayScenario(t), suite.QuietBudget(t), 0)
}

// TestQuietKVStore runs the KVStore campaign (-operators.quiet=10m).
func TestQuietKVStore(t *testing.T) {
	suite.Quiet(t, kvstoreScenario(t), suite.QuietBudget(t), 0)
}

// TestQuietBatch runs the Batch campaign (-operators.quiet=10m).
func TestQuietBatch(t *testing.T) {
	suite.Quiet(t, batchScenario(t), suite.QuietBudget(t), 0)
}

// TestQuietKubebuilderExamplesSmoke: the first runs of the Gateway and
// KVStore campaigns (seeds 1 to 5) run and find nothing.
func TestQuietKubebuilderExamplesSmoke(t *testing.T) {
	for _, sc := range []func(*testing.T) properties.Scenario{gatewayScenario, kvstoreScenario} {
		s := sc(t)
		c := suite.Quiet(t, s, time.Hour, 5)
		if c.Runs != 5 || len(c.Findings) != 0 {
			t.Errorf("%s: %d runs, %d findings: want 5 runs and none", s.Name, c.Runs, len(c.Findings))
		}
	}
}

// TestQuietBatchSmoke: the Batch campaign's first finding (seed 1) is
// real: the example's controller only creates pods, so an image change
// never reaches the pods it made (nor, at seed 3, does a lower
// parallelism delete any).
func TestQuietBatchSmoke(t *testing.T) {
	c := suite.QuietWith(t, batchScenario(t), suite.QuietOptions{Budget: time.Hour, MaxRuns: 5, MaxFindings: 1, ShrinkTime: 2 * time.Second})
	require.Len(t, c.Findings, 1)
	f := c.Findings[0]
	assert.Equal(t, properties.HistoryDependent, f.Verdict)
	require.NotEmpty(t, f.Details)
	for _, d := range f.Details {
		assert.Contains(t, d, "spec.containers[name=worker].image", d)
	}
}
