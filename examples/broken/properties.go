package broken

import (
	"github.com/converge-sim/converge/controllers/replicaset"
	"github.com/converge-sim/converge/model"
)

// Deliberately broken controllers for the properties that are not about a
// fault: each breaks one property without any fault at all.

// TeamLabel is the label the labelling controllers put on pods.
const TeamLabel = "team"

// labeller is a level-triggered controller that labels the pods of each
// ReplicaSet with team=web; copy says whether it copies the cached pod
// before changing it.
func labeller(name string, copy bool) model.Controller {
	return model.Controller{
		Name: name,
		For:  replicaset.Kind,
		Owns: []string{replicaset.PodKind},
		NewReconciler: func(c model.Client) model.Reconciler {
			return model.ReconcilerFunc(func(req model.Request) (model.Result, error) {
				rs, err := c.Peek(replicaset.Kind, req.Namespace, req.Name)
				if err != nil {
					return model.Result{}, nil
				}
				pods, err := c.PeekList(replicaset.PodKind, model.ListOptions{Namespace: rs.Namespace, Owner: rs.UID})
				if err != nil {
					return model.Result{}, err
				}
				for _, p := range pods {
					if p.Labels.Value(TeamLabel) == "web" {
						continue
					}
					if copy {
						p = p.DeepCopy()
					}
					p.Labels = p.Labels.With(TeamLabel, "web")
					if err := c.Update(p); err != nil {
						return model.Result{}, err
					}
				}
				return model.Result{}, nil
			})
		},
		Goal: func(s model.State) []model.Unmet {
			var out []model.Unmet
			for _, p := range s.List(replicaset.PodKind, model.ListOptions{}) {
				if p.Labels.Value(TeamLabel) != "web" {
					out = append(out, model.Unmet{Object: p.Ref(), Message: "has no team label"})
				}
			}
			return out
		},
	}
}

// MutatesCache labels pods it reads with PeekList, the zero-copy read, by
// changing the cached object itself: every other reader of the cache, and
// the cache's idea of what the server holds, change with it. The no cache
// mutation property catches it; CopiesBeforeMutating is the fix.
func MutatesCache() model.Controller { return labeller("mutates-cache", false) }

// CopiesBeforeMutating is MutatesCache with the DeepCopy it forgot.
func CopiesBeforeMutating() model.Controller { return labeller("copies-first", true) }

// blindWriter is a controller that stamps ReplicaSets with a label; with
// blind set it clears the resourceVersion it read, making its update
// unconditional.
func blindWriter(name string, blind bool) model.Controller {
	return model.Controller{
		Name: name,
		For:  replicaset.Kind,
		NewReconciler: func(c model.Client) model.Reconciler {
			return model.ReconcilerFunc(func(req model.Request) (model.Result, error) {
				rs, err := c.Get(replicaset.Kind, req.Namespace, req.Name)
				if err != nil || rs.Labels.Value(TeamLabel) == "web" {
					return model.Result{}, nil
				}
				rs.Labels = rs.Labels.With(TeamLabel, "web")
				if blind {
					rs.ResourceVersion = 0 // "avoid conflicts"
				}
				return model.Result{}, c.Update(rs)
			})
		},
	}
}

// BlindWriter labels ReplicaSets with an update that carries no
// resourceVersion, from its cache: when a user has just rescaled the
// ReplicaSet and the cache has not seen it, the label update writes the old
// replica count back. The no lost update property catches it;
// ConditionalWriter is the fix.
func BlindWriter() model.Controller { return blindWriter("blind-writer", true) }

// ConditionalWriter is BlindWriter keeping the resourceVersion it read: a
// stale update fails with Conflict and is retried on a fresh read.
func ConditionalWriter() model.Controller { return blindWriter("conditional-writer", false) }

// PingPong returns two controllers that keep each other busy without
// fighting over a field: "ping" sets status.ping to status.pong+1 on every
// ReplicaSet, "pong" sets status.pong to status.ping+1. Each write triggers
// the other, forever, so there is never a quiet moment: no fixed point.
func PingPong() []model.Controller {
	bump := func(name, read, write string) model.Controller {
		return model.Controller{
			Name: name,
			For:  replicaset.Kind,
			NewReconciler: func(c model.Client) model.Reconciler {
				return model.ReconcilerFunc(func(req model.Request) (model.Result, error) {
					rs, err := c.Get(replicaset.Kind, req.Namespace, req.Name)
					if err != nil {
						return model.Result{}, nil
					}
					want := rs.Status.Int(read) + 1
					if rs.Status.Int(write) == want {
						return model.Result{}, nil
					}
					if rs.Status.Len() == 0 {
						rs.Status = model.Fields{}
					}
					rs.Status.Set(write, want)
					return model.Result{}, c.UpdateStatus(rs)
				})
			},
		}
	}
	return []model.Controller{bump("ping", "pong", "ping"), bump("pong", "ping", "pong")}
}

// Timestamping keeps a ReplicaSet's status.observedReplicas and stamps
// status.lastSync with the time of every reconcile that finds something to
// write — and the stamp itself is always something to write once time has
// moved. Each resync writes again: the cluster never reaches a fixed point
// where reconciles are no-ops. The no hot loop property catches it.
func Timestamping() model.Controller {
	return model.Controller{
		Name:         "timestamping",
		For:          replicaset.Kind,
		ResyncPeriod: 20,
		NewReconciler: func(c model.Client) model.Reconciler {
			return model.ReconcilerFunc(func(req model.Request) (model.Result, error) {
				rs, err := c.Get(replicaset.Kind, req.Namespace, req.Name)
				if err != nil {
					return model.Result{}, nil
				}
				status := model.NewFields(model.Values{"observedReplicas": rs.Spec.Int("replicas"), "lastSync": int64(c.Now())})
				if rs.Status.Equal(status) {
					return model.Result{}, nil
				}
				rs.Status = status
				return model.Result{}, c.UpdateStatus(rs)
			})
		},
	}
}
