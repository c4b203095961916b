// Package replicaset is an example of an ordinary controller-runtime
// reconciler tested with converge: a ReplicaSet controller for
// appsv1.ReplicaSet and corev1.Pod, with a switch that turns on a bug seen
// in the field, and the scenario that finds it.
package replicaset

import (
	"context"
	"errors"
	"fmt"
	"hash"
	"slices"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// Reconciler keeps spec.replicas pods of each ReplicaSet, written as any
// controller-runtime reconciler is: it reads the ReplicaSet and its pods
// from the manager's cache, creates or deletes the difference, and
// reports status.replicas and status.observedGeneration.
type Reconciler struct {
	client.Client
	Scheme *runtime.Scheme
	// GenerateName names new pods with metadata.generateName, as many
	// controllers do. That is the bug: when the cache has not yet seen the
	// pods the last reconcile created, the List comes up short and the
	// reconciler creates duplicates. Without it, pods fill numbered slots
	// (<replicaset>-0, -1, …), so a create from a stale List fails with
	// AlreadyExists instead of duplicating a pod.
	GenerateName bool
}

// Fingerprint writes nothing: the reconciler keeps nothing between
// reconciles but its client, so bounded exploration (crt.Explore) covers
// it without naming it (model.Fingerprinter).
func (*Reconciler) Fingerprint(hash.Hash64) {}

// Reconcile brings one ReplicaSet's pods to spec.replicas.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var rs appsv1.ReplicaSet
	if err := r.Get(ctx, req.NamespacedName, &rs); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !rs.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil // the garbage collector removes its pods
	}
	sel, err := metav1.LabelSelectorAsSelector(rs.Spec.Selector)
	if err != nil {
		return ctrl.Result{}, reconcile.TerminalError(err)
	}
	var pods corev1.PodList
	if err := r.List(ctx, &pods, client.InNamespace(rs.Namespace), client.MatchingLabelsSelector{Selector: sel}); err != nil {
		return ctrl.Result{}, err
	}
	var active []*corev1.Pod
	for i := range pods.Items {
		if p := &pods.Items[i]; metav1.IsControlledBy(p, &rs) && p.DeletionTimestamp.IsZero() {
			active = append(active, p)
		}
	}
	want := 1
	if rs.Spec.Replicas != nil {
		want = int(*rs.Spec.Replicas)
	}
	var scaleErr error
	if len(active) < want {
		scaleErr = r.scaleUp(ctx, &rs, active, want-len(active))
	} else if len(active) > want {
		scaleErr = r.scaleDown(ctx, active[want:])
	}
	if rs.Status.Replicas != int32(len(active)) || rs.Status.ObservedGeneration != rs.Generation {
		rs.Status.Replicas = int32(len(active))
		rs.Status.ObservedGeneration = rs.Generation
		if err := r.Status().Update(ctx, &rs); err != nil {
			return ctrl.Result{}, errors.Join(scaleErr, err)
		}
	}
	return ctrl.Result{}, scaleErr
}

// scaleUp creates n pods from the ReplicaSet's template.
func (r *Reconciler) scaleUp(ctx context.Context, rs *appsv1.ReplicaSet, active []*corev1.Pod, n int) error {
	taken := map[string]bool{}
	for _, p := range active {
		taken[p.Name] = true
	}
	for slot := 0; n > 0; slot++ {
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{
				Namespace:   rs.Namespace,
				Labels:      rs.Spec.Template.Labels,
				Annotations: rs.Spec.Template.Annotations,
			},
			Spec: *rs.Spec.Template.Spec.DeepCopy(),
		}
		if r.GenerateName {
			pod.GenerateName = rs.Name + "-"
		} else if pod.Name = rs.Name + "-" + strconv.Itoa(slot); taken[pod.Name] {
			continue
		}
		if err := controllerutil.SetControllerReference(rs, pod, r.Scheme); err != nil {
			return reconcile.TerminalError(err)
		}
		if err := r.Create(ctx, pod); client.IgnoreAlreadyExists(err) != nil {
			return fmt.Errorf("create pod for %s: %w", rs.Name, err)
		}
		n--
	}
	return nil
}

// scaleDown deletes the given pods, the newest names first.
func (r *Reconciler) scaleDown(ctx context.Context, extra []*corev1.Pod) error {
	slices.Reverse(extra)
	for _, p := range extra {
		if err := r.Delete(ctx, p, client.Preconditions{UID: &p.UID}); client.IgnoreNotFound(err) != nil {
			return err
		}
	}
	return nil
}
