package controllerruntime

import (
	"context"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/converge-sim/converge/controllerruntime/convert"
	"github.com/converge-sim/converge/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

func memoManager(t *testing.T) (*Manager, client.Client) {
	t.Helper()
	conv, err := convert.New(clientgoscheme.Scheme, convert.Options{})
	require.NoError(t, err)
	m, err := NewManager(model.NewCluster(model.Config{}), conv, ManagerOptions{})
	require.NoError(t, err)
	c := m.OutsideClient("user")
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "a", Labels: map[string]string{"app": "web"}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "app:v1"}}},
	}
	require.NoError(t, c.Create(context.Background(), p))
	return m, c
}

func getPod(t *testing.T, c client.Client) *corev1.Pod {
	t.Helper()
	var p corev1.Pod
	require.NoError(t, c.Get(context.Background(), client.ObjectKey{Namespace: "default", Name: "a"}, &p))
	return &p
}

// A read after a write gets what was written, never the memoized
// version before it.
func TestMemoServesTheWrittenVersion(t *testing.T) {
	ctx := context.Background()
	_, c := memoManager(t)
	p := getPod(t, c)
	p.Spec.Containers[0].Image = "app:v2"
	require.NoError(t, c.Update(ctx, p))
	assert.Equal(t, "app:v2", getPod(t, c).Spec.Containers[0].Image)

	p = getPod(t, c)
	p.Status.Phase = corev1.PodRunning
	require.NoError(t, c.Status().Update(ctx, p))
	got := getPod(t, c)
	assert.Equal(t, corev1.PodRunning, got.Status.Phase)
	assert.Equal(t, "app:v2", got.Spec.Containers[0].Image)

	var list corev1.PodList
	require.NoError(t, c.List(ctx, &list))
	require.Len(t, list.Items, 1)
	assert.Equal(t, got.ResourceVersion, list.Items[0].ResourceVersion)
	assert.Equal(t, corev1.PodRunning, list.Items[0].Status.Phase)
}

// A reader owns what it read: changing it changes nothing another reader
// gets.
func TestMemoIsNotPoisonedByAReaderThatModifiesItsCopy(t *testing.T) {
	ctx := context.Background()
	_, c := memoManager(t)
	p := getPod(t, c)
	p.Labels["app"] = "changed"
	p.Spec.Containers[0].Image = "changed"
	p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: "extra"})
	again := getPod(t, c)
	assert.Equal(t, "web", again.Labels["app"])
	require.Len(t, again.Spec.Containers, 1)
	assert.Equal(t, "app:v1", again.Spec.Containers[0].Image)

	var list corev1.PodList
	require.NoError(t, c.List(ctx, &list))
	list.Items[0].Spec.Containers[0].Image = "changed"
	assert.Equal(t, "app:v1", getPod(t, c).Spec.Containers[0].Image)
}

// The memo's first decode of a version shares its spec with every other
// object of the same content (convert.FromModelShared); a reader still
// owns what it got: a write's result, a Get or a List item modified in
// place changes neither another object of that content nor a later read.
func TestASharedPartIsNeverHandedOut(t *testing.T) {
	ctx := context.Background()
	_, c := memoManager(t)
	a := getPod(t, c)
	a.Spec.Containers[0].Image = "changed"
	a.Spec.Containers = append(a.Spec.Containers, corev1.Container{Name: "extra"})
	b := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "b"},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "app:v1"}}},
	}
	require.NoError(t, c.Create(ctx, b))
	b.Spec.Containers[0].Image = "changed by the writer"
	var got corev1.Pod
	require.NoError(t, c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "b"}, &got))
	require.Len(t, got.Spec.Containers, 1)
	assert.Equal(t, "app:v1", got.Spec.Containers[0].Image)
	assert.NotSame(t, &got.Spec.Containers[0], &getPod(t, c).Spec.Containers[0])

	var list corev1.PodList
	require.NoError(t, c.List(ctx, &list))
	require.Len(t, list.Items, 2)
	for i := range list.Items {
		list.Items[i].Spec.Containers[0].Image = "changed in a list"
	}
	assert.Equal(t, "app:v1", getPod(t, c).Spec.Containers[0].Image)
	require.NoError(t, c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "b"}, &got))
	assert.Equal(t, "app:v1", got.Spec.Containers[0].Image)
}

