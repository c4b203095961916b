// Package controller holds the Memcached reconciler, as an operator-sdk
// project lays it out.
package controller

import (
	"context"
	"fmt"

	cachev1alpha1 "github.com/converge-sim/converge/controllerruntime/examples/memcached/api/v1alpha1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
)

// Finalizer holds a Memcached until its cleanup ran.
const Finalizer = "cache.example.converge.dev/finalizer"

// Condition types.
const (
	typeAvailable = "Available"
	typeDegraded  = "Degraded"
)

// MemcachedReconciler reconciles a Memcached object.
type MemcachedReconciler struct {
	client.Client
	Scheme   *runtime.Scheme
	Recorder record.EventRecorder

	// ForgetOwns is the bug: SetupWithManager watches Memcacheds only, not
	// the Deployments the reconciler creates, so nothing brings a
	// Memcached back to the queue when its Deployment changes (becomes
	// ready, or is deleted by someone else) until a resync, ten hours
	// later by default.
	ForgetOwns bool
}

// Reconcile keeps a Deployment of spec.size memcached pods per Memcached,
// with a finalizer that records the cleanup before the Memcached goes.
func (r *MemcachedReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	log := logf.FromContext(ctx)

	memcached := &cachev1alpha1.Memcached{}
	if err := r.Get(ctx, req.NamespacedName, memcached); err != nil {
		if apierrors.IsNotFound(err) {
			log.Info("memcached resource not found; it must have been deleted")
			return ctrl.Result{}, nil
		}
		return ctrl.Result{}, err
	}

	if len(memcached.Status.Conditions) == 0 {
		meta.SetStatusCondition(&memcached.Status.Conditions, metav1.Condition{Type: typeAvailable, Status: metav1.ConditionUnknown, Reason: "Reconciling", Message: "Starting reconciliation"})
		if err := r.Status().Update(ctx, memcached); err != nil {
			return ctrl.Result{}, err
		}
		if err := r.Get(ctx, req.NamespacedName, memcached); err != nil {
			return ctrl.Result{}, err
		}
	}

	if !memcached.DeletionTimestamp.IsZero() {
		if !controllerutil.ContainsFinalizer(memcached, Finalizer) {
			return ctrl.Result{}, nil
		}
		log.Info("cleaning up before the memcached goes")
		meta.SetStatusCondition(&memcached.Status.Conditions, metav1.Condition{Type: typeDegraded, Status: metav1.ConditionUnknown, Reason: "Finalizing", Message: "Performing finalizer operations"})
		if err := r.Status().Update(ctx, memcached); err != nil {
			return ctrl.Result{}, err
		}
		r.Recorder.Event(memcached, corev1.EventTypeWarning, "Deleting", fmt.Sprintf("Custom resource %s is being deleted from the namespace %s", memcached.Name, memcached.Namespace))
		if err := r.Get(ctx, req.NamespacedName, memcached); err != nil {
			return ctrl.Result{}, client.IgnoreNotFound(err)
		}
		controllerutil.RemoveFinalizer(memcached, Finalizer)
		if err := r.Update(ctx, memcached); err != nil {
			return ctrl.Result{}, client.IgnoreNotFound(err)
		}
		return ctrl.Result{}, nil
	}

	if !controllerutil.ContainsFinalizer(memcached, Finalizer) {
		controllerutil.AddFinalizer(memcached, Finalizer)
		if err := r.Update(ctx, memcached); err != nil {
			return ctrl.Result{}, err
		}
	}

	found := &appsv1.Deployment{}
	err := r.Get(ctx, types.NamespacedName{Name: memcached.Name, Namespace: memcached.Namespace}, found)
	if apierrors.IsNotFound(err) {
		dep, err := r.deploymentFor(memcached)
		if err != nil {
			return ctrl.Result{}, err
		}
		log.Info("creating a new Deployment", "Deployment.Name", dep.Name)
		if err := r.Create(ctx, dep); err != nil {
			return ctrl.Result{}, err
		}
		//lint:ignore SA1019 as the operator-sdk scaffold writes it
		return ctrl.Result{Requeue: true}, nil
	} else if err != nil {
		return ctrl.Result{}, err
	}

	size := memcached.Spec.Size
	if found.Spec.Replicas == nil || *found.Spec.Replicas != size {
		found.Spec.Replicas = &size
		if err := r.Update(ctx, found); err != nil {
			return ctrl.Result{}, err
		}
		//lint:ignore SA1019 as the operator-sdk scaffold writes it
		return ctrl.Result{Requeue: true}, nil
	}

	available := metav1.Condition{Type: typeAvailable, Status: metav1.ConditionTrue, Reason: "Reconciling",
		Message: fmt.Sprintf("Deployment for custom resource (%s) with %d replicas is ready", memcached.Name, size)}
	if found.Status.ReadyReplicas != size {
		available.Status, available.Message = metav1.ConditionFalse, fmt.Sprintf("%d of %d replicas ready", found.Status.ReadyReplicas, size)
	}
	meta.SetStatusCondition(&memcached.Status.Conditions, available)
	return ctrl.Result{}, r.Status().Update(ctx, memcached)
}

// deploymentFor returns the memcached Deployment of a Memcached.
func (r *MemcachedReconciler) deploymentFor(m *cachev1alpha1.Memcached) (*appsv1.Deployment, error) {
	labels := map[string]string{"app.kubernetes.io/name": "memcached", "app.kubernetes.io/instance": m.Name}
	replicas := m.Spec.Size
	port := m.Spec.ContainerPort
	if port == 0 {
		port = 11211
	}
	dep := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: m.Name, Namespace: m.Namespace},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{
					Image: "memcached:1.6.26-alpine3.19", Name: "memcached",
					Command: []string{"memcached", "--memory-limit=64", "-o", "modern", "-v"},
					Ports:   []corev1.ContainerPort{{ContainerPort: port, Name: "memcached"}},
				}}},
			},
		},
	}
	if err := ctrl.SetControllerReference(m, dep, r.Scheme); err != nil {
		return nil, err
	}
	return dep, nil
}

// SetupWithManager sets up the controller with the Manager.
func (r *MemcachedReconciler) SetupWithManager(mgr ctrl.Manager) error {
	b := ctrl.NewControllerManagedBy(mgr).For(&cachev1alpha1.Memcached{})
	if !r.ForgetOwns {
		b = b.Owns(&appsv1.Deployment{})
	}
	return b.Named("memcached").Complete(r)
}
