// Package peer measures converge's API server beside controller-runtime's
// fake client, in one benchmark run, on the same work: one Get and one
// Update, with its resourceVersion precondition, of a Pod. It is a module of
// its own so that the core module does not depend on controller-runtime.
package peer

import (
	"context"
	"testing"
	"time"

	"github.com/converge-sim/converge/internal/cputime"
	"github.com/converge-sim/converge/model"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	clienttesting "k8s.io/client-go/testing"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
)

func BenchmarkGetUpdate(b *testing.B) {
	b.Run("converge", func(b *testing.B) {
		var clock model.Clock
		s := model.NewServer(clock.Now, 1000)
		pod := &model.Object{
			Kind: "Pod", Namespace: "default", Name: "web-1",
			Labels:          model.NewLabels(map[string]string{"app": "web", "pod-template-hash": "abc12"}),
			OwnerReferences: []model.OwnerReference{{Kind: "ReplicaSet", Name: "web", UID: "uid-1", Controller: true}},
			Spec:            model.NewFields(model.Values{"image": "app:v1", "nodeName": "node-1"}),
		}
		if err := s.Create("bench", pod); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		i := int64(0)
		cpu := cputime.Process()
		for b.Loop() {
			got, err := s.Get("Pod", "default", "web-1")
			if err != nil {
				b.Fatal(err)
			}
			i++
			got.Spec.Set("generation", i)
			if err := s.Update("bench", got); err != nil {
				b.Fatal(err)
			}
		}
		reportCPU(b, cputime.Process()-cpu)
	})
	b.Run("controller-runtime-fake-plain-tracker", func(b *testing.B) {
		scheme := clientgoscheme.Scheme
		tracker := clienttesting.NewObjectTracker(scheme, serializer.NewCodecFactory(scheme).UniversalDecoder())
		benchFake(b, fake.NewClientBuilder().WithScheme(scheme).WithObjectTracker(tracker))
	})
	b.Run("controller-runtime-fake-default", func(b *testing.B) {
		benchFake(b, fake.NewClientBuilder())
	})
}

// benchFake runs Get and Update of a Pod through a fake client.
func benchFake(b *testing.B, builder *fake.ClientBuilder) {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: "default", Name: "web-1",
			Labels:          map[string]string{"app": "web", "pod-template-hash": "abc12"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web", UID: "uid-1", Controller: ptr(true)}},
		},
		Spec: corev1.PodSpec{NodeName: "node-1", Containers: []corev1.Container{{Name: "app", Image: "app:v1"}}},
	}
	c := builder.WithObjects(pod).Build()
	ctx := context.Background()
	key := types.NamespacedName{Namespace: "default", Name: "web-1"}
	b.ReportAllocs()
	i := int64(0)
	cpu := cputime.Process()
	for b.Loop() {
		var got corev1.Pod
		if err := c.Get(ctx, key, &got); err != nil {
			b.Fatal(err)
		}
		i++
		got.Spec.ActiveDeadlineSeconds = &i
		if err := c.Update(ctx, &got); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, cputime.Process()-cpu)
}

// reportCPU reports the loop's CPU time per op, when the platform gives it.
func reportCPU(b *testing.B, cpu time.Duration) {
	if cpu > 0 {
		b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}

func ptr[T any](v T) *T { return &v }
