package controllerruntime

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/converge-sim/converge/controllerruntime/convert"
	"github.com/converge-sim/converge/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// TestInvariantVerdictsFollowTheKindsRead: an invariant that reads
// ConfigMaps, and Pods only while a "gate" ConfigMap exists, is checked
// after every one of 400 random writes of Pods, ConfigMaps and Secrets,
// memoized by the revisions of the kinds it read and afresh; the verdicts
// agree at every step, and writes of kinds the last check did not read
// (Secrets always, Pods while there is no gate) do not run it again.
func TestInvariantVerdictsFollowTheKindsRead(t *testing.T) {
	conv, err := convert.New(clientgoscheme.Scheme, convert.Options{})
	require.NoError(t, err)
	c := model.NewCluster(model.Config{})
	m, err := NewManager(c, conv, ManagerOptions{})
	require.NoError(t, err)
	calls := 0
	check := func(ctx context.Context, r client.Reader) error {
		calls++
		var cms corev1.ConfigMapList
		if err := r.List(ctx, &cms); err != nil {
			return err
		}
		gate := false
		for _, cm := range cms.Items {
			gate = gate || cm.Name == "gate"
		}
		if !gate {
			return nil
		}
		var pods corev1.PodList
		if err := r.List(ctx, &pods); err != nil {
			return err
		}
		if len(pods.Items) > 2 {
			return fmt.Errorf("%d pods with the gate up", len(pods.Items))
		}
		return nil
	}
	memoized := invariant(conv, "gated pods", check, true)
	fresh := invariant(conv, "gated pods", check, false)

	r := rand.New(rand.NewPCG(1, 2))
	kinds := []string{"Pod", "ConfigMap", "Secret"}
	names := []string{"gate", "a", "b", "c", "d"}
	skipped, failures := 0, 0
	for step := range 400 {
		kind, name := kinds[r.IntN(len(kinds))], names[r.IntN(len(names))]
		ref := model.Ref{Kind: kind, Namespace: "default", Name: name}
		stored := c.State().Get(kind, "default", name)
		switch {
		case stored != nil && r.IntN(3) == 0:
			require.NoError(t, c.Server().Delete("test", ref, model.DeleteOptions{}))
		case stored != nil:
			next := *stored
			next.Labels = model.NewLabels(map[string]string{"step": fmt.Sprint(step)})
			require.NoError(t, c.Server().Update("test", &next))
		default:
			meta := metav1.ObjectMeta{Namespace: "default", Name: name, Labels: map[string]string{"step": fmt.Sprint(step)}}
			var obj client.Object
			switch kind {
			case "Pod":
				obj = &corev1.Pod{ObjectMeta: meta, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "app"}}}}
			case "ConfigMap":
				obj = &corev1.ConfigMap{ObjectMeta: meta}
			default:
				obj = &corev1.Secret{ObjectMeta: meta}
			}
			require.NoError(t, m.Apply(obj))
		}
		before := calls
		got := memoized.Check(c.State())
		if calls == before {
			skipped++
		}
		want := fresh.Check(c.State())
		require.Equal(t, want, got, "step %d", step)
		if want != nil {
			failures++
		}
	}
	assert.Positive(t, failures, "the gate fails some states")
	assert.Greater(t, skipped, 150, "writes of kinds not read keep the verdict")
}
