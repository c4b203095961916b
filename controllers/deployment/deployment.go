// Package deployment holds a level-triggered Deployment controller with
// rolling updates, after Kubernetes' own: a Deployment owns one ReplicaSet
// per pod template, named by the template's hash; on a template change the
// new ReplicaSet is scaled up while the old ones are scaled down, never
// above spec.replicas+maxSurge pods and never below
// spec.replicas−maxUnavailable ready ones.
//
// A Deployment's spec holds "replicas", "selector.matchLabels.app", the
// pod template ("template.metadata.labels.app",
// "template.spec.containers[0].name" and ".image") and
// "strategy.rollingUpdate.maxSurge" and ".maxUnavailable"; its status
// "replicas", "updatedReplicas", "readyReplicas" and
// "observedGeneration". Each is at its path in the real API.
package deployment

import (
	"fmt"
	"hash/fnv"
	"strconv"

	"github.com/converge-sim/converge/controllers/replicaset"
	"github.com/converge-sim/converge/model"
)

// Kind is the Deployment kind.
const Kind = "Deployment"

// HashLabel labels a ReplicaSet and its pods with their template's hash.
const HashLabel = "pod-template-hash"

// New returns a Deployment of replicas pods of image, selecting app=name.
func New(namespace, name string, replicas int64, image string, maxSurge, maxUnavailable int64) *model.Object {
	return &model.Object{
		Kind: Kind, Namespace: namespace, Name: name,
		Spec: model.NewFields(model.Values{
			"replicas": replicas, selectorApp: name, replicaset.TemplateLabels + ".app": name,
			"template.spec." + replicaset.ContainerNamePath: replicaset.ContainerName, replicaset.TemplateImagePath: image,
			MaxSurgePath: maxSurge, MaxUnavailablePath: maxUnavailable,
		}),
	}
}

// Paths of a Deployment's rolling update bounds.
const (
	MaxSurgePath       = "strategy.rollingUpdate.maxSurge"
	MaxUnavailablePath = "strategy.rollingUpdate.maxUnavailable"
)

// selectorApp is the path of the app label in a selector.
const selectorApp = "selector.matchLabels.app"

// TemplateHash names a pod template, as Kubernetes' pod-template-hash does.
func TemplateHash(d *model.Object) string {
	h := fnv.New32a()
	_, _ = h.Write([]byte(d.Spec.Str(replicaset.TemplateImagePath)))
	return strconv.FormatUint(uint64(h.Sum32()), 36)
}

// Controller returns the Deployment controller, named "deployment", with
// the given resync period.
func Controller(resync model.Time) model.Controller {
	return model.Controller{
		Name:          "deployment",
		For:           Kind,
		Owns:          []string{replicaset.Kind},
		ResyncPeriod:  resync,
		NewReconciler: func(c model.Client) model.Reconciler { return &reconciler{c: c, expect: map[string]uint64{}} },
		Goal:          Complete,
	}
}

// reconciler keeps, per Deployment, the resourceVersion of its last write
// to a ReplicaSet: until its ReplicaSet cache has caught up with that
// version it does not scale, since a ReplicaSet it just created may be
// missing from what it reads (the Deployment controller's expectations).
type reconciler struct {
	c      model.Client
	expect map[string]uint64
}

