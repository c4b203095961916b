package controllerruntime_test

import (
	"context"
	"fmt"
	"testing"

	crt "github.com/converge-sim/converge/controllerruntime"
	"github.com/converge-sim/converge/controllerruntime/examples/schemaops"
	"github.com/converge-sim/converge/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

var (
	cmGVK    = corev1.SchemeGroupVersion.WithKind("ConfigMap")
	batchGVK = schemaops.GroupVersion.WithKind("Batch")
)

// formLog records the Go types a controller's predicates, handlers and
// cache reads saw.
type formLog struct {
	events []string
	reads  []string
}

func (l *formLog) saw(where string, o client.Object) {
	l.events = append(l.events, fmt.Sprintf("%s %T", where, o))
}

// formSpy reads a built-in kind and a custom resource from its cache in
// unstructured form, and lists ConfigMaps by an index registered for the
// typed form, in both forms.
type formSpy struct {
	client.Client
	log *formLog
}

func (r *formSpy) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	cm := &unstructured.Unstructured{}
	cm.SetGroupVersionKind(cmGVK)
	err := r.Get(ctx, client.ObjectKey{Namespace: "default", Name: "cfg"}, cm)
	r.log.reads = append(r.log.reads, fmt.Sprintf("get ConfigMap: %v %v", err, cm.Object["data"]))
	b := &unstructured.Unstructured{}
	b.SetGroupVersionKind(batchGVK)
	err = r.Get(ctx, req.NamespacedName, b)
	image, _, _ := unstructured.NestedString(b.Object, "spec", "image")
	r.log.reads = append(r.log.reads, fmt.Sprintf("get Batch: %v %s", err, image))

	typed := &corev1.ConfigMapList{}
	err = r.List(ctx, typed, client.MatchingFields{"data.k": "1"})
	r.log.reads = append(r.log.reads, fmt.Sprintf("typed list by index: %v %d", err, len(typed.Items)))
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("ConfigMapList"))
	err = r.List(ctx, list, client.MatchingFields{"data.k": "1"})
	r.log.reads = append(r.log.reads, fmt.Sprintf("unstructured list by index: %v", err))
	err = r.List(ctx, list, client.MatchingFields{"data.u": "1"})
	r.log.reads = append(r.log.reads, fmt.Sprintf("unstructured list by its own index: %v %d", err, len(list.Items)))
	return ctrl.Result{}, nil
}

// TestUnstructuredWatchesDeliverUnstructured: a controller built by the
// real builder that watches a built-in kind and a custom resource with
// unstructured objects gets unstructured objects in its predicates and
// handlers, as from controller-runtime's unstructured informer, reads both
// kinds unstructured from its cache, and finds a field index only in the
// form it was registered for.
func TestUnstructuredWatchesDeliverUnstructured(t *testing.T) {
	log := &formLog{}
	runCRDWorld(t, "forms", func(m *crt.Manager) ([]client.Object, error) {
		err := m.Setup(func(mgr manager.Manager) error {
			if err := mgr.GetFieldIndexer().IndexField(context.Background(), &corev1.ConfigMap{}, "data.k", func(o client.Object) []string {
				return []string{o.(*corev1.ConfigMap).Data["k"]} // panics if handed the unstructured form
			}); err != nil {
				return err
			}
			ucm := &unstructured.Unstructured{}
			ucm.SetGroupVersionKind(cmGVK)
			if err := mgr.GetFieldIndexer().IndexField(context.Background(), ucm, "data.u", func(o client.Object) []string {
				v, _, _ := unstructured.NestedString(o.(*unstructured.Unstructured).Object, "data", "k")
				return []string{v}
			}); err != nil {
				return err
			}
			ub := &unstructured.Unstructured{}
			ub.SetGroupVersionKind(batchGVK)
			return ctrl.NewControllerManagedBy(mgr).Named("spy").
				For(ub, builder.WithPredicates(predicate.NewPredicateFuncs(func(o client.Object) bool { log.saw("for predicate", o); return true }))).
				Watches(ucm.DeepCopy(), handler.EnqueueRequestsFromMapFunc(func(_ context.Context, o client.Object) []reconcile.Request {
					log.saw("configmap handler", o)
					return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: "default", Name: "b"}}}
				})).
				Complete(&formSpy{Client: mgr.GetClient(), log: log})
		}, crt.SetupOptions{})
		return []client.Object{object(batchGVK, "b", map[string]any{"spec": map[string]any{}}),
			object(cmGVK, "cfg", map[string]any{"data": map[string]any{"k": "1"}})}, err
	})
	require.NotEmpty(t, log.events)
	for _, e := range log.events {
		assert.Contains(t, e, "*unstructured.Unstructured", "an unstructured watch hands over unstructured objects")
	}
	assert.Contains(t, log.events, "for predicate *unstructured.Unstructured")
	assert.Contains(t, log.events, "configmap handler *unstructured.Unstructured")
	require.NotEmpty(t, log.reads)
	assert.Equal(t, []string{
		"get ConfigMap: <nil> map[k:1]",
		"get Batch: <nil> worker:v1",
		"typed list by index: <nil> 1",
		"unstructured list by index: index with name field:data.k does not exist",
		"unstructured list by its own index: <nil> 1",
	}, log.reads[:5])
}

