package kuberay_test

import (
	"testing"

	crt "github.com/converge-sim/converge/controllerruntime"
	"github.com/converge-sim/converge/controllerruntime/crd"
	"github.com/converge-sim/converge/operators/kuberay"
	"github.com/converge-sim/converge/operators/suite"
	"github.com/converge-sim/converge/properties"
	corev1 "k8s.io/api/core/v1"
)

// quietGen is the input space a campaign of the goal-free oracle needs on
// KubeRay (operators/QUIET.md, "After"): each declaration with the false
// finding it silences. No ignore is needed: the timestamps the "before"
// campaign ignored compare as set (docs/design.md, "How states compare").
func quietGen() crd.GenOptions {
	initial := kuberay.New("default", "ray", 2)
	return crd.GenOptions{
		// KubeRay v1.5.0 never updates a running pod when the spec that
		// made it changes (no upgrade strategy for a RayCluster): every
		// field that reaches a pod, set after the pod exists, is a
		// difference by design (before: seeds 5 and 6,
		// gcsFaultToleranceOptions, 37 differences in the head pod).
		// Only the worker groups' replicas are drawn (and so how many
		// groups there are); the rest is left unset or at its minimum.
		Fields: []string{"spec.workerGroupSpecs[*].replicas"},
		// The range keeps the runs small: the CRD bounds replicas by
		// int32 only, and the operator built pods in one reconcile for
		// over 7 minutes (after, 10-min run, seed 46). (A range alone
		// does not narrow the fields drawn: Fields does.)
		Ranges: map[string]crd.Range{"spec.workerGroupSpecs[*].replicas": {Min: 0, Max: 3}},
		// Pod templates are required; at their minimum (no container)
		// every pod create is rejected (before: drawn container names
		// such as "<̀¾s./admxp").
		Pin: map[string]any{
			"spec.headGroupSpec.template":       template(initial.Spec.HeadGroupSpec.Template),
			"spec.workerGroupSpecs[*].template": template(initial.Spec.WorkerGroupSpecs[0].Template),
		},
	}
}

// template is t as a pin value: only the fields the example sets.
func template(t corev1.PodTemplateSpec) map[string]any {
	c := t.Spec.Containers[0]
	return map[string]any{"spec": map[string]any{"containers": []any{map[string]any{"name": c.Name, "image": c.Image}}}}
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
