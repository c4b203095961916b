package kuberay_test

import (
	"testing"

	crt "github.com/converge-sim/converge/controllerruntime"
	"github.com/converge-sim/converge/controllerruntime/crd"
	"github.com/converge-sim/converge/operators/kuberay"
	"github.com/converge-sim/converge/operators/suite"
	"github.com/converge-sim/converge/properties"
)

// quietGen is the input space a campaign of the goal-free oracle needs on
// KubeRay (operators/QUIET.md, "After"): one declaration, with the false
// findings it silences. No ignore is needed: the timestamps the "before"
// campaign ignored compare as set (docs/design.md, "How states compare").
//
// The target is the example's own RayCluster, so every field not named
// keeps its value (crd.GenOptions.Target): its pod templates (at their
// minimum, with no container, every pod create was rejected: before,
// drawn container names such as "<̀¾s./admxp"), and every field that
// reaches a pod, which KubeRay v1.5.0 never updates on a running pod (no
// upgrade strategy for a RayCluster: before, seeds 5 and 6,
// gcsFaultToleranceOptions, 37 differences in the head pod). Only the
// worker groups' replicas are drawn, and so how many groups there are; a
// group past the target's one copies it under a name of its own.
func quietGen() crd.GenOptions {
	return crd.GenOptions{
		Target: kuberay.New("default", "ray", 2),
		// The range keeps the runs small: the CRD bounds replicas by
		// int32 only, and the operator built pods in one reconcile for
		// over 7 minutes (after, 10-min run, seed 46).
		Ranges: map[string]crd.Range{"spec.workerGroupSpecs[*].replicas": {Min: 0, Max: 3}},
	}
}

func quietScenario(t *testing.T) properties.Scenario {
	t.Helper()
	w, err := world()
	if err != nil {
		t.Fatal(err)
	}
	in, err := crt.Inputs(w.CRDs, w.Conv, kuberay.New("default", "ray", 2), crt.InputsOptions{Gen: quietGen()})
	if err != nil {
		t.Fatal(err)
	}
	return kuberay.InputsScenario("raycluster-inputs", w, in)
}

// TestQuiet runs the input campaign of issue 35's measure of quietness
// (-operators.quiet=10m) and logs every finding.
func TestQuiet(t *testing.T) {
	suite.Quiet(t, quietScenario(t), suite.QuietBudget(t), 0)
}
