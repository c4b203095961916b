package convert

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// BenchmarkConvert converts a Pod and a ReplicaSet, as a controller
// writes them (ToModel) and reads them (FromModel, no memo; the same
// content every time, so spec and status are copies of the kept decodes
// of parts.go).
//
//	go test -run XXX -bench Convert ./convert
func BenchmarkConvert(b *testing.B) {
	c, err := New(scheme.Scheme, Options{})
	if err != nil {
		b.Fatal(err)
	}
	replicas := int32(3)
	labels := map[string]string{"app": "web"}
	spec := corev1.PodSpec{Containers: []corev1.Container{{
		Name: "app", Image: "app:v1", Args: []string{"--port", "80"},
		Ports:     []corev1.ContainerPort{{ContainerPort: 80}},
		Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}},
	}}}
	meta := metav1.ObjectMeta{Namespace: "default", Name: "web-0", UID: "u1", ResourceVersion: "7", Labels: labels,
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web", UID: "u0", Controller: new(true), BlockOwnerDeletion: new(true)}}}
	for _, obj := range []client.Object{
		&corev1.Pod{ObjectMeta: meta, Spec: spec, Status: corev1.PodStatus{Phase: corev1.PodRunning}},
		&appsv1.ReplicaSet{ObjectMeta: meta, Spec: appsv1.ReplicaSetSpec{Replicas: &replicas, Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: spec}}, Status: appsv1.ReplicaSetStatus{Replicas: 3}},
	} {
		kind, err := c.Kind(obj)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(kind+"/ToModel", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.ToModel(obj); err != nil {
					b.Fatal(err)
				}
			}
		})
		mo, err := c.ToModel(obj)
		if err != nil {
			b.Fatal(err)
		}
		into := obj.DeepCopyObject().(client.Object)
		b.Run(kind+"/FromModel", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := c.FromModel(mo, into); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkMergePatch applies controller-runtime's MergeFrom diff of a
// ReplicaSet's replicas (the ReplicaSet example's user move) to the
// stored ReplicaSet, whose parts' decodes the converter keeps, as a read
// before the patch leaves them: through the unflattened maps and
// encoding/json's reading of the patch, then with each of the merge into
// the kept decode and the patch's own reading.
//
//	go test -run XXX -bench MergePatch ./convert
func BenchmarkMergePatch(b *testing.B) {
	c, err := New(scheme.Scheme, Options{})
	if err != nil {
		b.Fatal(err)
	}
	labels := map[string]string{"app": "web"}
	rs := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web", UID: "u1", ResourceVersion: "7", Labels: labels},
		Spec: appsv1.ReplicaSetSpec{Replicas: new(int32(3)), Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "app:v1"}}}}},
		Status: appsv1.ReplicaSetStatus{Replicas: 3, ReadyReplicas: 3, AvailableReplicas: 3, ObservedGeneration: 1},
	}
	mo, err := c.ToModel(rs)
	if err != nil {
		b.Fatal(err)
	}
	if err := c.FromModelShared(mo, &appsv1.ReplicaSet{}); err != nil {
		b.Fatal(err)
	}
	data := []byte(`{"spec":{"replicas":5}}`)
	for _, v := range []struct {
		name        string
		typed, scan bool
	}{{"maps", false, false}, {"kept", true, false}, {"scanned", false, true}, {"kept+scanned", true, true}} {
		b.Run(v.name, func(b *testing.B) {
			typed, scan := SetTypedMerge(v.typed), SetScanMergePatch(v.scan)
			defer func() { SetTypedMerge(typed); SetScanMergePatch(scan) }()
			b.ReportAllocs()
			for b.Loop() {
				if !c.MergePatch(mo, data, &appsv1.ReplicaSet{}) {
					b.Fatal("declined")
				}
			}
		})
	}
}
