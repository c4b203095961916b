package kvstore_test

import (
	"testing"

	storev1alpha1 "github.com/converge-sim/converge/controllerruntime/examples/kvstore/api/v1alpha1"
	"github.com/converge-sim/converge/model"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// The hand-written CRD and the Go types agree: every spec drawn from the
// CRD's schema decodes into the typed KVStore and encodes back unchanged, so
// no field of the schema is unknown to the types, none is renamed.
func TestTheCRDMatchesTheTypes(t *testing.T) {
	w := world(t)
	rapid.Check(t, func(rt *rapid.T) {
		spec := w.Inputs.Spec.Draw(rt, "spec")
		var typed storev1alpha1.KVStore
		require.NoError(rt, w.Conv.FromModel(&model.Object{Kind: "KVStore", Namespace: "default", Name: "x", Spec: spec}, &typed))
		back, err := w.Conv.ToModel(&typed)
		require.NoError(rt, err)
		require.True(rt, spec.Equal(back.Spec), "%s became %s", spec, back.Spec)
	})
}
