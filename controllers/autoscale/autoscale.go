// Package autoscale holds a horizontal autoscaler: it sets a Deployment's
// spec.replicas from the load reported for it, as the HorizontalPodAutoscaler
// does from metrics.
//
// Load is an object of kind MetricsKind, named after the Deployment, whose
// spec holds "load": total demand, in units one pod can serve PerPod of.
package autoscale

import (
	"fmt"

	"github.com/converge-sim/converge/model"
)

// MetricsKind is the kind of the objects that report load.
const MetricsKind = "Metrics"

// Name is the autoscaler's controller name, and its writer name.
const Name = "autoscaler"

// Policy says how the autoscaler turns load into replicas.
type Policy struct {
	Target      string // the kind scaled, say "Deployment"
	PerPod      int64  // load one pod serves
	Min, Max    int64  // bounds on replicas
	ResyncEvery model.Time
}

// Desired returns the replicas the policy wants for a load.
func (p Policy) Desired(load int64) int64 {
	want := (load + p.PerPod - 1) / p.PerPod
	return min(max(want, p.Min), p.Max)
}

// NewMetrics returns the load report of the object named name.
func NewMetrics(namespace, name string, load int64) *model.Object {
	return &model.Object{Kind: MetricsKind, Namespace: namespace, Name: name, Spec: model.NewFields(model.Values{"load": load})}
}

// Controller returns the autoscaler under policy p.
func Controller(p Policy) model.Controller {
	return model.Controller{
		Name:         Name,
		For:          p.Target,
		Watches:      []model.Watch{{Kind: MetricsKind, Map: func(_ model.Client, m *model.Object) []model.Request { return []model.Request{model.RequestFor(m)} }}},
		ResyncPeriod: p.ResyncEvery,
		NewReconciler: func(c model.Client) model.Reconciler {
			return model.StatelessFunc(func(req model.Request) (model.Result, error) {
				target, err := c.Get(p.Target, req.Namespace, req.Name)
				if err != nil {
					return model.Result{}, nil
				}
				metrics, err := c.Get(MetricsKind, req.Namespace, req.Name)
				if err != nil {
					return model.Result{}, nil // no load reported: leave it alone
				}
				want := p.Desired(metrics.Spec.Int("load"))
				if target.Spec.Int("replicas") == want {
					return model.Result{}, nil
				}
				target.Spec.Set("replicas", want)
				return model.Result{}, c.Update(target)
			})
		},
		Goal: func(s model.State) []model.Unmet {
			var out []model.Unmet
			for _, m := range s.List(MetricsKind, model.ListOptions{}) {
				target := s.Get(p.Target, m.Namespace, m.Name)
				if target == nil {
					continue
				}
				if want, got := p.Desired(m.Spec.Int("load")), target.Spec.Int("replicas"); want != got {
					out = append(out, model.Unmet{Object: target.Ref(), Message: fmt.Sprintf("has spec.replicas=%d, load %d wants %d", got, m.Spec.Int("load"), want)})
				}
			}
			return out
		},
	}
}
