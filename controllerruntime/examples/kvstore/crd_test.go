package kvstore_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/converge-sim/converge/controllerruntime/crd"
	storev1alpha1 "github.com/converge-sim/converge/controllerruntime/examples/kvstore/api/v1alpha1"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// The hand-written CRD and the Go types agree: every spec drawn from the
// CRD's schema, as JSON, decodes into the typed KVStoreSpec with unknown
// fields refused, so no field of the schema is unknown to the types and
// none is renamed.
func TestTheCRDMatchesTheTypes(t *testing.T) {
	w := world(t)
	v, ok := w.CRDs.Version(storev1alpha1.GroupVersion.WithKind("KVStore"))
	require.True(t, ok)
	specs, err := v.Specs(crd.GenOptions{})
	require.NoError(t, err)
	rapid.Check(t, func(rt *rapid.T) {
		raw, err := json.Marshal(specs.Draw(rt, "spec"))
		require.NoError(rt, err)
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		var typed storev1alpha1.KVStoreSpec
		require.NoError(rt, dec.Decode(&typed), "%s", raw)
	})
}
