package properties_test

import (
	"fmt"
	"testing"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestShrinkKeepsFaultsTheFailureNeeds: a controller that counts its lives
// in the object's status, and whose goal is at most two, fails only after
// two restarts. Each deletion passes, so both restarts stay.
func TestShrinkKeepsFaultsTheFailureNeeds(t *testing.T) {
	sc := properties.Scenario{Name: "counts-lives", Build: func(cfg model.Config) (*model.Cluster, error) {
		c := model.NewCluster(cfg)
		if err := c.AddController(livesCounter()); err != nil {
			return nil, err
		}
		return c, c.Apply(&model.Object{Kind: "Counter", Namespace: "default", Name: "lives"})
	}}
	res, err := properties.Search(sc, faults.Mix{faults.KindRestart}, properties.SearchOptions{Test: t, Checks: ciChecks, Seed: 1})
	require.NoError(t, err)
	cx := res.Counterexample
	require.NotNil(t, cx, "two restarts make a third life")
	assert.Equal(t, properties.GoalUnmet, cx.Failure.Verdict)
	assert.Len(t, cx.Schedule, 2, cx.Report())
	assert.Equal(t, cx.Shrunk, cx.Schedule)
	assert.GreaterOrEqual(t, cx.DeletionRuns, 3, "one replay, then each fault deleted")
}

// livesCounter adds one to status.lives of each Counter on the first
// reconcile of each of its lives (a start, or a restart, which loses its
// memory); its goal is at most two lives.
func livesCounter() model.Controller {
	return model.Controller{
		Name: "lives",
		For:  "Counter",
		NewReconciler: func(cl model.Client) model.Reconciler {
			counted := false
			return model.ReconcilerFunc(func(req model.Request) (model.Result, error) {
				if counted {
					return model.Result{}, nil
				}
				obj, err := cl.Get("Counter", req.Namespace, req.Name)
				if err != nil {
					return model.Result{}, err
				}
				obj.Status.Set("lives", obj.Status.Int("lives")+1)
				if err := cl.UpdateStatus(obj); err != nil {
					return model.Result{}, err
				}
				counted = true
				return model.Result{}, nil
			})
		},
		Goal: func(s model.State) []model.Unmet {
			var out []model.Unmet
			for _, o := range s.List("Counter", model.ListOptions{}) {
				if lives := o.Status.Int("lives"); lives > 2 {
					out = append(out, model.Unmet{Object: o.Ref(), Message: fmt.Sprintf("%d lives", lives)})
				}
			}
			return out
		},
	}
}
