// Package disruption holds the disruption controller, which keeps each
// PodDisruptionBudget's status up to date: how many of its pods are healthy
// and how many disruptions the eviction API may allow.
//
// A budget's spec holds "selector.<label>" fields and "minAvailable"; its
// status "currentHealthy" and "disruptionsAllowed".
package disruption

import (
	"fmt"

	"github.com/converge-sim/converge/controllers/replicaset"
	"github.com/converge-sim/converge/model"
)

// Kind is the PodDisruptionBudget kind, as the API server's eviction
// subresource knows it.
const Kind = model.PDBKind

// New returns a budget that keeps minAvailable pods labelled app=app.
func New(namespace, name, app string, minAvailable int64) *model.Object {
	return &model.Object{
		Kind: Kind, Namespace: namespace, Name: name,
		Spec: model.Fields{"selector.app": app, "minAvailable": minAvailable},
	}
}

func selector(pdb *model.Object) model.Selector {
	return model.Selector{"app": pdb.Spec.Str("selector.app")}
}

// Controller returns the disruption controller, named "disruption".
func Controller() model.Controller {
	return model.Controller{
		Name:         "disruption",
		For:          Kind,
		ResyncPeriod: 20,
		Watches: []model.Watch{{Kind: replicaset.PodKind, Map: func(c model.Client, pod *model.Object) []model.Request {
			budgets, _ := c.List(Kind, model.ListOptions{Namespace: pod.Namespace})
			var out []model.Request
			for _, b := range budgets {
				if selector(b).Matches(pod.Labels) {
					out = append(out, model.RequestFor(b))
				}
			}
			return out
		}}},
		NewReconciler: func(c model.Client) model.Reconciler {
			return model.ReconcilerFunc(func(req model.Request) (model.Result, error) {
				pdb, err := c.Get(Kind, req.Namespace, req.Name)
				if err != nil {
					return model.Result{}, nil
				}
				pods, err := c.List(replicaset.PodKind, model.ListOptions{Namespace: pdb.Namespace, Selector: selector(pdb)})
				if err != nil {
					return model.Result{}, err
				}
				status := expected(pdb, pods)
				if pdb.Status.Equal(status) {
					return model.Result{}, nil
				}
				pdb.Status = status
				return model.Result{}, c.UpdateStatus(pdb)
			})
		},
		Goal: UpToDate,
	}
}

// expected computes a budget's status from its pods.
func expected(pdb *model.Object, pods []*model.Object) model.Fields {
	var healthy int64
	for _, p := range pods {
		if replicaset.Ready(p) {
			healthy++
		}
	}
	return model.Fields{"currentHealthy": healthy, "disruptionsAllowed": max(0, healthy-pdb.Spec.Int("minAvailable"))}
}

// UpToDate is the disruption controller's goal: every budget's status
// matches its pods.
func UpToDate(s model.State) []model.Unmet {
	var out []model.Unmet
	for _, pdb := range s.List(Kind, model.ListOptions{}) {
		want := expected(pdb, s.List(replicaset.PodKind, model.ListOptions{Namespace: pdb.Namespace, Selector: selector(pdb)}))
		if !pdb.Status.Equal(want) {
			out = append(out, model.Unmet{Object: pdb.Ref(), Message: fmt.Sprintf("reports %s, its pods say %s", pdb.Status, want)})
		}
	}
	return out
}
