package controllerruntime_test

import (
	"context"
	"testing"

	crt "github.com/converge-sim/converge/controllerruntime"
	"github.com/converge-sim/converge/controllerruntime/convert"
	"github.com/converge-sim/converge/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

var ctx = context.Background()

func isNotFound(err error) bool { return apierrors.IsNotFound(err) }

var testConv = func() *convert.Converter {
	c, err := convert.New(clientgoscheme.Scheme, convert.Options{})
	if err != nil {
		panic(err)
	}
	return c
}()

func newManager(t interface {
	require.TestingT
	Helper()
}) *crt.Manager {
	t.Helper()
	m, err := crt.NewManager(model.NewCluster(model.Config{}), testConv, crt.ManagerOptions{})
	require.NoError(t, err)
	return m
}

func pod(name string, lbls map[string]string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, Labels: lbls},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "app:v1"}}},
	}
}

func TestCreateGetUpdateDeleteKeepKubernetesSemantics(t *testing.T) {
	c := newManager(t).OutsideClient("user")
	p := pod("a", map[string]string{"app": "web"})
	require.NoError(t, c.Create(ctx, p))
	assert.NotEmpty(t, p.UID)
	assert.Equal(t, "1", p.ResourceVersion)
	assert.Equal(t, int64(1), p.Generation)
	assert.False(t, p.CreationTimestamp.IsZero())
	assert.True(t, apierrors.IsAlreadyExists(c.Create(ctx, pod("a", nil))))
	assert.True(t, apierrors.IsBadRequest(c.Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "b", ResourceVersion: "3"}})))

	stale := p.DeepCopy()
	p.Labels["tier"] = "front"
	require.NoError(t, c.Update(ctx, p))
	assert.Equal(t, int64(1), p.Generation, "a metadata change leaves generation")
	p.Spec.Containers[0].Image = "app:v2"
	require.NoError(t, c.Update(ctx, p))
	assert.Equal(t, int64(2), p.Generation, "a spec change bumps it")
	rv := p.ResourceVersion
	require.NoError(t, c.Update(ctx, p))
	assert.Equal(t, rv, p.ResourceVersion, "a no-op update writes nothing")
	stale.Spec.Containers[0].Image = "app:v3"
	conflict := c.Update(ctx, stale)
	assert.True(t, apierrors.IsConflict(conflict))
	assert.Contains(t, conflict.Error(), "the object has been modified", "the model's message reaches the reconciler")

	var got corev1.Pod
	require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(p), &got))
	assert.Equal(t, "app:v2", got.Spec.Containers[0].Image)
	assert.Equal(t, "Pod", got.Kind, "objects read carry their kind, as from the cache")

	uid := types.UID("other")
	assert.True(t, apierrors.IsConflict(c.Delete(ctx, p, client.Preconditions{UID: &uid})))
	require.NoError(t, c.Delete(ctx, p))
	assert.True(t, apierrors.IsNotFound(c.Get(ctx, client.ObjectKeyFromObject(p), &got)))
	assert.True(t, apierrors.IsNotFound(c.Delete(ctx, p)))
	assert.True(t, apierrors.IsNotFound(c.Update(ctx, p)))
}

func TestStatusIsASubresource(t *testing.T) {
	c := newManager(t).OutsideClient("user")
	rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"}, Spec: replicaSetSpec(new(int32(3)))}
	require.NoError(t, c.Create(ctx, rs))
	rs.Status.Replicas = 3
	require.NoError(t, c.Update(ctx, rs))
	assert.Equal(t, int32(0), rs.Status.Replicas, "Update ignores status")
	rs.Status.Replicas = 3
	rs.Spec.Replicas = new(int32(9))
	require.NoError(t, c.Status().Update(ctx, rs))
	assert.Equal(t, int32(3), rs.Status.Replicas)
	assert.Equal(t, int32(3), *rs.Spec.Replicas, "Status().Update ignores spec")
	assert.Equal(t, int64(1), rs.Generation)
	assert.Error(t, c.SubResource("scale").Update(ctx, rs))
}

func TestPatchAppliesToTheStoredVersion(t *testing.T) {
	c := newManager(t).OutsideClient("user")
	p := pod("a", map[string]string{"app": "web"})
	require.NoError(t, c.Create(ctx, p))
	stale := p.DeepCopy()
	p.Labels["tier"] = "front"
	require.NoError(t, c.Update(ctx, p))

	base := stale.DeepCopy()
	stale.Spec.Containers[0].Image = "app:v2"
	require.NoError(t, c.Patch(ctx, stale, client.MergeFrom(base)), "a merge patch does not conflict")
	assert.Equal(t, "front", stale.Labels["tier"], "and loses no concurrent change")
	assert.Equal(t, "app:v2", stale.Spec.Containers[0].Image)

	old := stale.DeepCopy()
	old.ResourceVersion = p.ResourceVersion
	base = old.DeepCopy()
	old.Labels["x"] = "y"
	assert.True(t, apierrors.IsConflict(c.Patch(ctx, old, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{}))))

	base = stale.DeepCopy()
	stale.Spec.Containers = append(stale.Spec.Containers, corev1.Container{Name: "sidecar", Image: "s:v1"})
	require.NoError(t, c.Patch(ctx, stale, client.StrategicMergeFrom(base)))
	assert.Len(t, stale.Spec.Containers, 2)

	require.NoError(t, c.Patch(ctx, stale, client.RawPatch(types.JSONPatchType, []byte(`[{"op":"replace","path":"/spec/containers/0/image","value":"app:v3"}]`))))
	assert.Equal(t, "app:v3", stale.Spec.Containers[0].Image)

	base = stale.DeepCopy()
	stale.Status.Phase = corev1.PodRunning
	require.NoError(t, c.Status().Patch(ctx, stale, client.MergeFrom(base)))
	var got corev1.Pod
	require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(p), &got))
	assert.Equal(t, corev1.PodRunning, got.Status.Phase)
	assert.True(t, apierrors.IsNotFound(c.Patch(ctx, pod("gone", nil), client.MergeFrom(pod("gone", nil)))))
}