// TestLookAlikeBuilderUnstructuredWatch: the look-alike builder hands an
// unstructured watch of a kind with a Go type unstructured objects too.
func TestLookAlikeBuilderUnstructuredWatch(t *testing.T) {
	log := &formLog{}
	runCRDWorld(t, "forms", func(m *crt.Manager) ([]client.Object, error) {
		ub := &unstructured.Unstructured{}
		ub.SetGroupVersionKind(batchGVK)
		err := crt.NewControllerManagedBy(m).Named("spy").
			For(ub, crt.WithPredicates(predicate.NewPredicateFuncs(func(o client.Object) bool { log.saw("for", o); return true }))).
			Watches(&corev1.ConfigMap{}, handler.EnqueueRequestsFromMapFunc(func(_ context.Context, o client.Object) []reconcile.Request {
				log.saw("typed configmap", o)
				return nil
			})).
			Complete(func(cl client.Client) reconcile.Reconciler {
				return reconcile.Func(func(context.Context, reconcile.Request) (reconcile.Result, error) { return reconcile.Result{}, nil })
			})
		return []client.Object{object(batchGVK, "b", map[string]any{"spec": map[string]any{}}),
			object(cmGVK, "cfg", map[string]any{"data": map[string]any{"k": "1"}})}, err
	})
	assert.Contains(t, log.events, "for *unstructured.Unstructured")
	assert.Contains(t, log.events, "typed configmap *v1.ConfigMap", "a typed watch stays typed")
}

// TestCustomResourceUpdateNeedsAResourceVersion: as a real API server, an
// update or status update of a custom resource without
// metadata.resourceVersion is 422 Invalid and counts as a rejected
// write; a missing object is NotFound first; a built-in kind allows the
// unconditional update.
func TestCustomResourceUpdateNeedsAResourceVersion(t *testing.T) {
	conv, crds := unstructuredWorld(t)
	m, err := crt.NewManager(model.NewCluster(model.Config{}), conv, crt.ManagerOptions{CRDs: crds})
	require.NoError(t, err)
	c := m.OutsideClient("user")

	b := &schemaops.Batch{}
	b.Namespace, b.Name = "default", "b"
	require.NoError(t, c.Create(ctx, b))
	b.ResourceVersion = ""
	b.Spec.Parallelism = 2
	err = c.Update(ctx, b)
	require.True(t, apierrors.IsInvalid(err), "got %v", err)
	// The registry's field.Invalid of a uint64 0, as this apimachinery
	// renders it (older versions print 0x0).
	assert.Equal(t, `batches.ops.example.com "b" is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update`, err.Error())
	err = c.Status().Update(ctx, b)
	assert.True(t, apierrors.IsInvalid(err), "status too: %v", err)

	n := object(noteGVK, "n", map[string]any{"spec": map[string]any{"text": "hi"}})
	require.NoError(t, c.Create(ctx, n))
	n.SetResourceVersion("")
	err = c.Update(ctx, n)
	assert.True(t, apierrors.IsInvalid(err), "unstructured custom resource: %v", err)

	missing := &schemaops.Batch{}
	missing.Namespace, missing.Name = "default", "nobody"
	assert.True(t, apierrors.IsNotFound(c.Update(ctx, missing)), "existence is checked first")

	rej := m.Cluster().Server().Rejections(0)
	require.Len(t, rej, 3)
	assert.Equal(t, "user", rej[0].Caller)
	assert.Contains(t, rej[0].Err.Error(), "must be specified for an update")

	cm := &corev1.ConfigMap{}
	cm.Namespace, cm.Name, cm.Data = "default", "cfg", map[string]string{"k": "1"}
	require.NoError(t, c.Create(ctx, cm))
	cm.ResourceVersion = ""
	cm.Data["k"] = "2"
	require.NoError(t, c.Update(ctx, cm), "a built-in kind allows an unconditional update")

	b.Spec.Parallelism = 3
	got := &schemaops.Batch{}
	require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(b), got))
	got.Spec.Parallelism = 3
	require.NoError(t, c.Update(ctx, got), "with its resourceVersion it goes through")
}
