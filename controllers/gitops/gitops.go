// Package gitops holds a GitOps sync with self-heal, as Argo CD or Flux run
// it: the declared spec of each object lives in git (here, in the
// controller's configuration), and whenever the live spec drifts from it,
// the sync writes the declared values back — except fields it is told to
// ignore, which another controller owns.
package gitops

import (
	"fmt"
	"slices"

	"github.com/converge-sim/converge/model"
)

// Name is the sync's controller name, and its writer name.
const Name = "gitops"

// Config is what the sync manages.
type Config struct {
	Kind string
	// Declared maps object keys ("namespace/name") to their declared spec.
	Declared map[string]model.Fields
	// Ignore lists spec fields the sync leaves alone (Argo CD's
	// ignoreDifferences), so that another writer can own them.
	Ignore      []string
	ResyncEvery model.Time
}

// drift returns the declared fields whose live value differs, in order.
func (cfg Config) drift(live *model.Object) []string {
	declared := cfg.Declared[live.Key()]
	var out []string
	for _, f := range declared.Paths() {
		if !slices.Contains(cfg.Ignore, f) && live.Spec.Value(f) != declared.Value(f) {
			out = append(out, f)
		}
	}
	return out
}

// Controller returns the sync for cfg.
func Controller(cfg Config) model.Controller {
	return model.Controller{
		Name:         Name,
		For:          cfg.Kind,
		ResyncPeriod: cfg.ResyncEvery,
		NewReconciler: func(c model.Client) model.Reconciler {
			return model.StatelessFunc(func(req model.Request) (model.Result, error) {
				live, err := c.Get(cfg.Kind, req.Namespace, req.Name)
				if err != nil {
					return model.Result{}, nil
				}
				drifted := cfg.drift(live)
				if len(drifted) == 0 {
					return model.Result{}, nil
				}
				for _, f := range drifted {
					live.Spec.Set(f, cfg.Declared[live.Key()].Value(f))
				}
				return model.Result{}, c.Update(live)
			})
		},
		Goal: func(s model.State) []model.Unmet {
			var out []model.Unmet
			for _, o := range s.List(cfg.Kind, model.ListOptions{}) {
				if d := cfg.drift(o); len(d) > 0 {
					out = append(out, model.Unmet{Object: o.Ref(), Message: fmt.Sprintf("drifted from git in %v", d)})
				}
			}
			return out
		},
	}
}
