package controllerruntime_test

import (
	"testing"

	crt "github.com/converge-sim/converge/controllerruntime"
	"github.com/converge-sim/converge/controllerruntime/crd"
	"github.com/converge-sim/converge/controllerruntime/examples/kvstore"
	"github.com/converge-sim/converge/properties"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestInputsDrawTheDeclaredSpace: the fields, pins and ranges of
// InputsOptions.Gen hold in every spec the inputs draw, the specs an
// exploration is made of included; the required image, not listed, is at
// its minimal value.
func TestInputsDrawTheDeclaredSpace(t *testing.T) {
	w, err := kvstore.NewWorld()
	require.NoError(t, err)
	in, err := crt.Inputs(w.CRDs, w.Conv, kvstore.New("default", "store"), crt.InputsOptions{Gen: crd.GenOptions{
		Fields: []string{"spec.replicas"},
		Pin:    map[string]any{"spec.logLevel": "debug"},
		Ranges: map[string]crd.Range{"spec.replicas": {Min: 1, Max: 2}},
	}})
	require.NoError(t, err)
	specs, err := properties.ExploreSpecs(in, 4)
	require.NoError(t, err)
	require.Len(t, specs, 2, "one spec per replica count: nothing else is drawn")
	replicas := map[int64]bool{}
	for _, s := range specs {
		assert.Equal(t, []string{"image", "logLevel", "replicas"}, s.Paths(), "%v", s)
		assert.Equal(t, "kv:1.0", s.Str("image"), "required, not listed: minimal")
		assert.Equal(t, "debug", s.Str("logLevel"), "pinned")
		replicas[s.Int("replicas")] = true
	}
	assert.Equal(t, map[int64]bool{1: true, 2: true}, replicas)

	_, err = crt.Inputs(w.CRDs, w.Conv, kvstore.New("default", "store"), crt.InputsOptions{Gen: crd.GenOptions{
		Fields: []string{"spec.size"},
		OneOf:  map[string][]any{"spec.logLevel": {"trace"}},
	}})
	require.Error(t, err)
	assert.ErrorContains(t, err, "store.example.converge.dev/v1alpha1, Kind=KVStore")
	assert.ErrorContains(t, err, `Fields "spec.size": spec has no field "size" in the CRD's schema`)
	assert.ErrorContains(t, err, `OneOf "spec.logLevel": the CRD's schema rejects the value "trace"`)
}
