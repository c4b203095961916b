// Package disruption holds the disruption controller, which keeps each
// PodDisruptionBudget's status up to date: how many of its pods are healthy
// and how many disruptions the eviction API may allow.
//
// A budget's spec holds a label selector and "minAvailable"; its status
// "currentHealthy" and "disruptionsAllowed". The selector is read by
// model.SpecSelector, as the eviction API reads it, so the two agree on
// which pods a budget covers: a budget without a selector covers none.
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
		Spec: model.NewFields(model.Values{"selector.matchLabels.app": app, "minAvailable": minAvailable}),
	}
}

// covers reports whether the budget's selector covers the pod.
func covers(pdb, pod *model.Object) bool {
	sel, ok := model.SpecSelector(pdb)
	return ok && sel.Matches(pod.Labels)
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
				if covers(b, pod) {
					out = append(out, model.RequestFor(b))
				}
			}
			return out
		}}},
		NewReconciler: func(c model.Client) model.Reconciler {
			return model.StatelessFunc(func(req model.Request) (model.Result, error) {
				pdb, err := c.Get(Kind, req.Namespace, req.Name)
				if err != nil {
					return model.Result{}, nil
				}
				var pods []*model.Object
				if sel, ok := model.SpecSelector(pdb); ok {
					if pods, err = c.List(replicaset.PodKind, model.ListOptions{Namespace: pdb.Namespace, Selector: sel}); err != nil {
						return model.Result{}, err
					}
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
	return model.NewFields(model.Values{"currentHealthy": healthy, "disruptionsAllowed": max(0, healthy-pdb.Spec.Int("minAvailable"))})
}

// UpToDate is the disruption controller's goal: every budget's status
// matches its pods.
func UpToDate(s model.State) []model.Unmet {
	var out []model.Unmet
	for _, pdb := range s.List(Kind, model.ListOptions{}) {
		var pods []*model.Object
		if sel, ok := model.SpecSelector(pdb); ok {
			pods = s.List(replicaset.PodKind, model.ListOptions{Namespace: pdb.Namespace, Selector: sel})
		}
		want := expected(pdb, pods)
		if !pdb.Status.Equal(want) {
			out = append(out, model.Unmet{Object: pdb.Ref(), Message: fmt.Sprintf("reports %s, its pods say %s", pdb.Status, want)})
		}
	}
	return out
}