func TestListSelectsLikeTheCache(t *testing.T) {
	m := newManager(t)
	require.NoError(t, m.IndexField(ctx, &corev1.Pod{}, "spec.nodeName", func(o client.Object) []string {
		return []string{o.(*corev1.Pod).Spec.NodeName}
	}))
	c := m.OutsideClient("user")
	for name, app := range map[string]string{"a": "web", "b": "db", "c": "web"} {
		p := pod(name, map[string]string{"app": app})
		p.Spec.NodeName = "node-" + name
		require.NoError(t, c.Create(ctx, p))
	}
	names := func(opts ...client.ListOption) []string {
		var l corev1.PodList
		require.NoError(t, c.List(ctx, &l, opts...))
		var out []string
		for _, p := range l.Items {
			out = append(out, p.Name)
		}
		return out
	}
	assert.Equal(t, []string{"a", "b", "c"}, names())
	assert.Equal(t, []string{"a", "c"}, names(client.MatchingLabels{"app": "web"}))
	in, _ := labels.NewRequirement("app", selection.In, []string{"db", "cache"})
	assert.Equal(t, []string{"b"}, names(client.MatchingLabelsSelector{Selector: labels.NewSelector().Add(*in)}))
	assert.Equal(t, []string{"a", "b", "c"}, names(client.HasLabels{"app"}))
	assert.Equal(t, []string{"c"}, names(client.MatchingFields{"metadata.name": "c"}))
	assert.Equal(t, []string{"b"}, names(client.MatchingFields{"spec.nodeName": "node-b"}))
	assert.Equal(t, []string{"a"}, names(client.Limit(1)))
	assert.Empty(t, names(client.InNamespace("other")))

	var l corev1.PodList
	assert.ErrorContains(t, c.List(ctx, &l, client.MatchingFields{"spec.hostname": "x"}), "index with name field:spec.hostname does not exist")
	assert.ErrorContains(t, c.List(ctx, &l, client.Continue("x")), "not supported")
}

func TestDeleteAllOfDeletesWhatTheServerHas(t *testing.T) {
	c := newManager(t).OutsideClient("user")
	for _, name := range []string{"a", "b"} {
		require.NoError(t, c.Create(ctx, pod(name, map[string]string{"app": "web"})))
	}
	require.NoError(t, c.Create(ctx, pod("keep", map[string]string{"app": "db"})))
	held := pod("held", map[string]string{"app": "web"})
	held.Finalizers = []string{"example.com/hold"}
	require.NoError(t, c.Create(ctx, held))

	require.NoError(t, c.DeleteAllOf(ctx, &corev1.Pod{}, client.InNamespace("default"), client.MatchingLabels{"app": "web"}))
	var l corev1.PodList
	require.NoError(t, c.List(ctx, &l))
	require.Len(t, l.Items, 2)
	assert.Equal(t, "held", l.Items[0].Name)
	assert.False(t, l.Items[0].DeletionTimestamp.IsZero(), "a finalizer holds the delete")
	assert.Equal(t, "keep", l.Items[1].Name)
}

func TestModelErrorsAreAPIErrors(t *testing.T) {
	m := newManager(t)
	c := m.OutsideClient("user")
	// inject, while set, is the error every call fails with.
	var inject *model.StatusError
	applied := false
	m.Cluster().Server().AddIntercept(func(string, model.Verb, model.Ref) (error, bool) {
		if inject == nil {
			return nil, false
		}
		return inject, applied
	})
	for reason, is := range map[model.Reason]func(error) bool{
		model.ReasonTimeout:     apierrors.IsTimeout,
		model.ReasonTooManyReqs: apierrors.IsTooManyRequests,
		model.ReasonInternal:    apierrors.IsInternalError,
		model.ReasonUnavailable: apierrors.IsServiceUnavailable,
		model.ReasonConflict:    apierrors.IsConflict,
		model.ReasonInvalid:     apierrors.IsInvalid,
	} {
		inject = &model.StatusError{Reason: reason, Message: "injected", RetryAfter: 2}
		err := c.Create(ctx, pod("p-"+string(reason), nil))
		assert.True(t, is(err), "%s: got %v", reason, err)
	}
	inject, applied = &model.StatusError{Reason: model.ReasonTimeout, Message: "ambiguous"}, true
	p := pod("landed", nil)
	assert.True(t, apierrors.IsTimeout(c.Create(ctx, p)))
	assert.Empty(t, p.ResourceVersion, "the caller cannot see that it landed")
	inject = nil
	assert.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(p), p), "but it did")
}

