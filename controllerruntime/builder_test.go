package controllerruntime_test

import (
	"context"
	"errors"
	"testing"
	"time"

	crt "github.com/converge-sim/converge/controllerruntime"
	"github.com/converge-sim/converge/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// settle runs every pending delivery and reconcile, in the cluster's order.
func settle(c *model.Cluster) {
	for c.Busy() {
		c.Do(c.Enabled(nil)[0])
	}
}

// recording registers a controller for ReplicaSets that owns Pods, whose
// reconciler records each request and then runs fn, if set, with its
// client.
func recording(t *testing.T, m *crt.Manager, b *crt.Builder, fn func(c client.Client, req reconcile.Request) (reconcile.Result, error)) *[]string {
	t.Helper()
	var seen []string
	require.NoError(t, b.Complete(func(c client.Client) reconcile.Reconciler {
		return reconcile.Func(func(_ context.Context, req reconcile.Request) (reconcile.Result, error) {
			seen = append(seen, req.String())
			if fn != nil {
				return fn(c, req)
			}
			return reconcile.Result{}, nil
		})
	}))
	return &seen
}

func replicaSet(name string) *appsv1.ReplicaSet {
	return &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name}, Spec: replicaSetSpec(new(int32(1)))}
}

func TestReadsComeFromTheControllersCache(t *testing.T) {
	m := newManager(t)
	var cl client.Client
	recording(t, m, crt.NewControllerManagedBy(m).For(&appsv1.ReplicaSet{}), func(c client.Client, _ reconcile.Request) (reconcile.Result, error) {
		cl = c
		return reconcile.Result{}, nil
	})
	require.NoError(t, m.Apply(replicaSet("a")))
	require.NoError(t, m.Cluster().Start())
	settle(m.Cluster())
	require.NoError(t, m.OutsideClient("user").Create(ctx, replicaSet("b")))
	var rs appsv1.ReplicaSet
	assert.True(t, isNotFound(cl.Get(ctx, client.ObjectKey{Namespace: "default", Name: "b"}, &rs)), "the cache has not seen b")
	live, err := crt.APIReader(cl)
	require.NoError(t, err)
	assert.NoError(t, live.Get(ctx, client.ObjectKey{Namespace: "default", Name: "b"}, &rs), "the API reader has")
	settle(m.Cluster())
	assert.NoError(t, cl.Get(ctx, client.ObjectKey{Namespace: "default", Name: "b"}, &rs))
	var pods corev1.PodList
	assert.ErrorContains(t, cl.List(ctx, &pods), "does not watch it")
}

func TestOwnsEnqueuesTheControllingOwnerAndGCRemovesDependents(t *testing.T) {
	m := newManager(t)
	seen := recording(t, m, crt.NewControllerManagedBy(m).For(&appsv1.ReplicaSet{}).Owns(&corev1.Pod{}), nil)
	out := m.OutsideClient("user")
	rs := replicaSet("web")
	require.NoError(t, m.Cluster().Start())
	require.NoError(t, out.Create(ctx, rs))
	settle(m.Cluster())
	p := pod("web-0", nil)
	require.NoError(t, controllerutil.SetControllerReference(rs, p, m.GetScheme()))
	require.NoError(t, out.Create(ctx, p))
	require.NoError(t, out.Create(ctx, pod("stray", nil)))
	settle(m.Cluster())
	assert.Equal(t, []string{"default/web", "default/web"}, *seen, "the owned pod enqueues its owner; the stray pod nothing")

	require.NoError(t, out.Delete(ctx, rs))
	settle(m.Cluster())
	assert.True(t, isNotFound(out.Get(ctx, client.ObjectKeyFromObject(p), p)), "the garbage collector deleted the dependent")
}

func TestPredicatesFilterEventsResyncIncluded(t *testing.T) {
	c := model.NewCluster(model.Config{})
	m, err := crt.NewManager(c, testConv, crt.ManagerOptions{SyncPeriod: 10 * time.Second})
	require.NoError(t, err)
	seen := recording(t, m, crt.NewControllerManagedBy(m).For(&appsv1.ReplicaSet{}, crt.WithPredicates(predicate.GenerationChangedPredicate{})), nil)
	out := m.OutsideClient("user")
	rs := replicaSet("web")
	require.NoError(t, out.Create(ctx, rs))
	require.NoError(t, c.Start())
	settle(c)
	require.Len(t, *seen, 1, "the initial list is a create event")

	rs.Status.Replicas = 1
	require.NoError(t, out.Status().Update(ctx, rs))
	settle(c)
	c.Do(model.Action{Kind: model.ActTimer}) // resync
	settle(c)
	assert.Len(t, *seen, 1, "a status change and a resync keep the generation")
	rs.Spec.Replicas = new(int32(2))
	require.NoError(t, out.Update(ctx, rs))
	settle(c)
	assert.Len(t, *seen, 2)
}

