package convert

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/converge-sim/converge/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"pgregory.net/rapid"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

func newConverter(t *testing.T) *Converter {
	t.Helper()
	c, err := New(clientgoscheme.Scheme, Options{})
	require.NoError(t, err)
	return c
}

var (
	labelKeys = rapid.SampledFrom([]string{"app", "tier", "app.kubernetes.io/name", "x"})
	anyKeys   = rapid.SampledFrom([]string{"app", "a.b/c", "kubectl.kubernetes.io/last-applied-configuration", "", "0", "sp ace"})
	words     = rapid.SampledFrom([]string{"", "web", "a.b", "nginx:1.27", "x y", "ünï"})
	quantity  = rapid.SampledFrom([]string{"100m", "1", "2Gi", "500Mi", "0"})
)

// meta draws metadata in the subset the model represents exactly: owner
// references carry the apiVersion the converter derives and, for a
// controller, blockOwnerDeletion; timestamps are whole ticks after the
// epoch, and a creation timestamp comes with a UID.
func meta(t *rapid.T, c *Converter) metav1.ObjectMeta {
	m := metav1.ObjectMeta{
		Name:         rapid.SampledFrom([]string{"", "web", "web-x2b4c"}).Draw(t, "name"),
		GenerateName: rapid.SampledFrom([]string{"", "web-"}).Draw(t, "generateName"),
		Namespace:    rapid.SampledFrom([]string{"", "default"}).Draw(t, "namespace"),
		Generation:   rapid.Int64Range(0, 9).Draw(t, "generation"),
		Labels:       rapid.MapOfN(labelKeys, words, 0, 3).Draw(t, "labels"),
		Annotations:  rapid.MapOfN(anyKeys, words, 0, 3).Draw(t, "annotations"),
		Finalizers:   rapid.SliceOfN(rapid.SampledFrom([]string{"a.io/x", "b"}), 0, 2).Draw(t, "finalizers"),
	}
	if rapid.Bool().Draw(t, "stored") {
		m.UID = types.UID("uid-" + rapid.StringMatching(`[0-9]{1,3}`).Draw(t, "uid"))
		m.ResourceVersion = rapid.StringMatching(`[1-9][0-9]{0,4}`).Draw(t, "rv")
		m.CreationTimestamp = c.Time(model.Time(rapid.Int64Range(0, 1000).Draw(t, "created")))
	}
	if rapid.Bool().Draw(t, "deleting") {
		ts := c.Time(model.Time(rapid.Int64Range(0, 1000).Draw(t, "deleted")))
		m.DeletionTimestamp = &ts
	}
	for i := range rapid.IntRange(0, 2).Draw(t, "owners") {
		kind := rapid.SampledFrom([]string{"ReplicaSet", "Deployment", "Pod"}).Draw(t, "ownerKind")
		gvk, _ := c.GVK(kind)
		ref := metav1.OwnerReference{APIVersion: gvk.GroupVersion().String(), Kind: kind, Name: "o", UID: types.UID("owner-" + string(rune('a'+i)))}
		if rapid.Bool().Draw(t, "controller") {
			ref.Controller = new(true)
		}
		if rapid.Bool().Draw(t, "blockOwnerDeletion") {
			ref.BlockOwnerDeletion = new(true)
		}
		m.OwnerReferences = append(m.OwnerReferences, ref)
	}
	return m
}

func podSpec(t *rapid.T) corev1.PodSpec {
	var s corev1.PodSpec
	for i := range rapid.IntRange(0, 2).Draw(t, "containers") {
		ct := corev1.Container{
			Name:  "c" + string(rune('0'+i)),
			Image: words.Draw(t, "image"),
			Args:  rapid.SliceOfN(words, 0, 2).Draw(t, "args"),
		}
		if rapid.Bool().Draw(t, "requests") {
			ct.Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(quantity.Draw(t, "cpu"))}
		}
		for range rapid.IntRange(0, 2).Draw(t, "ports") {
			ct.Ports = append(ct.Ports, corev1.ContainerPort{ContainerPort: rapid.Int32Range(1, 65535).Draw(t, "port")})
		}
		s.Containers = append(s.Containers, ct)
	}
	s.NodeSelector = rapid.MapOfN(labelKeys, words, 0, 2).Draw(t, "nodeSelector")
	s.RestartPolicy = corev1.RestartPolicy(rapid.SampledFrom([]string{"", "Always", "Never"}).Draw(t, "restartPolicy"))
	if rapid.Bool().Draw(t, "grace") {
		s.TerminationGracePeriodSeconds = new(rapid.Int64().Draw(t, "graceSeconds"))
	}
	return s
}

