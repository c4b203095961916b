package controllerruntime

import (
	"context"
	"fmt"
	"testing"

	"github.com/converge-sim/converge/controllerruntime/convert"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// BenchmarkInvariant checks a typed invariant that lists 50 pods, as it
// runs after every step of a run: after a step that wrote nothing
// ("same-revision", the verdict is kept), after a write ("versions", each
// stored version decoded once), and with no memo at all ("decode", every
// pod converted on every check, as before the memos).
//
//	go test -run XXX -bench Invariant ./
func BenchmarkInvariant(b *testing.B) {
	conv, err := convert.New(clientgoscheme.Scheme, convert.Options{})
	if err != nil {
		b.Fatal(err)
	}
	c := model.NewCluster(model.Config{})
	m, err := NewManager(c, conv, ManagerOptions{})
	if err != nil {
		b.Fatal(err)
	}
	for i := range 50 {
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: fmt.Sprintf("web-%d", i), Labels: map[string]string{"app": "web"}},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "app:v1"}}},
		}
		if err := m.Apply(pod); err != nil {
			b.Fatal(err)
		}
	}
	state := c.State()
	check := func(ctx context.Context, r client.Reader) error {
		var pods corev1.PodList
		if err := r.List(ctx, &pods); err != nil {
			return err
		}
		if len(pods.Items) != 50 {
			return fmt.Errorf("%d pods", len(pods.Items))
		}
		return nil
	}
	for _, bench := range []struct {
		name string
		inv  properties.Invariant
	}{
		// The state has not changed since the last check: the verdict is kept.
		{"same-revision", Invariant(conv, "fifty pods", check)},
		// Every check sees a new revision: each pod version is decoded once.
		{"versions", invariant(conv, "fifty pods", check, false)},
		// No memo: every pod is decoded on every check.
		{"decode", func() properties.Invariant {
			e := newEnv(conv, nil)
			return properties.Invariant{Name: "fifty pods", Check: func(s model.State) error {
				return check(context.Background(), newStateReader(e, s))
			}}
		}()},
	} {
		b.Run(bench.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := bench.inv.Check(state); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
