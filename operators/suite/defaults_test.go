package suite_test

import (
	"testing"

	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/operators/suite"
)

// TestServiceTargetPortsDefaultsAsTheAPIServer: an unset, zero or empty
// targetPort becomes the port; a set one stays; other kinds are untouched.
func TestServiceTargetPortsDefaultsAsTheAPIServer(t *testing.T) {
	svc := &model.Object{Kind: "Service", Spec: model.NewFields(model.Values{
		"ports[0].port": int64(80), "ports[0].targetPort": int64(0),
		"ports[1].port": int64(81),
		"ports[2].port": int64(82), "ports[2].targetPort": "",
		"ports[3].port": int64(83), "ports[3].targetPort": "http",
	})}
	if err := suite.ServiceTargetPorts("test", model.VerbCreate, nil, svc); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]any{"ports[0].targetPort": int64(80), "ports[1].targetPort": int64(81), "ports[2].targetPort": int64(82), "ports[3].targetPort": "http"} {
		if got := svc.Spec.Value(path); got != want {
			t.Errorf("%s = %v, want %v", path, got, want)
		}
	}
	other := &model.Object{Kind: "ConfigMap", Spec: model.NewFields(model.Values{"ports[0].port": int64(80)})}
	if err := suite.ServiceTargetPorts("test", model.VerbCreate, nil, other); err != nil {
		t.Fatal(err)
	}
	if other.Spec.Has("ports[0].targetPort") {
		t.Error("a ConfigMap was defaulted")
	}
}
