package controllerruntime_test

import (
	"testing"

	crt "github.com/converge-sim/converge/controllerruntime"
	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// TestAnnotationEditsAndRivalsAreRealAnnotations: an edit or a rival on
// metadata.annotations.<name> sets and removes a real metav1 annotation,
// which a controller-runtime client reads among the object's annotations
// and not among its labels; the model's diff names it by that path, and
// the change bumps no generation.
func TestAnnotationEditsAndRivalsAreRealAnnotations(t *testing.T) {
	cl := model.NewCluster(model.Config{})
	m, err := crt.NewManager(cl, testConv, crt.ManagerOptions{})
	require.NoError(t, err)
	c := m.OutsideClient("user")
	require.NoError(t, c.Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "p",
		Labels: map[string]string{"app": "web"}, Annotations: map[string]string{"example.com/owner": "db"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "app:v1"}}}}))
	require.NoError(t, cl.AddController(model.Controller{Name: "idle", For: "Pod", NewReconciler: func(model.Client) model.Reconciler {
		return model.ReconcilerFunc(func(model.Request) (model.Result, error) { return model.Result{}, nil })
	}}))
	require.NoError(t, cl.Start())
	get := func() *corev1.Pod {
		p := &corev1.Pod{}
		require.NoError(t, c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "p"}, p))
		return p
	}
	gen := get().Generation

	target := faults.EditTarget{Resource: "Pod", Path: "metadata.annotations.example.com/owner", Values: []any{"web", nil}}
	require.NoError(t, faults.Edit{Target: target, Choice: 0}.Apply(cl))
	p := get()
	assert.Equal(t, map[string]string{"example.com/owner": "web"}, p.Annotations)
	assert.Equal(t, map[string]string{"app": "web"}, p.Labels)
	assert.Equal(t, gen, p.Generation, "an annotation is metadata: no generation bump")
	last := cl.Trace().Records[len(cl.Trace().Records)-1]
	assert.Contains(t, last.String(), `metadata.annotations.example.com/owner: "db"→"web"`)

	require.NoError(t, faults.Edit{Target: target, Choice: 1}.Apply(cl))
	assert.Empty(t, get().Annotations, "removed")

	require.NoError(t, faults.Rival{Target: target, Choice: 0, Persistent: true}.Apply(cl))
	for range 10 {
		for _, a := range cl.Enabled(nil) {
			if a.Kind == model.ActRival {
				cl.Do(a)
				break
			}
		}
	}
	assert.Equal(t, map[string]string{"example.com/owner": "web"}, get().Annotations, "the rival keeps it")
}