// typedObject draws one of several kinds: spec-and-status kinds (Pod,
// ReplicaSet, Service) and kinds whose body is not a spec (ConfigMap,
// Secret).
func typedObject(t *rapid.T, c *Converter) client.Object {
	m := meta(t, c)
	switch rapid.IntRange(0, 4).Draw(t, "kind") {
	case 0:
		p := &corev1.Pod{ObjectMeta: m, Spec: podSpec(t)}
		p.Status.Phase = corev1.PodPhase(rapid.SampledFrom([]string{"", "Running"}).Draw(t, "phase"))
		if rapid.Bool().Draw(t, "condition") {
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: c.Time(7)}}
		}
		return p
	case 1:
		rs := &appsv1.ReplicaSet{ObjectMeta: m}
		if rapid.Bool().Draw(t, "replicas") {
			rs.Spec.Replicas = new(rapid.Int32Range(0, 5).Draw(t, "n"))
		}
		rs.Spec.Selector = &metav1.LabelSelector{MatchLabels: rapid.MapOfN(labelKeys, words, 0, 2).Draw(t, "selector")}
		rs.Spec.Template.Labels = rs.Spec.Selector.MatchLabels
		rs.Spec.Template.Spec = podSpec(t)
		rs.Status.Replicas = rapid.Int32Range(0, 5).Draw(t, "statusReplicas")
		rs.Status.ObservedGeneration = rapid.Int64Range(0, 5).Draw(t, "observed")
		return rs
	case 2:
		svc := &corev1.Service{ObjectMeta: m}
		for range rapid.IntRange(0, 2).Draw(t, "servicePorts") {
			target := intstr.FromInt32(rapid.Int32Range(1, 100).Draw(t, "targetPort"))
			if rapid.Bool().Draw(t, "named") {
				target = intstr.FromString("http")
			}
			svc.Spec.Ports = append(svc.Spec.Ports, corev1.ServicePort{Port: 80, TargetPort: target})
		}
		svc.Spec.Selector = rapid.MapOfN(labelKeys, words, 0, 2).Draw(t, "serviceSelector")
		return svc
	case 3:
		cm := &corev1.ConfigMap{ObjectMeta: m, Data: rapid.MapOfN(anyKeys, words, 0, 3).Draw(t, "data")}
		if rapid.Bool().Draw(t, "binary") {
			cm.BinaryData = map[string][]byte{"b.bin": rapid.SliceOfN(rapid.Byte(), 0, 8).Draw(t, "bytes")}
		}
		return cm
	default:
		return &corev1.Secret{ObjectMeta: m, Type: corev1.SecretTypeOpaque, Data: map[string][]byte{"k": []byte(words.Draw(t, "secret"))}}
	}
}

// asJSON renders an object as the API server would serve it.
func asJSON(t require.TestingT, obj client.Object) string {
	b, err := json.Marshal(obj)
	require.NoError(t, err)
	return string(b)
}

func TestTypedObjectsRoundTrip(t *testing.T) {
	c := newConverter(t)
	rapid.Check(t, func(t *rapid.T) {
		in := typedObject(t, c)
		mo, err := c.ToModel(in)
		require.NoError(t, err)
		out := in.DeepCopyObject().(client.Object)
		require.NoError(t, c.FromModel(mo, out))
		gvk, _ := c.GVK(mo.Kind)
		in.GetObjectKind().SetGroupVersionKind(gvk)
		assert.JSONEq(t, asJSON(t, in), asJSON(t, out))
		again, err := c.ToModel(out)
		require.NoError(t, err)
		assert.Equal(t, mo, again, "the model object is a fixed point")
	})
}

func TestSpecStatusAndMetadataLandWhereTheModelLooks(t *testing.T) {
	c := newConverter(t)
	rs := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", ResourceVersion: "12",
			Labels: map[string]string{"app": "web"}, Annotations: map[string]string{"a.io/b": "c"}},
		Spec:   appsv1.ReplicaSetSpec{Replicas: new(int32(3))},
		Status: appsv1.ReplicaSetStatus{Replicas: 2},
	}
	mo, err := c.ToModel(rs)
	require.NoError(t, err)
	assert.Equal(t, "ReplicaSet", mo.Kind)
	assert.Equal(t, uint64(12), mo.ResourceVersion)
	assert.Equal(t, int64(3), mo.Spec.Int("replicas"), "spec is hoisted: spec.replicas is the path replicas")
	assert.Equal(t, int64(2), mo.Status.Int("replicas"))
	assert.Equal(t, map[string]string{"app": "web", "annotation:a.io/b": "c"}, mo.Labels.Map())

	cm, err := c.ToModel(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm"}, Data: map[string]string{"config.yaml": "x"}})
	require.NoError(t, err)
	assert.Equal(t, model.NewFields(model.Values{`data["config.yaml"]`: "x"}), cm.Spec, "a body that is not a spec keeps its top-level names")
}

