package scenarios

import (
	"github.com/converge-sim/converge/actors"
	"github.com/converge-sim/converge/controllers/autoscale"
	"github.com/converge-sim/converge/controllers/deployment"
	"github.com/converge-sim/converge/controllers/gitops"
	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
)

// scalePolicy: one pod per 10 units of load, 1 to 10 pods.
var scalePolicy = autoscale.Policy{Target: deployment.Kind, PerPod: 10, Min: 1, Max: 10, ResyncEvery: resyncPeriod}

// hpaGitOps builds a Deployment declared in git with 3 replicas, an
// autoscaler that wants 5 for the initial load, a GitOps sync (ignoring
// the given fields) and a traffic actor that changes the load.
func hpaGitOps(ignore []string) func(model.Config) (*model.Cluster, error) {
	return func(cfg model.Config) (*model.Cluster, error) {
		c := model.NewCluster(cfg)
		web := deployment.New("default", "web", 3, "app:v1", maxSurge, maxUnavailable)
		sync := gitops.Controller(gitops.Config{
			Kind:        deployment.Kind,
			Declared:    map[string]model.Fields{web.Key(): web.Spec},
			Ignore:      ignore,
			ResyncEvery: resyncPeriod,
		})
		if err := addAll(c, []model.Controller{autoscale.Controller(scalePolicy), sync}, []actorMoves{
			{actors.Set{Actor: "traffic", Kind: autoscale.MetricsKind, Path: "spec.load", Values: []any{int64(20), int64(80)}}, 2},
		}); err != nil {
			return nil, err
		}
		return c, c.Apply(web, autoscale.NewMetrics("default", "web", 50))
	}
}

// HPAGitOpsFight is an autoscaler that sets spec.replicas from load while a
// GitOps sync with self-heal resets it to the declared value: two owners of
// one field with different goals. It never converges; it must be reported
// as a fight naming the object, the field, both writers and the values.
func HPAGitOpsFight() properties.Scenario {
	return properties.Scenario{
		Name:    "hpa-gitops-fight",
		Program: Fuzzrun,
		Doc:     "an autoscaler and a GitOps sync with self-heal both own spec.replicas: a fight",
		Build:   hpaGitOps(nil),
		Expect: []properties.Expectation{
			{Faults: faults.Mix{}, Fails: properties.Fight},
			{Faults: faults.Mix{faults.KindDrop, faults.KindRestart}, Fails: properties.Fight},
		},
	}
}

// HPAGitOpsOwned is the fix: the sync ignores spec.replicas, so each field
// has one owner, and it converges under every healable fault.
func HPAGitOpsOwned() properties.Scenario {
	return properties.Scenario{
		Name:    "hpa-gitops-owned",
		Program: Fuzzrun,
		Doc:     "the same, with the sync ignoring spec.replicas: one owner per field; converges",
		Build:   hpaGitOps([]string{"replicas"}),
		Edits:   []faults.EditTarget{{Resource: deployment.Kind, Path: "spec.replicas", Min: 0, Max: 9}},
		Expect: []properties.Expectation{
			{Faults: Healable},
		},
	}
}
