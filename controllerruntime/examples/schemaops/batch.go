// Package schemaops holds two operators whose bugs only a schema-checking
// API server shows, each with its fixed twin: a Batch controller whose
// status outgrows the CRD's maxItems, and a GitOps sync that retries
// forever against an immutable field (a CEL transition rule), the "green
// but dead" sync loop. Their CRDs are in config/crd/bases.
package schemaops

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// MaxActive is the CRD's maxItems of status.active.
const MaxActive = 10

// BatchReconciler keeps spec.parallelism worker pods per Batch and lists
// them in status.active, as a scaffolded CronJob controller lists its
// active jobs.
type BatchReconciler struct {
	client.Client
	Scheme *runtime.Scheme
	// Capped lists at most MaxActive pods in status.active and counts
	// them all in status.activeCount. Without it the list grows with
	// parallelism, and past MaxActive the API server rejects every status
	// update: the controller retries forever and never reports.
	Capped bool
}

// Reconcile brings one Batch's pods to spec.parallelism and reports them.
func (r *BatchReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var b Batch
	if err := r.Get(ctx, req.NamespacedName, &b); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	var pods corev1.PodList
	if err := r.List(ctx, &pods, client.InNamespace(b.Namespace), client.MatchingLabels{"batch": b.Name}); err != nil {
		return ctrl.Result{}, err
	}
	var active []string
	for i := range pods.Items {
		if p := &pods.Items[i]; metav1.IsControlledBy(p, &b) && p.DeletionTimestamp.IsZero() {
			active = append(active, p.Name)
		}
	}
	for slot := 0; slot < int(b.Spec.Parallelism); slot++ {
		name := b.Name + "-" + strconv.Itoa(slot)
		if slices.Contains(active, name) {
			continue
		}
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: b.Namespace, Name: name, Labels: map[string]string{"batch": b.Name}},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "worker", Image: b.Spec.Image}}},
		}
		if err := controllerutil.SetControllerReference(&b, pod, r.Scheme); err != nil {
			return ctrl.Result{}, reconcile.TerminalError(err)
		}
		if err := r.Create(ctx, pod); client.IgnoreAlreadyExists(err) != nil {
			return ctrl.Result{}, fmt.Errorf("create pod for %s: %w", b.Name, err)
		}
		active = append(active, name)
	}
	slices.Sort(active)
	listed := active
	if r.Capped && len(listed) > MaxActive {
		listed = listed[:MaxActive]
	}
	status := BatchStatus{Active: listed, ActiveCount: int32(len(active)), ObservedGeneration: b.Generation}
	if slices.Equal(b.Status.Active, status.Active) && b.Status.ActiveCount == status.ActiveCount && b.Status.ObservedGeneration == status.ObservedGeneration {
		return ctrl.Result{}, nil
	}
	b.Status = status
	return ctrl.Result{}, r.Status().Update(ctx, &b)
}
