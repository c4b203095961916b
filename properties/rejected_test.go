package properties_test

import (
	"testing"

	"github.com/converge-sim/converge/controllers/replicaset"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// atMostTwoTracked is a stand-in for a schema's maxItems: the API server
// rejects a ReplicaSet status that tracks more than two replicas.
func atMostTwoTracked(_ string, verb model.Verb, _, obj *model.Object) error {
	if verb == model.VerbDelete {
		return nil
	}
	if n := obj.Status.Int("tracked"); n > 2 {
		return &model.StatusError{Reason: model.ReasonInvalid, Message: "status.tracked is too large",
			Causes: []model.Cause{{Type: "FieldValueTooMany", Field: "status.tracked", Message: "must have at most 2 items", Rule: "maxItems: 2"}}}
	}
	return nil
}

// tracker reports spec.replicas in status.tracked; capped, it reports at
// most two, as the schema allows.
func tracker(capped bool) model.Controller {
	return model.Controller{
		Name: "tracker", For: replicaset.Kind, ResyncPeriod: 20,
		NewReconciler: func(c model.Client) model.Reconciler {
			return model.ReconcilerFunc(func(req model.Request) (model.Result, error) {
				rs, err := c.Get(replicaset.Kind, req.Namespace, req.Name)
				if err != nil {
					return model.Result{}, nil
				}
				n := rs.Spec.Int("replicas")
				if capped {
					n = min(n, 2)
				}
				if rs.Status.Int("tracked") == n {
					return model.Result{}, nil
				}
				rs.Status = model.NewFields(model.Values{"tracked": n})
				return model.Result{}, c.UpdateStatus(rs)
			})
		},
	}
}

func trackerWorld(capped bool) func(model.Config) (*model.Cluster, error) {
	return func(cfg model.Config) (*model.Cluster, error) {
		c := model.NewCluster(cfg)
		c.Server().AddAdmission(atMostTwoTracked)
		if err := c.AddController(tracker(capped)); err != nil {
			return nil, err
		}
		return c, c.Apply(replicaset.New("default", "web", 3))
	}
}

func TestRejectedWritesCatchesAControllerStuckOnValidation(t *testing.T) {
	stuck := properties.Scenario{Name: "uncapped-tracker", Build: trackerWorld(false)}
	cx := requireFails(t, stuck, nil, properties.RejectedWrites, 0)
	f := cx.Failure
	assert.Equal(t, "no rejected writes", f.Property)
	assert.Contains(t, f.Summary, "tracker retries its update-status of ReplicaSet default/web forever")
	assert.Contains(t, f.Summary, "field status.tracked, rule maxItems: 2")
	assert.Contains(t, f.Details, "  field: status.tracked")
	assert.Contains(t, f.Details, "  rule: maxItems: 2")
	require.NotEmpty(t, f.Diagnosis)
	assert.Contains(t, f.Diagnosis[len(f.Diagnosis)-1], "must change what it writes to status.tracked (respect maxItems: 2)")

	requireConverges(t, properties.Scenario{Name: "capped-tracker", Build: trackerWorld(true)}, dropAndRestart)
}