// A status update of an object whose status is still the one read sends
// the memo's encoding of that version's status, made once; any other
// status is encoded as before. Either way the model object sent is what
// convert's StatusToModel gives, and the server stores what was sent.
// Without the reuse, the memo's entry is never encoded and the test fails.
func TestAStatusStillAsReadIsNotEncodedAgain(t *testing.T) {
	ctx := context.Background()
	m, c := memoManager(t)
	cl := c.(*modelClient)
	p := getPod(t, c)
	p.Status.Phase = corev1.PodPending
	started := time.Date(2025, 1, 1, 0, 1, 0, 0, time.UTC)
	p.Status.StartTime = &metav1.Time{Time: started}
	require.NoError(t, c.Status().Update(ctx, p))

	// The time a reconciler sets is often in UTC where the decoded one is
	// local: the same instant, the same encoding.
	inUTC := getPod(t, c)
	inUTC.Status.StartTime = &metav1.Time{Time: started}
	_, ok := cl.readStatus(inUTC)
	assert.True(t, ok, "a status still as read, its time in another zone")

	read := getPod(t, c)
	same := func(o client.Object) {
		t.Helper()
		want, err := m.conv.StatusToModel(o)
		require.NoError(t, err)
		got, err := cl.statusToModel(o)
		require.NoError(t, err)
		assert.Equal(t, want, got)
	}
	same(read)
	e := m.memo.entry(model.UID(read.UID), mustRV(t, read), read)
	require.NotNil(t, e)
	assert.True(t, e.statusEncoded, "the read version's status was encoded once, for the memo")
	require.NoError(t, c.Status().Update(ctx, read))
	assert.Equal(t, mustRV(t, getPod(t, c)), mustRV(t, read), "nothing changed")

	// Statuses that differ from the one read, even where JSON does not
	// tell them apart, are encoded afresh.
	for _, change := range []func(p *corev1.Pod){
		func(p *corev1.Pod) { p.Status.Phase = corev1.PodRunning },
		func(p *corev1.Pod) { p.Status.Conditions = []corev1.PodCondition{} },
		func(p *corev1.Pod) { p.Status.Message = "m" },
		func(p *corev1.Pod) { p.Spec.Containers[0].Image = "spec, not status"; p.Labels["x"] = "y" },
	} {
		o := getPod(t, c)
		change(o)
		same(o)
	}
	o := getPod(t, c)
	o.Status.Phase = corev1.PodRunning
	require.NoError(t, c.Status().Update(ctx, o))
	assert.Equal(t, corev1.PodRunning, getPod(t, c).Status.Phase)
}

// The memo keeps the newest few versions of an object and forgets a
// deleted one.
func TestMemoIsBounded(t *testing.T) {
	ctx := context.Background()
	m, c := memoManager(t)
	for i := range 10 {
		p := getPod(t, c)
		p.Labels["round"] = string(rune('a' + i))
		require.NoError(t, c.Update(ctx, p))
	}
	p := getPod(t, c)
	entries := m.memo[model.UID(p.UID)]
	assert.LessOrEqual(t, len(entries), memoVersions)
	var newest uint64
	for _, e := range entries {
		newest = max(newest, e.rv)
	}
	assert.Equal(t, p.ResourceVersion, strconv.FormatUint(newest, 10))

	m.memo.forget(model.UID(p.UID))
	assert.False(t, m.memo.get(model.UID(p.UID), newest, &corev1.Pod{}))
	assert.Equal(t, p, getPod(t, c), "a forgotten version is decoded again")
}

// Only watches that run nothing but controller-runtime's own handlers,
// with no predicates, get the memo's objects uncopied.
func TestOnlyControllerRuntimesOwnHandlersShareDecodedObjects(t *testing.T) {
	mapFunc := handler.EnqueueRequestsFromMapFunc(func(context.Context, client.Object) []reconcile.Request { return nil })
	for _, c := range []struct {
		h     handler.EventHandler
		preds []predicate.Predicate
		want  bool
	}{
		{&handler.EnqueueRequestForObject{}, nil, true},
		{handler.Funcs{}, nil, true},
		{&handler.EnqueueRequestForObject{}, []predicate.Predicate{predicate.GenerationChangedPredicate{}}, false},
		{mapFunc, nil, false},
		{handler.Funcs{UpdateFunc: func(context.Context, event.UpdateEvent, workqueue.TypedRateLimitingInterface[reconcile.Request]) {}}, nil, false},
	} {
		assert.Equal(t, c.want, readOnly(reflect.ValueOf(c.h), reflect.ValueOf(c.preds)), "%T with %d predicates", c.h, len(c.preds))
	}
}

// A merge patch through JSON (the path every patch type but a merge
// patch of a typed kind takes; patch.go) reads the memo's decode of the
// stored version as its base without changing it: the patched version is
// served afterwards, and the version before it is still decoded as it was
// stored.
func TestPatchLeavesTheMemoizedBaseAlone(t *testing.T) {
	fastMergePatch = false
	defer func() { fastMergePatch = true }()
	ctx := context.Background()
	m, c := memoManager(t)
	before := getPod(t, c)
	kept := m.memo.peek(model.UID(before.UID), mustRV(t, before), false)
	require.NotNil(t, kept, "the read memoized the version")
	keptCopy := kept.DeepCopyObject()

	p := before.DeepCopy()
	p.Labels["app"] = "patched"
	p.Spec.ActiveDeadlineSeconds = new(int64(30))
	require.NoError(t, c.Patch(ctx, p, client.MergeFrom(before)))
	assert.Equal(t, "patched", p.Labels["app"])

	got := getPod(t, c)
	assert.Equal(t, "patched", got.Labels["app"])
	require.NotNil(t, got.Spec.ActiveDeadlineSeconds)
	assert.NotEqual(t, before.ResourceVersion, got.ResourceVersion)
	assert.Equal(t, keptCopy, kept, "the memo's decode of the base is unchanged")
	assert.Equal(t, keptCopy, m.memo.peek(model.UID(before.UID), mustRV(t, before), false))
}

