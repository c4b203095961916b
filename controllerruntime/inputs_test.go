package controllerruntime_test

import (
	"testing"

	crt "github.com/converge-sim/converge/controllerruntime"
	"github.com/converge-sim/converge/controllerruntime/crd"
	"github.com/converge-sim/converge/controllerruntime/examples/kvstore"
	storev1alpha1 "github.com/converge-sim/converge/controllerruntime/examples/kvstore/api/v1alpha1"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"pgregory.net/rapid"
)

// Inputs finds the target's CRD version through the converter and draws
// whole specs from its schema; bad arguments are errors naming them.
func TestInputsForACustomResource(t *testing.T) {
	w, err := kvstore.NewWorld()
	require.NoError(t, err)
	in, err := crt.Inputs(w.CRDs, w.Conv, kvstore.New("default", "store"), crt.InputsOptions{Max: 2, Ignore: []properties.Ignore{{Path: "status.readyReplicas"}}})
	require.NoError(t, err)
	assert.Equal(t, model.Ref{Kind: "KVStore", Namespace: "default", Name: "store"}, in.Target)
	assert.Equal(t, 2, in.Max)
	assert.Equal(t, []properties.Ignore{{Path: "status.readyReplicas"}}, in.Ignore)
	require.NotNil(t, in.Semantics.List, "the oracle compares as Kubernetes merges")
	assert.Equal(t, []string{"name"}, in.Semantics.List("StatefulSet", "spec.template.spec.containers").Keys)
	rapid.Check(t, func(rt *rapid.T) {
		spec := in.Spec.Draw(rt, "spec")
		assert.Contains(rt, []any{"kv:1.0", "kv:1.1"}, spec.Value("image"))
		n := spec.Int("replicas")
		assert.True(rt, n >= 0 && n <= 3, "replicas %d", n)
	})

	for _, tc := range []struct {
		name   string
		crds   *crd.Set
		target *storev1alpha1.KVStore
		want   string
	}{
		{"no crds", nil, kvstore.New("default", "store"), "need the CRDs, the converter and a target object"},
		{"no name", w.CRDs, kvstore.New("default", ""), "the target object has no name"},
		{"crd not loaded", crd.NewSet(), kvstore.New("default", "store"), "no CRD serves store.example.converge.dev/v1alpha1, Kind=KVStore"},
	} {
		_, err := crt.Inputs(tc.crds, w.Conv, tc.target, crt.InputsOptions{})
		assert.ErrorContains(t, err, tc.want, tc.name)
	}
	_, err = crt.Inputs(w.CRDs, w.Conv, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web"}}, crt.InputsOptions{})
	assert.ErrorContains(t, err, "no CRD serves apps/v1, Kind=Deployment")
}
