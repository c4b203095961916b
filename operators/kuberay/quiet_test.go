package kuberay_test

import (
	"testing"

	crt "github.com/converge-sim/converge/controllerruntime"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/operators/kuberay"
	"github.com/converge-sim/converge/operators/suite"
	"github.com/converge-sim/converge/properties"
)

// quietIgnores are the ignore paths a campaign of the goal-free oracle
// needs on KubeRay today (operators/QUIET.md), each with the false
// finding it silences.
var quietIgnores = []suite.Ignored{
	{Path: "status.lastUpdateTime", Why: "seed 1: the time of the last status write, by design later after a history"},
	{Path: "status.stateTransitionTimes", Why: "seed 1: the time the cluster became ready, by design later after a history"},
}

// quietRestrictions are the input restrictions it needs today, besides
// restriction 1, suite.Decodable: drawn quantities such as
// "149400e60.7147" pass the CRD's quantity pattern but not the Go type's
// resource.ParseQuantity, and the operator cannot decode its RayCluster
// (seed 1, first run: panic "cannot decode RayCluster … quantities must
// match the regular expression").
func quietRestrictions(t *testing.T, w kuberay.World) []suite.Restriction {
	t.Helper()
	initial, err := w.Conv.ToModel(kuberay.New("default", "ray", 2))
	if err != nil {
		t.Fatal(err)
	}
	return []suite.Restriction{
		{Path: "headGroupSpec.headService", Why: "seed 3: a drawn head Service template (ports without names) the API server rejects: the reference run's Service create is refused forever"},
		{Path: "headGroupSpec.serviceType", Why: "10-min run, seed 3: a drawn service type (\"˭aj\") the CRD admits (any string) and the Service API does not: the head Service create is refused forever"},
		{Path: "headGroupSpec.template", Value: suite.Sub(initial.Spec, "headGroupSpec.template"), Why: "pod templates drawn from the CRD (container names such as \"<̀¾s./admxp\") make pods the API server rejects"},
		{Path: "workerGroupSpecs[*].template", Value: suite.Sub(initial.Spec, "workerGroupSpecs[0].template"), Why: "as the head's"},
		// KubeRay v1.5.0 never updates a running pod when the spec that
		// made it changes (it has no upgrade strategy for a RayCluster):
		// seed 5, gcsFaultToleranceOptions set after the head pod exists,
		// 37 differences in the head pod. Every field that reaches a pod
		// is pinned to the initial spec's (absent, or an empty map).
		{Path: "gcsFaultToleranceOptions", Why: "seed 5: pods are not updated, by design"},
		{Path: "enableInTreeAutoscaling", Why: "pods are not updated, by design"},
		{Path: "autoscalerOptions", Why: "pods are not updated, by design"},
		{Path: "rayVersion", Why: "pods are not updated, by design"},
		{Path: "headGroupSpec.rayStartParams", Why: "pods are not updated, by design"},
		{Path: "headGroupSpec.rayStartParams{}", Value: true, Why: "(the required map, empty)"},
		{Path: "headGroupSpec.resources", Why: "pods are not updated, by design"},
		{Path: "headGroupSpec.labels", Why: "pods are not updated, by design"},
		{Path: "workerGroupSpecs[*].rayStartParams", Value: model.NewFields(model.Values{"{}": true}), Why: "pods are not updated, by design"},
		{Path: "workerGroupSpecs[*].resources", Why: "pods are not updated, by design"},
		{Path: "workerGroupSpecs[*].labels", Why: "pods are not updated, by design"},
		{Path: "workerGroupSpecs[*].numOfHosts", Why: "pods are not updated, by design"},
	}
}

func quietScenario(t *testing.T) properties.Scenario {
	t.Helper()
	w, err := world()
	if err != nil {
		t.Fatal(err)
	}
	in, err := crt.Inputs(w.CRDs, w.Conv, kuberay.New("default", "ray", 2), crt.InputsOptions{Ignore: suite.Paths(quietIgnores)})
	if err != nil {
		t.Fatal(err)
	}
	in.Spec = suite.Restrict(suite.Decodable(in.Spec, w.Conv, "RayCluster"), quietRestrictions(t, w))
	return kuberay.InputsScenario("raycluster-inputs", w, in)
}

// TestQuiet runs the input campaign of issue 35's measure of quietness
// (-operators.quiet=10m) and logs every finding.
func TestQuiet(t *testing.T) {
	suite.Quiet(t, quietScenario(t), suite.QuietBudget(t), 0)
}
