package convert

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	cachev1alpha1 "github.com/converge-sim/converge/controllerruntime/examples/memcached/api/v1alpha1"
	"github.com/converge-sim/converge/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"pgregory.net/rapid"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// wholeDecode is FromModel without the parts: the whole body decoded
// afresh.
func wholeDecode(t require.TestingT, c *Converter, mo *model.Object, typ reflect.Type) client.Object {
	into := reflect.New(typ).Interface().(client.Object)
	require.NoError(t, c.fromBody(mo.Kind, mo, into))
	return into
}

// TestPartsAreDecodedByContent: FromModel, which decodes spec and status
// by their content and keeps the last few, gives what a whole decode
// gives, the first time and every time after; a reader modifying what it
// got changes nothing a later reader gets; and content the server changed
// (a defaulted field, a status it set) is decoded as such, never served
// from the decode of what was sent.
func TestPartsAreDecodedByContent(t *testing.T) {
	c := newConverter(t)
	rapid.Check(t, func(t *rapid.T) {
		obj := typedObject(t, c)
		typ := reflect.TypeOf(obj).Elem()
		mo, err := c.ToModel(obj)
		require.NoError(t, err)
		want := wholeDecode(t, c, mo, typ)
		for i := range 3 {
			got := reflect.New(typ).Interface().(client.Object)
			require.NoError(t, c.FromModel(mo, got))
			require.Equal(t, want, got, "decode %d", i)
			// The reader changes what it got, in place.
			var spec *corev1.PodSpec
			switch o := got.(type) {
			case *corev1.Pod:
				spec = &o.Spec
				o.Status.Phase = "Mutated"
			case *appsv1.ReplicaSet:
				spec = &o.Spec.Template.Spec
				if o.Spec.Replicas != nil {
					*o.Spec.Replicas = 99
				}
			}
			if spec != nil && len(spec.Containers) > 0 {
				spec.Containers[0].Image = "mutated"
			}
			if spec != nil && spec.NodeSelector != nil {
				spec.NodeSelector["mutated"] = "yes"
			}
		}
		// What the server stored differs from what was sent.
		stored := mo.DeepCopy()
		stored.Spec.Set("schedulerName", "default-scheduler")
		stored.Status.Set("observedGeneration", int64(4))
		got := reflect.New(typ).Interface().(client.Object)
		require.NoError(t, c.FromModel(stored, got))
		assert.Equal(t, wholeDecode(t, c, stored, typ), got)
	})
}

// TestPartsDecodeTheDefaultedPodSpec is the case above by hand: a pod
// decoded as sent, then as stored with a default the server set.
func TestPartsDecodeTheDefaultedPodSpec(t *testing.T) {
	c := newConverter(t)
	sent := &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "app:v1"}}}}
	sent.Name, sent.Namespace = "web-0", "default"
	mo, err := c.ToModel(sent)
	require.NoError(t, err)
	var first corev1.Pod
	require.NoError(t, c.FromModel(mo, &first))
	assert.Equal(t, "", first.Spec.SchedulerName)
	mo.Spec.Set("schedulerName", "default-scheduler")
	mo.Spec.Set("containers[0].imagePullPolicy", "IfNotPresent")
	var stored corev1.Pod
	require.NoError(t, c.FromModel(mo, &stored))
	assert.Equal(t, "default-scheduler", stored.Spec.SchedulerName)
	assert.Equal(t, corev1.PullIfNotPresent, stored.Spec.Containers[0].ImagePullPolicy)
}

