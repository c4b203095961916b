package admit_test

import (
	"testing"

	"github.com/converge-sim/converge/controllerruntime/admit"
	"github.com/converge-sim/converge/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestServiceTargetPortsDefaultAsTheAPIServer: an unset, zero or empty
// targetPort becomes the port; a set one stays; other kinds and a status
// write are untouched.
func TestServiceTargetPortsDefaultAsTheAPIServer(t *testing.T) {
	svc := &model.Object{Kind: "Service", Spec: model.NewFields(model.Values{
		"ports[0].port": int64(80), "ports[0].targetPort": int64(0),
		"ports[1].port": int64(81),
		"ports[2].port": int64(82), "ports[2].targetPort": "",
		"ports[3].port": int64(83), "ports[3].targetPort": "http",
	})}
	require.NoError(t, admit.Defaults("test", model.VerbCreate, nil, svc))
	for path, want := range map[string]any{"ports[0].targetPort": int64(80), "ports[1].targetPort": int64(81), "ports[2].targetPort": int64(82), "ports[3].targetPort": "http"} {
		assert.Equal(t, want, svc.Spec.Value(path), path)
	}
	other := &model.Object{Kind: "ConfigMap", Spec: model.NewFields(model.Values{"ports[0].port": int64(80)})}
	require.NoError(t, admit.Defaults("test", model.VerbCreate, nil, other))
	assert.False(t, other.Spec.Has("ports[0].targetPort"), "a ConfigMap is not defaulted")
}
