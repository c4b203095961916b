package agentsandbox_test

import (
	"testing"
	"time"

	crt "github.com/converge-sim/converge/controllerruntime"
	"github.com/converge-sim/converge/controllerruntime/crd"
	"github.com/converge-sim/converge/operators/agentsandbox"
	"github.com/converge-sim/converge/operators/suite"
	"github.com/converge-sim/converge/properties"
)

// quietGen is the input space of the campaign (operators/QUIET.md,
// "After: agent-sandbox").
func quietGen() crd.GenOptions {
	return crd.GenOptions{
		Target: agentsandbox.New("default", "coder", true),
		Fields: []string{"spec.operatingMode", "spec.shutdownTime", "spec.podTemplate.metadata"},
	}
}

var quietIgnores = []properties.Ignore{{Kind: "Sandbox", Path: "status.conditions[type=Suspended]"}}

func quietScenario(t *testing.T) properties.Scenario {
	t.Helper()
	w, err := world()
	if err != nil {
		t.Fatal(err)
	}
	in, err := crt.Inputs(w.CRDs, w.Conv, agentsandbox.New("default", "coder", true), crt.InputsOptions{Gen: quietGen()})
	if err != nil {
		t.Fatal(err)
	}
	in.Ignore = quietIgnores
	return agentsandbox.InputsScenario("sandbox-inputs", w, in)
}

// TestQuiet runs the input campaign of issue 35's measure of quietness
// (-operators.quiet=10m) and logs every finding.
func TestQuiet(t *testing.T) {
	suite.Quiet(t, quietScenario(t), suite.QuietBudget(t), 0)
}

// TestQuietSmoke: the first runs of the campaign (seeds 1 to 5) run and
// find nothing.
func TestQuietSmoke(t *testing.T) {
	c := suite.Quiet(t, quietScenario(t), time.Hour, 5)
	if c.Runs != 5 || len(c.Findings) != 0 {
		t.Fatalf("%d runs, %d findings: want 5 runs and none", c.Runs, len(c.Findings))
	}
}
