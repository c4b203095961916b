package controllerruntime_test

import (
	"fmt"
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

// InputsOptions.Refused matches the operator's status conditions: a
// condition of the type and status (and reason, when given) refuses the
// spec, unless it speaks of an older generation.
func TestInputsRefusedMatchesStatusConditions(t *testing.T) {
	w, err := kvstore.NewWorld()
	require.NoError(t, err)
	in, err := crt.Inputs(w.CRDs, w.Conv, kvstore.New("default", "store"), crt.InputsOptions{Refused: []crt.RefusedCondition{
		{Type: "Resizing", Status: metav1.ConditionFalse, Reason: "ShrinkNotSupported"},
		{Type: "ScaleRefused", Status: metav1.ConditionTrue},
	}})
	require.NoError(t, err)
	require.NotNil(t, in.Refused)
	obj := func(gen int64, conds ...model.Values) *model.Object {
		v := model.Values{}
		for i, c := range conds {
			for k, x := range c {
				v[fmt.Sprintf("conditions[%d].%s", i, k)] = x
			}
		}
		return &model.Object{Kind: "KVStore", Generation: gen, Status: model.NewFields(v)}
	}
	ready := model.Values{"type": "Ready", "status": "True", "reason": "Up"}
	for _, tc := range []struct {
		name   string
		o      *model.Object
		reason string
	}{
		{"no conditions", obj(1), ""},
		{"other conditions", obj(1, ready), ""},
		{"type, status and reason", obj(2, ready, model.Values{"type": "Resizing", "status": "False", "reason": "ShrinkNotSupported", "message": "no shrink", "observedGeneration": int64(2)}),
			"Resizing=False (ShrinkNotSupported: no shrink)"},
		{"another reason", obj(2, model.Values{"type": "Resizing", "status": "False", "reason": "Busy"}), ""},
		{"another status", obj(2, model.Values{"type": "Resizing", "status": "True", "reason": "ShrinkNotSupported"}), ""},
		{"an older generation", obj(3, model.Values{"type": "Resizing", "status": "False", "reason": "ShrinkNotSupported", "observedGeneration": int64(2)}), ""},
		{"any reason", obj(1, model.Values{"type": "ScaleRefused", "status": "True", "reason": "ScaleDown", "message": "m"}), "ScaleRefused=True (ScaleDown: m)"},
	} {
		reason, refused := in.Refused(tc.o)
		assert.Equal(t, tc.reason != "", refused, tc.name)
		assert.Equal(t, tc.reason, reason, tc.name)
	}

	plain, err := crt.Inputs(w.CRDs, w.Conv, kvstore.New("default", "store"), crt.InputsOptions{})
	require.NoError(t, err)
	assert.Nil(t, plain.Refused, "no conditions declared: nothing is refused")
	_, err = crt.Inputs(w.CRDs, w.Conv, kvstore.New("default", "store"), crt.InputsOptions{Refused: []crt.RefusedCondition{{Type: "Resizing"}}})
	assert.ErrorContains(t, err, `a refused condition needs a type and a status, got type "Resizing" status ""`)
}