func TestLossyEdgesAreTheDocumentedOnes(t *testing.T) {
	c := newConverter(t)
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{
		Name: "p", Namespace: "default",
		DeletionGracePeriodSeconds: new(int64(30)),
		ManagedFields:              []metav1.ManagedFieldsEntry{{Manager: "kubectl"}},
		OwnerReferences: []metav1.OwnerReference{
			{APIVersion: "apps/v1beta2", Kind: "ReplicaSet", Name: "a", UID: "1", Controller: new(true)},
			{APIVersion: "example.com/v1", Kind: "Unknown", Name: "b", UID: "2", Controller: new(false), BlockOwnerDeletion: new(true)},
		},
	}}
	mo, err := c.ToModel(pod)
	require.NoError(t, err)
	out := &corev1.Pod{}
	require.NoError(t, c.FromModel(mo, out))
	assert.Nil(t, out.DeletionGracePeriodSeconds)
	assert.Nil(t, out.ManagedFields)
	assert.Equal(t, []metav1.OwnerReference{
		{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "a", UID: "1", Controller: new(true)},
		{Kind: "Unknown", Name: "b", UID: "2", BlockOwnerDeletion: new(true)},
	}, out.OwnerReferences)
}

func TestKindsAreNamedByKindAlone(t *testing.T) {
	c := newConverter(t)
	gvk, err := c.GVK("Deployment")
	require.NoError(t, err)
	assert.Equal(t, "apps/v1", gvk.GroupVersion().String(), "apps/v1 over extensions/v1beta1")
	gvk, err = c.GVK("Event")
	require.NoError(t, err)
	assert.Equal(t, "v1", gvk.GroupVersion().String(), "the core group wins")
	// client-go's scheme registers these groups' beta versions first; an
	// API server serves the stable one.
	for kind, want := range map[string]string{"StorageClass": "storage.k8s.io/v1", "Lease": "coordination.k8s.io/v1", "PriorityClass": "scheduling.k8s.io/v1"} {
		gvk, err = c.GVK(kind)
		require.NoError(t, err)
		assert.Equal(t, want, gvk.GroupVersion().String(), "%s: the stable version over a beta", kind)
	}
	_, err = c.ToModel(&eventsv1.Event{ObjectMeta: metav1.ObjectMeta{Name: "e"}})
	assert.ErrorContains(t, err, "pin it with Options.Prefer")

	pinned, err := New(clientgoscheme.Scheme, Options{Prefer: []runtime.Object{&eventsv1.Event{}}})
	require.NoError(t, err)
	_, err = pinned.ToModel(&eventsv1.Event{ObjectMeta: metav1.ObjectMeta{Name: "e"}})
	assert.NoError(t, err)
}

func TestInvalidInputsAreErrors(t *testing.T) {
	c := newConverter(t)
	_, err := c.ToModel(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", ResourceVersion: "abc"}})
	assert.ErrorContains(t, err, "resourceVersion")
	_, err = c.ToModel(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Labels: map[string]string{"annotation:x": "y"}}})
	assert.ErrorContains(t, err, "reserved")
	err = c.FromModel(&model.Object{Kind: "Pod", Name: "p"}, &corev1.ConfigMap{})
	assert.ErrorContains(t, err, "cannot convert a Pod into a ConfigMap")
}

func TestTimeAndTicks(t *testing.T) {
	c, err := New(clientgoscheme.Scheme, Options{Tick: 100 * time.Millisecond})
	require.NoError(t, err)
	assert.Equal(t, model.Time(42), c.ModelTime(c.Time(42)))
	assert.Equal(t, model.Time(0), c.Ticks(0))
	assert.Equal(t, model.Time(1), c.Ticks(time.Nanosecond), "a positive duration is at least a tick")
	assert.Equal(t, model.Time(15), c.Ticks(1500*time.Millisecond))
}
