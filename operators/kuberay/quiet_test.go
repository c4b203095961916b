package kuberay_test

import (
	"testing"

	crt "github.com/converge-sim/converge/controllerruntime"
	"github.com/converge-sim/converge/operators/kuberay"
	"github.com/converge-sim/converge/operators/suite"
	"github.com/converge-sim/converge/properties"
)

// quietIgnores are the ignore paths a campaign of the goal-free oracle
// needs on KubeRay today (operators/QUIET.md), each with the false
// finding it silences.
var quietIgnores = []suite.Ignored{}

// quietRestrictions are the input restrictions it needs today, besides
// restriction 1, suite.Decodable: drawn quantities such as
// "149400e60.7147" pass the CRD's quantity pattern but not the Go type's
// resource.ParseQuantity, and the operator cannot decode its RayCluster
// (seed 1, first run: panic "cannot decode RayCluster … quantities must
// match the regular expression").
var quietRestrictions = []suite.Restriction{}

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
	in.Spec = suite.Restrict(suite.Decodable(in.Spec, w.Conv, "RayCluster"), quietRestrictions)
	return kuberay.InputsScenario("raycluster-inputs", w, in)
}

// TestQuiet runs the input campaign of issue 35's measure of quietness
// (-operators.quiet=10m) and logs every finding.
func TestQuiet(t *testing.T) {
	suite.Quiet(t, quietScenario(t), suite.QuietBudget(t), 0)
}