// TestPartsAreSafeForConcurrentUse decodes from several goroutines at
// once, as scenarios sharing a converter do (run it with -race).
func TestPartsAreSafeForConcurrentUse(t *testing.T) {
	c := newConverter(t)
	var mos []*model.Object
	for i := range 12 {
		p := &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "app:v" + string(rune('0'+i))}}}}
		p.Name, p.Namespace = "web", "default"
		mo, err := c.ToModel(p)
		require.NoError(t, err)
		mos = append(mos, mo)
	}
	done := make(chan error)
	for g := range 4 {
		go func() {
			for i := range 200 {
				mo := mos[(g+i)%len(mos)]
				var got corev1.Pod
				if err := c.FromModel(mo, &got); err != nil {
					done <- err
					return
				}
				if want := mo.Spec.Str("containers[0].image"); got.Spec.Containers[0].Image != want {
					done <- fmt.Errorf("decoded image %q, stored %q", got.Spec.Containers[0].Image, want)
					return
				}
				got.Spec.Containers[0].Image = "mutated"
			}
			done <- nil
		}()
	}
	for range 4 {
		require.NoError(t, <-done)
	}
}

// TestSharedDecodesShareTheirParts: FromModelShared gives what FromModel
// gives, but its parts are the converter's kept decodes, not copies: two
// shared decodes of the same content share the spec's memory, which two
// plain decodes never do. Without sharing, the test fails at the
// memory check.
func TestSharedDecodesShareTheirParts(t *testing.T) {
	c := newConverter(t)
	rapid.Check(t, func(t *rapid.T) {
		obj := typedObject(t, c)
		typ := reflect.TypeOf(obj).Elem()
		mo, err := c.ToModel(obj)
		require.NoError(t, err)
		want := wholeDecode(t, c, mo, typ)
		var shared, plain [2]client.Object
		for i := range 2 {
			shared[i] = reflect.New(typ).Interface().(client.Object)
			require.NoError(t, c.FromModelShared(mo, shared[i]))
			require.Equal(t, want, shared[i], "shared decode %d", i)
			plain[i] = reflect.New(typ).Interface().(client.Object)
			require.NoError(t, c.FromModel(mo, plain[i]))
			require.Equal(t, want, plain[i], "plain decode %d", i)
		}
		containers := func(o client.Object) []corev1.Container {
			switch o := o.(type) {
			case *corev1.Pod:
				return o.Spec.Containers
			case *appsv1.ReplicaSet:
				return o.Spec.Template.Spec.Containers
			}
			return nil
		}
		if len(containers(want)) == 0 {
			return
		}
		assert.Same(t, &containers(shared[0])[0], &containers(shared[1])[0], "shared decodes share their spec")
		assert.NotSame(t, &containers(plain[0])[0], &containers(plain[1])[0], "plain decodes are copies")
		assert.NotSame(t, &containers(plain[0])[0], &containers(shared[0])[0], "a plain decode is not the kept one")
	})
}

