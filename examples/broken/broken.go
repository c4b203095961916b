// Package broken is a gallery of deliberately broken controllers, one per
// bug class that a fault kind exposes. Each doc comment says what is wrong,
// which fault finds it and why the reference controllers survive that
// fault. They exist to show that converge's properties can fail; do not use
// them for anything else.
package broken

import (
	"fmt"
	"slices"

	"github.com/converge-sim/converge/controllers/replicaset"
	"github.com/converge-sim/converge/model"
)

// wrap builds a level-triggered ReplicaSet controller named name, without
// resync, whose reconciler is the reference one decorated by wrap.
func wrap(name string, decorate func(c model.Client, inner model.Reconciler) model.Reconciler) model.Controller {
	ctrl := replicaset.Level(replicaset.LevelOptions{Name: name})
	build := ctrl.NewReconciler
	ctrl.NewReconciler = func(c model.Client) model.Reconciler { return decorate(c, build(c)) }
	return ctrl
}

// SwallowsErrors is the level-triggered ReplicaSet controller that logs and
// drops every error instead of returning it, so a failed write is never
// retried. Without resync nothing reconciles the key again once its last
// event has been handled. Exposed by apierror; the reference controller
// returns the error and the queue retries with backoff.
func SwallowsErrors() model.Controller {
	return wrap("swallows-errors", func(_ model.Client, inner model.Reconciler) model.Reconciler {
		return model.ReconcilerFunc(func(req model.Request) (model.Result, error) {
			res, _ := inner.Reconcile(req)
			return res, nil
		})
	})
}

// MaxRetries is the level-triggered ReplicaSet controller that gives up on
// a key after three consecutive failures, as the sample controllers' "drop
// the key after maxRetries" pattern does. Without resync, nothing brings
// the key back. Exposed fastest by partition, which fails every write for
// a while.
func MaxRetries() model.Controller {
	const maxRetries = 3
	return wrap("max-retries", func(_ model.Client, inner model.Reconciler) model.Reconciler {
		failures := map[string]int{}
		return model.ReconcilerFunc(func(req model.Request) (model.Result, error) {
			res, err := inner.Reconcile(req)
			if err == nil {
				delete(failures, req.Key())
				return res, nil
			}
			failures[req.Key()]++
			if failures[req.Key()] >= maxRetries {
				delete(failures, req.Key())
				return model.Result{}, nil // give up
			}
			return res, err
		})
	})
}

// ShortExpectations is the level-triggered ReplicaSet controller with
// expectations that expire after one tick: shorter than an informer may
// lag, so on a stale cache it stops waiting and over-creates. Exposed by
// stale (the "at most replicas+1 pods" invariant breaks); the reference
// controller's expectations wait 50 ticks.
func ShortExpectations() model.Controller {
	ctrl := replicaset.Level(replicaset.LevelOptions{Name: "short-expectations", Resync: 20, Expectations: true, ExpectationsTTL: 1})
	return ctrl
}

// UnmappedPods is the level-triggered ReplicaSet controller (with
// expectations) that watches pods, since it lists them from its cache, but
// maps their events to no key: it never hears that one of its pods went
// away. Without resync, a pod deleted from outside stays missing. Exposed by
// edit (an outside delete); it acts on its own reads, so its own deletes do
// not show it.
func UnmappedPods() model.Controller {
	ctrl := replicaset.Level(replicaset.LevelOptions{Name: "unmapped-pods", Expectations: true})
	ctrl.Owns = nil
	ctrl.Watches = []model.Watch{{Kind: replicaset.PodKind, Map: func(model.Client, *model.Object) []model.Request { return nil }}}
	return ctrl
}

// RecordKeeper creates the missing pods of a ReplicaSet and then records
// how many it has created in status.created, instead of listing them. Its
// memory is the API server, so a plain restart is harmless; a crash between
// the creates and the record (restart after one or two writes) leaves pods
// it never counted, and it creates them again. Exposed by restart in the
// middle of a reconcile.
func RecordKeeper() model.Controller {
	return model.Controller{
		Name: "record-keeper",
		For:  replicaset.Kind,
		NewReconciler: func(c model.Client) model.Reconciler {
			return model.ReconcilerFunc(func(req model.Request) (model.Result, error) {
				rs, err := c.Get(replicaset.Kind, req.Namespace, req.Name)
				if err != nil {
					return model.Result{}, nil
				}
				created, want := rs.Status.Int("created"), rs.Spec.Int("replicas")
				if created >= want {
					return model.Result{}, nil
				}
				for ; created < want; created++ {
					if err := c.Create(replicaset.NewPod(rs)); err != nil {
						return model.Result{}, err
					}
				}
				rs.Status = model.NewFields(model.Values{"created": created})
				return model.Result{}, c.UpdateStatus(rs)
			})
		},
		Goal: replicaset.PodsMatchReplicas,
	}
}

// PrimaryLabel is the label FirstSeenPrimary puts on the primary.
const PrimaryLabel = "primary"

// FirstSeenPrimary is an edge-triggered controller that must mark the
// oldest ReplicaSet (by creation time) as primary, and marks the first one
// it is told about, assuming notifications arrive in creation order. They do, across objects,
// unless an event is late. Exposed by delay; drop and restart do not
// reorder events.
func FirstSeenPrimary() model.Controller {
	return model.Controller{
		Name: "first-seen-primary",
		For:  replicaset.Kind,
		NewHandler: func(c model.Client) model.Handler {
			chosen := false
			return model.HandlerFuncs{AddFunc: func(rs *model.Object) {
				if chosen {
					return
				}
				chosen = true
				rs.Labels = rs.Labels.With(PrimaryLabel, "true")
				_ = c.Update(rs)
			}}
		},
		Goal: OldestIsPrimary,
	}
}

// OldestIsPrimary is FirstSeenPrimary's goal: the oldest ReplicaSet, and no
// other, carries the primary label.
func OldestIsPrimary(s model.State) []model.Unmet {
	var out []model.Unmet
	for i, rs := range oldestFirst(s.List(replicaset.Kind, model.ListOptions{})) {
		labelled := rs.Labels.Value(PrimaryLabel) == "true"
		if i == 0 && !labelled {
			out = append(out, model.Unmet{Object: rs.Ref(), Message: "is the oldest ReplicaSet but not labelled primary"})
		}
		if i > 0 && labelled {
			out = append(out, model.Unmet{Object: rs.Ref(), Message: fmt.Sprintf("is labelled primary but %d older ReplicaSets exist", i)})
		}
	}
	return out
}

// oldestFirst orders objects by creation time, keeping key order among
// objects created at the same tick.
func oldestFirst(objs []*model.Object) []*model.Object {
	out := slices.Clone(objs)
	slices.SortStableFunc(out, func(a, b *model.Object) int { return int(a.CreationTimestamp - b.CreationTimestamp) })
	return out
}