func mustRV(t *testing.T, obj client.Object) uint64 {
	t.Helper()
	rv, err := strconv.ParseUint(obj.GetResourceVersion(), 10, 64)
	require.NoError(t, err)
	return rv
}

// An event handler's shared decode is kept by the memo itself; a reader
// of the same version gets its own copy, equal to a fresh decode.
func TestSharedDecodesAreKeptAndCopiedToReaders(t *testing.T) {
	m, c := memoManager(t)
	mo, err := m.cluster.Server().Get("Pod", "default", "a")
	require.NoError(t, err)
	m.memo.forget(mo.UID)

	shared := m.sharedObject(mo, false)
	assert.Same(t, shared, m.sharedObject(mo, false), "the memo keeps the shared decode itself")
	fresh := &corev1.Pod{}
	require.NoError(t, m.conv.FromModel(mo, fresh))
	assert.Equal(t, fresh, shared)

	got := getPod(t, c)
	assert.NotSame(t, shared, got)
	got.Labels["app"] = "changed"
	got.Spec.Containers[0].Image = "changed"
	assert.Equal(t, fresh, shared, "a reader's copy is its own")
}

// deepCopyInto leaves nothing of what into held before: a generated
// DeepCopyInto overwrites every field, so it is not zeroed first.
func TestDeepCopyIntoOverwritesEveryField(t *testing.T) {
	src := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "a", Labels: map[string]string{"app": "web"}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "app:v1"}}},
	}
	into := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "old", Annotations: map[string]string{"x": "y"}, Finalizers: []string{"f"}},
		Spec:       corev1.PodSpec{NodeName: "n", Volumes: []corev1.Volume{{Name: "v"}}},
		Status:     corev1.PodStatus{Phase: corev1.PodRunning},
	}
	assert.True(t, generated(reflect.TypeFor[corev1.Pod]()))
	deepCopyInto(src, into)
	assert.Equal(t, src, into)
	into.Labels["app"] = "changed"
	assert.Equal(t, "web", src.Labels["app"], "a deep copy")
}

// The kinds copyBuiltin copies directly are copied as the reflective path
// copies them, and another kind takes the reflective path.
func TestCopyBuiltinAgreesWithReflection(t *testing.T) {
	replicas := int32(3)
	for _, src := range []client.Object{
		&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "a", Labels: map[string]string{"app": "web"}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "app:v1"}}}},
		&appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Spec: appsv1.ReplicaSetSpec{Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c"}, Data: map[string]string{"k": "v"}},
		&batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "j", Labels: map[string]string{"a": "b"}},
			Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "run", Image: "busybox"}}}}}},
		&batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Name: "cj"}, Spec: batchv1.CronJobSpec{Schedule: "*/5 * * * *"}},
	} {
		direct := src.DeepCopyObject().(client.Object)
		reflected := src.DeepCopyObject().(client.Object)
		direct.SetName("stale")
		reflected.SetName("stale")
		assert.True(t, copyBuiltin(src, direct), "%T", src)
		reflectCopyInto(src, reflected)
		assert.Equal(t, src, direct)
		assert.Equal(t, reflected, direct)
	}
	assert.False(t, copyBuiltin(&corev1.ServiceAccount{}, &corev1.ServiceAccount{}))
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "s", Labels: map[string]string{"a": "b"}}}
	into := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "old", Annotations: map[string]string{"x": "y"}}}
	deepCopyInto(sa, into)
	assert.Equal(t, sa, into)
}

// BenchmarkDeepCopyInto copies a pod and a Job as a read out of the memo
// does: directly (copyBuiltin) and through reflection (any other kind).
//
//	go test -run XXX -bench DeepCopyInto ./
func BenchmarkDeepCopyInto(b *testing.B) {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web-0", Labels: map[string]string{"app": "web"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web", UID: "u"}}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "app:v1"}}},
	}
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "nightly-1", Annotations: map[string]string{"scheduled-at": "2026-01-01T00:00:00Z"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "batch.example.com/v1", Kind: "PeriodicJob", Name: "nightly", UID: "u"}}},
		Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "run", Image: "busybox"}}}}},
	}
	for _, src := range []struct {
		kind string
		obj  client.Object
		new  func() client.Object
	}{
		{"pod", pod, func() client.Object { return &corev1.Pod{} }},
		{"job", job, func() client.Object { return &batchv1.Job{} }},
	} {
		for _, c := range []struct {
			name string
			copy func(src, into client.Object)
		}{
			{"direct", deepCopyInto},
			{"reflect", reflectCopyInto},
		} {
			b.Run(src.kind+"/"+c.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					c.copy(src.obj, src.new())
				}
			})
		}
	}
}