func TestWatchesMapsEventsThroughTheHandler(t *testing.T) {
	m := newManager(t)
	toWeb := handler.EnqueueRequestsFromMapFunc(func(_ context.Context, o client.Object) []reconcile.Request {
		return []reconcile.Request{{NamespacedName: client.ObjectKey{Namespace: o.GetNamespace(), Name: o.GetLabels()["for"]}}}
	})
	seen := recording(t, m, crt.NewControllerManagedBy(m).For(&appsv1.ReplicaSet{}).
		Watches(&corev1.ConfigMap{}, toWeb).
		WithEventFilter(predicate.NewPredicateFuncs(func(o client.Object) bool { return o.GetName() != "ignored" })), nil)
	require.NoError(t, m.Cluster().Start())
	out := m.OutsideClient("user")
	require.NoError(t, out.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "cfg", Labels: map[string]string{"for": "web"}}}))
	require.NoError(t, out.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "ignored", Labels: map[string]string{"for": "db"}}}))
	settle(m.Cluster())
	assert.Equal(t, []string{"default/web"}, *seen)
}

func TestResultsFollowControllerRuntime(t *testing.T) {
	m := newManager(t)
	results := map[string]func() (reconcile.Result, error){
		"after": func() (reconcile.Result, error) { return reconcile.Result{RequeueAfter: 1500 * time.Millisecond}, nil },
		"terminal": func() (reconcile.Result, error) {
			return reconcile.Result{}, reconcile.TerminalError(errors.New("bad spec"))
		},
		"error": func() (reconcile.Result, error) {
			return reconcile.Result{RequeueAfter: time.Hour}, errors.New("retry")
		},
	}
	seen := recording(t, m, crt.NewControllerManagedBy(m).For(&appsv1.ReplicaSet{}), func(_ client.Client, req reconcile.Request) (reconcile.Result, error) {
		return results[req.Name]()
	})
	require.NoError(t, m.Apply(replicaSet("after"), replicaSet("error"), replicaSet("terminal")))
	c := m.Cluster()
	require.NoError(t, c.Start())
	settle(c)
	*seen = nil
	var fired []string
	for range 3 {
		t := c.NextTimer()
		fired = append(fired, t.Name)
		c.Do(model.Action{Kind: model.ActTimer})
		settle(c)
	}
	assert.Equal(t, []string{"requeue replicaset default/error", "requeue replicaset default/after", "requeue replicaset default/error"}, fired,
		"an error backs off from 1 tick (its RequeueAfter ignored), 1.5s is 2 ticks; the terminal error is not requeued")
	assert.Equal(t, []string{"default/error", "default/after", "default/error"}, *seen)
}

func TestGoalsReadTypedObjects(t *testing.T) {
	m := newManager(t)
	recording(t, m, crt.NewControllerManagedBy(m).For(&appsv1.ReplicaSet{}).WithGoal(func(ctx context.Context, r client.Reader) []model.Unmet {
		var l appsv1.ReplicaSetList
		if err := r.List(ctx, &l); err != nil {
			return []model.Unmet{{Message: err.Error()}}
		}
		var out []model.Unmet
		for i := range l.Items {
			if l.Items[i].Status.Replicas != *l.Items[i].Spec.Replicas {
				out = append(out, crt.Unmet(&l.Items[i], "has %d replicas", l.Items[i].Status.Replicas))
			}
		}
		return out
	}), nil)
	require.NoError(t, m.Apply(replicaSet("web")))
	goals := m.Cluster().Goals()
	require.Len(t, goals, 1)
	assert.Equal(t, "ReplicaSet default/web has 0 replicas", goals[0].Unmet.String())
}

func TestBuilderRejectsBadDeclarations(t *testing.T) {
	m := newManager(t)
	noop := func(client.Client) reconcile.Reconciler { return nil }
	assert.ErrorContains(t, crt.NewControllerManagedBy(m).Owns(&corev1.Pod{}).Complete(noop), "call For()")
	assert.ErrorContains(t, crt.NewControllerManagedBy(m).For(&appsv1.ReplicaSet{}).For(&corev1.Pod{}).Complete(noop), "only be called once")
	assert.ErrorContains(t, crt.NewControllerManagedBy(m).For(&appsv1.ReplicaSet{}).Complete(nil), "constructor")
}