// collectGarbage runs the model's garbage collector until it is done.
func collectGarbage(t *testing.T, m *crt.Manager) {
	t.Helper()
	s := m.Cluster().Server()
	for i := 0; s.GCPending(); i++ {
		require.Less(t, i, 100, "the collector does not stop")
		s.CollectGarbage()
	}
}

// ownedPods creates a ReplicaSet and pods it controls (with
// blockOwnerDeletion, as controllerutil.SetControllerReference sets it);
// pods named in held carry a finalizer.
func ownedPods(t *testing.T, c client.Client, held map[string]bool, names ...string) *appsv1.ReplicaSet {
	t.Helper()
	rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"}, Spec: replicaSetSpec(nil)}
	require.NoError(t, c.Create(ctx, rs))
	for _, name := range names {
		p := pod(name, nil)
		p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: rs.Name, UID: rs.UID,
			Controller: new(true), BlockOwnerDeletion: new(true)}}
		if held[name] {
			p.Finalizers = []string{"example.com/hold"}
		}
		require.NoError(t, c.Create(ctx, p))
	}
	return rs
}

func TestDeletePropagationPolicies(t *testing.T) {
	t.Run("orphan", func(t *testing.T) {
		m := newManager(t)
		c := m.OutsideClient("user")
		rs := ownedPods(t, c, nil, "a", "b")
		require.NoError(t, c.Delete(ctx, rs, client.PropagationPolicy(metav1.DeletePropagationOrphan)))
		var got appsv1.ReplicaSet
		require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(rs), &got))
		assert.Equal(t, []string{"orphan"}, got.Finalizers)
		assert.False(t, got.DeletionTimestamp.IsZero())
		collectGarbage(t, m)
		assert.True(t, apierrors.IsNotFound(c.Get(ctx, client.ObjectKeyFromObject(rs), &got)))
		var l corev1.PodList
		require.NoError(t, c.List(ctx, &l))
		require.Len(t, l.Items, 2, "the pods are left")
		for _, p := range l.Items {
			assert.Empty(t, p.OwnerReferences, p.Name)
		}
	})
	t.Run("foreground waits for a blocking dependent", func(t *testing.T) {
		m := newManager(t)
		c := m.OutsideClient("user")
		rs := ownedPods(t, c, map[string]bool{"held": true}, "a", "held")
		var p corev1.Pod
		require.NoError(t, c.Get(ctx, types.NamespacedName{Namespace: "default", Name: "held"}, &p))
		require.Len(t, p.OwnerReferences, 1)
		assert.Equal(t, new(true), p.OwnerReferences[0].BlockOwnerDeletion, "blockOwnerDeletion round-trips")

		fg := metav1.DeletePropagationForeground
		require.NoError(t, c.Delete(ctx, rs, &client.DeleteOptions{PropagationPolicy: &fg}))
		collectGarbage(t, m)
		var got appsv1.ReplicaSet
		require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(rs), &got), "the held pod blocks the owner's deletion")
		assert.Equal(t, []string{"foregroundDeletion"}, got.Finalizers)
		assert.True(t, apierrors.IsNotFound(c.Get(ctx, types.NamespacedName{Namespace: "default", Name: "a"}, &corev1.Pod{})))

		require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(&p), &p))
		p.Finalizers = nil
		require.NoError(t, c.Update(ctx, &p))
		collectGarbage(t, m)
		assert.True(t, apierrors.IsNotFound(c.Get(ctx, client.ObjectKeyFromObject(rs), &got)))
	})
	t.Run("delete all of, orphaning", func(t *testing.T) {
		m := newManager(t)
		c := m.OutsideClient("user")
		ownedPods(t, c, nil, "a")
		require.NoError(t, c.DeleteAllOf(ctx, &appsv1.ReplicaSet{}, client.InNamespace("default"),
			client.PropagationPolicy(metav1.DeletePropagationOrphan)))
		collectGarbage(t, m)
		var l corev1.PodList
		require.NoError(t, c.List(ctx, &l))
		require.Len(t, l.Items, 1)
		assert.Empty(t, l.Items[0].OwnerReferences)
	})
	t.Run("an unknown policy is invalid", func(t *testing.T) {
		c := newManager(t).OutsideClient("user")
		rs := ownedPods(t, c, nil)
		err := c.Delete(ctx, rs, client.PropagationPolicy("Sideways"))
		assert.True(t, apierrors.IsInvalid(err), "got %v", err)
		assert.ErrorContains(t, err, `Unsupported value: "Sideways"`)
		var got appsv1.ReplicaSet
		require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(rs), &got))
		assert.True(t, got.DeletionTimestamp.IsZero())
	})
}
