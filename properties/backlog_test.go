package properties_test

import (
	"fmt"
	"testing"

	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// burst is an actor whose every move creates ten ConfigMaps at once.
type burst struct{ n int }

func (b *burst) Name() string { return "burst" }

func (b *burst) Act(o *model.Outside) error {
	for range 10 {
		b.n++
		if err := o.Create(&model.Object{Kind: "ConfigMap", Namespace: "default", Name: fmt.Sprintf("cm-%03d", b.n)}); err != nil {
			return err
		}
	}
	return nil
}

// actorFirst picks the actor whenever it can act, else the first action:
// the fault phase fills every informer's stream and delivers nothing.
type actorFirst struct{ c **model.Cluster }

func (a actorFirst) Choose(n int, label string) int {
	if label != "step" {
		return 0
	}
	c := *a.c
	acts := c.Enabled(nil)
	settle := 0
	if n == len(acts)+1 { // choice 0 is "let the cluster settle"
		settle = 1
	}
	for i, act := range acts {
		if act.Kind == model.ActActor {
			return i + settle
		}
	}
	return settle
}

// TestABacklogLeftByTheFaultPhaseIsNotANoFixedPoint: a fault phase that
// ends at its step cap with 400 events in flight (20 moves of ten creates,
// two informers) leaves quiescence owing a delivery each. They are work,
// not a cluster that never settles: the step bound grows by them, and the
// run converges instead of being reported as no-fixed-point at MaxSteps.
func TestABacklogLeftByTheFaultPhaseIsNotANoFixedPoint(t *testing.T) {
	var c *model.Cluster
	sc := properties.Scenario{
		Name: "backlog", FaultSteps: 20, MaxSteps: 300,
		Build: func(cfg model.Config) (*model.Cluster, error) {
			c = model.NewCluster(cfg)
			for _, name := range []string{"first", "second"} {
				// Every ConfigMap maps to one key, so the backlog costs
				// deliveries, not reconciles.
				if err := c.AddController(model.Controller{
					Name: name, For: "Summary",
					Watches: []model.Watch{{Kind: "ConfigMap", Map: func(model.Client, *model.Object) []model.Request {
						return []model.Request{{Namespace: "default", Name: "all"}}
					}}},
					NewReconciler: func(model.Client) model.Reconciler {
						return model.StatelessFunc(func(model.Request) (model.Result, error) { return model.Result{}, nil })
					},
				}); err != nil {
					return nil, err
				}
			}
			return c, c.AddActor(&burst{}, 20)
		},
	}
	out, err := properties.Execute(sc, nil, actorFirst{&c}, properties.RunOptions{})
	require.NoError(t, err)
	assert.Equal(t, 200, countConfigMaps(out.Cluster), "every move made its ten")
	if out.Failure != nil {
		t.Fatalf("the backlog must drain:\n%s", out.Failure.Report(nil))
	}
}

func countConfigMaps(c *model.Cluster) int {
	cms, _ := c.Server().List("ConfigMap", model.ListOptions{})
	return len(cms)
}
