package schemaops

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// SyncReconciler is a GitOps sync: the declared spec of each App lives in
// git (here, Declared), and whenever the live spec differs, the sync
// writes the declared one.
type SyncReconciler struct {
	client.Client
	// Declared maps App names (in namespace default) to their spec in git.
	Declared map[string]AppSpec
	// Replace handles a declared change the API server rejects as invalid
	// (an immutable field): delete the live App, and create it anew on the
	// next reconcile, as Argo CD's Replace=true sync option does. Without
	// it the sync retries the rejected update forever: every other
	// controller is content, the App looks healthy, and the declared
	// change never lands ("green but dead"). The create is owed only in
	// memory: a restart between the delete and the create leaves no App
	// to reconcile, and the declared one is never created again.
	Replace bool
}

// Reconcile syncs one App to git.
func (r *SyncReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	want, ok := r.Declared[req.Name]
	if !ok || req.Namespace != "default" {
		return ctrl.Result{}, nil
	}
	var app App
	err := r.Get(ctx, req.NamespacedName, &app)
	if apierrors.IsNotFound(err) {
		app = App{ObjectMeta: metav1.ObjectMeta{Namespace: req.Namespace, Name: req.Name}, Spec: want}
		return ctrl.Result{}, client.IgnoreAlreadyExists(r.Create(ctx, &app))
	}
	if err != nil || !app.DeletionTimestamp.IsZero() || app.Spec == want {
		return ctrl.Result{}, err
	}
	app.Spec = want
	err = r.Update(ctx, &app)
	if apierrors.IsInvalid(err) && r.Replace {
		//lint:ignore SA1019 Requeue is deprecated, not gone: this wants the rate-limited requeue, which RequeueAfter does not give
		return ctrl.Result{Requeue: true}, client.IgnoreNotFound(r.Delete(ctx, &app, client.Preconditions{UID: &app.UID}))
	}
	return ctrl.Result{}, err
}

// HealthReconciler reports an App ready for its current generation, as a
// workload controller would once its pods run.
type HealthReconciler struct{ client.Client }

// Reconcile marks one App ready.
func (r *HealthReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var app App
	if err := r.Get(ctx, req.NamespacedName, &app); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if app.Status.Ready && app.Status.ObservedGeneration == app.Generation {
		return ctrl.Result{}, nil
	}
	app.Status = AppStatus{Ready: true, ObservedGeneration: app.Generation}
	return ctrl.Result{}, r.Status().Update(ctx, &app)
}