// TestStatusEqualMeansTheSameEncoding: StatusEqual holds for statuses that
// differ only in a metav1.Time's zone (its encoding keeps the instant), and
// then StatusToModel gives both the same status; it fails for statuses
// whose encodings may differ (nil and empty conditions, a quantity's
// format, another instant), and for other types.
func TestStatusEqualMeansTheSameEncoding(t *testing.T) {
	c := newConverter(t)
	at := time.Date(2025, 1, 1, 0, 0, 30, 0, time.UTC)
	base := func() *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "a"}, Status: corev1.PodStatus{
			Phase: corev1.PodRunning, StartTime: &metav1.Time{Time: at},
			Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.Time{Time: at}}},
		}}
	}
	encode := func(p *corev1.Pod) model.Fields {
		mo, err := c.StatusToModel(p)
		require.NoError(t, err)
		return mo.Status
	}
	inOtherZone := base()
	inOtherZone.Status.StartTime = &metav1.Time{Time: at.In(time.FixedZone("east", 3600))}
	inOtherZone.Status.Conditions[0].LastTransitionTime = metav1.Time{Time: at.Local()}
	assert.True(t, c.StatusEqual(base(), inOtherZone))
	assert.True(t, encode(base()).Equal(encode(inOtherZone)))

	for name, change := range map[string]func(p *corev1.Pod){
		"empty conditions": func(p *corev1.Pod) { p.Status.Conditions = []corev1.PodCondition{} },
		"nil conditions":   func(p *corev1.Pod) { p.Status.Conditions = nil },
		"another instant":  func(p *corev1.Pod) { p.Status.StartTime = &metav1.Time{Time: at.Add(time.Second)} },
		"nil start":        func(p *corev1.Pod) { p.Status.StartTime = nil },
		"a message":        func(p *corev1.Pod) { p.Status.Message = "m" },
	} {
		other := base()
		change(other)
		assert.False(t, c.StatusEqual(base(), other), name)
	}
	rs := func(q string) *appsv1.ReplicaSet {
		return &appsv1.ReplicaSet{Status: appsv1.ReplicaSetStatus{Replicas: 1, Conditions: []appsv1.ReplicaSetCondition{{Message: q}}}}
	}
	assert.True(t, c.StatusEqual(rs("x"), rs("x")))
	assert.False(t, c.StatusEqual(rs("x"), rs("y")))
	assert.False(t, c.StatusEqual(base(), rs("x")), "another type")
	q1, q2 := resource.MustParse("1Ki"), resource.MustParse("1024")
	require.Zero(t, q1.Cmp(q2))
	withQ := func(q resource.Quantity) *corev1.Pod {
		p := base()
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "a", AllocatedResources: corev1.ResourceList{corev1.ResourceMemory: q}}}
		return p
	}
	assert.False(t, c.StatusEqual(withQ(q1), withQ(q2)), "one quantity in two formats")
	assert.True(t, c.StatusEqual(withQ(q1), withQ(resource.MustParse("1Ki"))))
}

// TestAPartThatRefersToNothingIsKeptAndCopiedByAssignment: a spec without
// a DeepCopyInto whose fields are plain values (the memcached sample's)
// has its decodes kept as any part with a DeepCopyInto, copied out by
// assignment; a type that refers to anything is not.
func TestAPartThatRefersToNothingIsKeptAndCopiedByAssignment(t *testing.T) {
	for _, c := range []struct {
		v    any
		want bool
	}{
		{cachev1alpha1.MemcachedSpec{}, true},
		{struct {
			A [2]string
			B struct{ C float64 }
		}{}, true},
		{struct{ A []int }{}, false},
		{struct{ A *int32 }{}, false},
		{struct{ A map[string]string }{}, false},
		{struct{ A any }{}, false},
		{struct{ A [1]*int }{}, false},
	} {
		assert.Equal(t, c.want, refersToNothing(reflect.TypeOf(c.v), 0), "%T", c.v)
	}

	scheme := runtime.NewScheme()
	require.NoError(t, cachev1alpha1.AddToScheme(scheme))
	conv, err := New(scheme, Options{})
	require.NoError(t, err)
	typ := reflect.TypeFor[cachev1alpha1.Memcached]()
	parts := conv.partsOf(typ)
	require.NotNil(t, parts)
	require.NotNil(t, parts.spec.copyInto, "MemcachedSpec has no DeepCopyInto and refers to nothing")

	mo, err := conv.ToModel(&cachev1alpha1.Memcached{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "cache"},
		Spec: cachev1alpha1.MemcachedSpec{Size: 3, ContainerPort: 11211}})
	require.NoError(t, err)
	want := wholeDecode(t, conv, mo, typ)
	for i := range 3 {
		got := &cachev1alpha1.Memcached{}
		require.NoError(t, conv.FromModel(mo, got))
		require.Equal(t, want, got, "decode %d", i)
		got.Spec.Size = 99 // a reader's change is its own
	}
	assert.Len(t, parts.spec.kept, 1, "one content, decoded once and kept")

	was := SetPlainCopy(false)
	defer SetPlainCopy(was)
	plain, err := New(scheme, Options{})
	require.NoError(t, err)
	assert.Nil(t, plain.partsOf(typ).spec.copyInto)
}