func (r *reconciler) Reconcile(req model.Request) (model.Result, error) {
	d, err := r.c.Get(Kind, req.Namespace, req.Name)
	if model.IsNotFound(err) {
		delete(r.expect, req.Key())
		return model.Result{}, nil
	}
	if err != nil || d.Deleting() {
		return model.Result{}, err
	}
	if synced, err := r.c.LastSyncResourceVersion(replicaset.Kind); err != nil || synced < r.expect[req.Key()] {
		return model.Result{}, err // the event of its own write will bring it back
	}
	owned, err := r.c.List(replicaset.Kind, model.ListOptions{Namespace: d.Namespace, Owner: d.UID})
	if err != nil {
		return model.Result{}, err
	}
	hash := TemplateHash(d)
	var current *model.Object
	var olds []*model.Object
	for _, rs := range owned {
		switch {
		case !rs.IsControlledBy(d) || rs.Deleting():
		case rs.Labels.Value(HashLabel) == hash:
			current = rs
		default:
			olds = append(olds, rs)
		}
	}
	if current == nil {
		current = newReplicaSet(d, hash)
		if err := r.c.Create(current); err != nil && !model.IsAlreadyExists(err) {
			return model.Result{}, err
		}
		if current.UID == "" {
			return model.Result{Requeue: true}, nil // it exists; wait to see it
		}
		r.expect[req.Key()] = current.ResourceVersion
		return model.Result{}, nil // scale once the cache has it
	}
	if err := r.rollout(d, current, olds); err != nil {
		return model.Result{}, err
	}
	return model.Result{}, r.updateStatus(d, current, append(olds, current))
}

// wrote remembers a write to one of d's ReplicaSets.
func (r *reconciler) wrote(d, rs *model.Object) {
	r.expect[d.Key()] = max(r.expect[d.Key()], rs.ResourceVersion)
}

// newReplicaSet returns the ReplicaSet for d's current template, at zero
// replicas: the rollout scales it.
func newReplicaSet(d *model.Object, hash string) *model.Object {
	app := d.Spec.Str(selectorApp)
	return &model.Object{
		Kind: replicaset.Kind, Namespace: d.Namespace, Name: d.Name + "-" + hash,
		Labels:          model.NewLabels(map[string]string{"app": app, HashLabel: hash}),
		OwnerReferences: []model.OwnerReference{model.NewOwnerReference(d)},
		Spec: model.NewFields(model.Values{
			"replicas": int64(0), selectorApp: app, "selector.matchLabels." + HashLabel: hash,
			replicaset.TemplateLabels + ".app": app, replicaset.TemplateLabels + "." + HashLabel: hash,
			"template.spec." + replicaset.ContainerNamePath: replicaset.ContainerName,
			replicaset.TemplateImagePath:                    d.Spec.Str(replicaset.TemplateImagePath),
		}),
	}
}

// rollout scales the current ReplicaSet up within maxSurge and the old ones
// down within maxUnavailable, one write at a time, from what it read.
func (r *reconciler) rollout(d, current *model.Object, olds []*model.Object) error {
	replicas := d.Spec.Int("replicas")
	surge, unavailable := d.Spec.Int(MaxSurgePath), d.Spec.Int(MaxUnavailablePath)
	if surge == 0 && unavailable == 0 {
		unavailable = 1 // as Kubernetes requires: the rollout must be able to move
	}
	if len(olds) == 0 {
		return r.scale(d, current, replicas)
	}
	// Scale up the new ReplicaSet as far as the surge allows. A ReplicaSet
	// counts as many pods as its spec asks for, or as its status last saw,
	// if more: one that has not shed its pods after a scale-down still has
	// them. (Kubernetes counts specs only, so its pod count can overshoot
	// maxSurge while a ReplicaSet controller lags.)
	total := max(current.Spec.Int("replicas"), current.Status.Int("replicas"))
	for _, rs := range olds {
		total += max(rs.Spec.Int("replicas"), rs.Status.Int("replicas"))
	}
	if up := min(replicas-current.Spec.Int("replicas"), replicas+surge-total); up > 0 {
		return r.scale(d, current, current.Spec.Int("replicas")+up)
	}
	// Scale down old ReplicaSets as far as availability allows, as
	// Kubernetes does: the budget counts every ReplicaSet's spec.replicas
	// (its own writes, which it has seen) less the new ReplicaSet's pods
	// that are not ready yet. Old replicas that are not ready are cleaned
	// up first, within that budget; then the budget is counted again, so
	// that it only spends pods that were available.
	newUnready := max(0, current.Spec.Int("replicas")-current.Status.Int("readyReplicas"))
	budget := func() int64 {
		total := current.Spec.Int("replicas")
		for _, rs := range olds {
			total += rs.Spec.Int("replicas")
		}
		return total - (replicas - unavailable) - newUnready
	}
	cleanup := budget()
	for _, rs := range olds {
		want := rs.Spec.Int("replicas")
		if down := min(max(0, want-rs.Status.Int("readyReplicas")), cleanup); down > 0 {
			cleanup -= down
			if err := r.scale(d, rs, want-down); err != nil {
				return err
			}
		}
	}
	left := budget()
	for _, rs := range olds {
		want := rs.Spec.Int("replicas")
		if down := min(want, left); down > 0 {
			left -= down
			if err := r.scale(d, rs, want-down); err != nil {
				return err
			}
		}
	}
	// Old ReplicaSets that have reached zero and hold no pods are done.
	for _, rs := range olds {
		if rs.Spec.Int("replicas") == 0 && rs.Status.Int("replicas") == 0 {
			if err := r.c.Delete(rs.Ref(), model.DeleteOptions{UID: rs.UID}); err != nil && !model.IsNotFound(err) {
				return err
			}
		}
	}
	return nil
}

