package model

import (
	"testing"
)

// BenchmarkGetUpdate is one API server Get and Update (with its
// resourceVersion precondition) of a Pod, the figure BENCHMARKS.md compares
// with controller-runtime's fake client.
func BenchmarkGetUpdate(b *testing.B) {
	s, _ := newTestServer(1000)
	p := &Object{
		Kind: "Pod", Namespace: "default", Name: "web-1",
		Labels:          map[string]string{"app": "web", "pod-template-hash": "abc12"},
		OwnerReferences: []OwnerReference{{Kind: "ReplicaSet", Name: "web", UID: "uid-1", Controller: true}},
		Spec:            Fields{"image": "app:v1", "nodeName": "node-1"},
	}
	if err := s.Create("bench", p); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	i := int64(0)
	for b.Loop() {
		got, err := s.Get("Pod", "default", "web-1")
		if err != nil {
			b.Fatal(err)
		}
		i++
		got.Spec["generation"] = i
		if err := s.Update("bench", got); err != nil {
			b.Fatal(err)
		}
	}
}
