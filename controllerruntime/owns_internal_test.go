package controllerruntime

import (
	"context"
	"testing"

	"github.com/converge-sim/converge/controllerruntime/convert"
	"github.com/converge-sim/converge/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// The builder's Owns watches are recognised by their handler,
// EnqueueRequestForOwner inside the wrapper it comes in (ownerHandler),
// and get the memo's own objects, unless a predicate sees their events; so
// does a Watches that names EnqueueRequestForOwner itself. A Watches
// handler of a user's map function still gets copies, wrapped as
// EnqueueRequestForOwner is or not.
func TestTheBuildersOwnsWatchesShareDecodedObjects(t *testing.T) {
	conv, err := convert.New(clientgoscheme.Scheme, convert.Options{})
	require.NoError(t, err)
	m, err := NewManager(model.NewCluster(model.Config{}), conv, ManagerOptions{})
	require.NoError(t, err)
	mapFunc := handler.EnqueueRequestsFromMapFunc(func(context.Context, client.Object) []reconcile.Request { return nil })
	pm := m.newProjectManager(nil, "")
	ctrls, err := pm.run(func(mgr manager.Manager) error {
		return ctrl.NewControllerManagedBy(mgr).
			For(&appsv1.Deployment{}).
			Owns(&appsv1.ReplicaSet{}).
			Owns(&batchv1.Job{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
			Owns(&corev1.ConfigMap{}).
			Watches(&corev1.Pod{}, mapFunc).
			Watches(&corev1.Secret{}, handler.EnqueueRequestForOwner(mgr.GetScheme(), mgr.GetRESTMapper(), &appsv1.Deployment{})).
			Watches(&corev1.Service{}, handler.WithLowPriorityWhenUnchanged(mapFunc)).
			Complete(reconcile.Func(func(context.Context, reconcile.Request) (reconcile.Result, error) { return reconcile.Result{}, nil }))
	})
	require.NoError(t, err)
	require.Len(t, ctrls, 1)
	readOnly := map[string]bool{}
	for _, s := range ctrls[0].sources {
		readOnly[s.kind] = s.readOnly
	}
	assert.Equal(t, map[string]bool{"Deployment": true, "ReplicaSet": true, "Job": false, "ConfigMap": true, "Pod": false,
		"Secret": true, "Service": false}, readOnly)
	require.True(t, ownerWrapper().ok, "this controller-runtime's wrapper is read")
}