// scale sets a ReplicaSet of d's replicas, with its resourceVersion as
// read.
func (r *reconciler) scale(d, rs *model.Object, replicas int64) error {
	if rs.Spec.Int("replicas") == replicas {
		return nil
	}
	rs.Spec.Set("replicas", replicas)
	if err := r.c.Update(rs); err != nil {
		return err
	}
	r.wrote(d, rs)
	return nil
}

func (r *reconciler) updateStatus(d, current *model.Object, all []*model.Object) error {
	var pods, ready int64
	for _, rs := range all {
		pods += rs.Status.Int("replicas")
		ready += rs.Status.Int("readyReplicas")
	}
	status := model.NewFields(model.Values{
		"replicas": pods, "readyReplicas": ready, "updatedReplicas": current.Status.Int("replicas"),
		"observedGeneration": d.Generation,
	})
	if d.Status.Equal(status) {
		return nil
	}
	d.Status = status
	return r.c.UpdateStatus(d)
}

// Complete is the Deployment controller's goal: every Deployment runs
// spec.replicas ready pods of its current template, and no other pods, and
// its status says so.
func Complete(s model.State) []model.Unmet {
	var out []model.Unmet
	for _, d := range s.List(Kind, model.ListOptions{}) {
		if d.Deleting() {
			continue
		}
		replicas, hash := d.Spec.Int("replicas"), TemplateHash(d)
		var current, ready, stale int64
		for _, p := range Pods(s, d) {
			switch {
			case p.Labels.Value(HashLabel) != hash:
				stale++
			case replicaset.Ready(p):
				ready++
				current++
			default:
				current++
			}
		}
		switch {
		case ready != replicas || current != replicas:
			out = append(out, model.Unmet{Object: d.Ref(), Message: fmt.Sprintf(
				"wants %d ready pods of template %s, has %d (%d of them ready)", replicas, d.Spec.Str(replicaset.TemplateImagePath), current, ready)})
		case stale > 0:
			out = append(out, model.Unmet{Object: d.Ref(), Message: fmt.Sprintf("still runs %d pods of an old template", stale)})
		case d.Status.Int("observedGeneration") != d.Generation || d.Status.Int("updatedReplicas") != replicas || d.Status.Int("readyReplicas") != replicas:
			out = append(out, model.Unmet{Object: d.Ref(), Message: fmt.Sprintf("reports %s, but the rollout is complete", d.Status)})
		}
	}
	return out
}

// Pods returns the live pods of d's ReplicaSets.
func Pods(s model.State, d *model.Object) []*model.Object {
	var out []*model.Object
	for _, rs := range s.List(replicaset.Kind, model.ListOptions{Namespace: d.Namespace, Owner: d.UID}) {
		if !rs.IsControlledBy(d) {
			continue
		}
		for _, p := range s.List(replicaset.PodKind, model.ListOptions{Namespace: d.Namespace, Owner: rs.UID}) {
			if p.IsControlledBy(rs) && !p.Deleting() {
				out = append(out, p)
			}
		}
	}
	return out
}
