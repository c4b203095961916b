package trustmanager_test

import (
	"testing"
	"time"

	crt "github.com/converge-sim/converge/controllerruntime"
	"github.com/converge-sim/converge/operators/suite"
	"github.com/converge-sim/converge/operators/trustmanager"
	"github.com/converge-sim/converge/properties"
)

// quietScenario is the campaign's scenario: Bundle specs drawn by
// crt.Inputs from trust-manager's own CRD, with no ignore and no
// declaration (operators/QUIET.md, "After: trust-manager"). Before the
// model ran webhooks it needed four declared fields: drawn Secret sources
// with neither key nor includeAllKeys, and JKS target keys equal to the
// Secret target's, which trust-manager's validating webhook refuses,
// landed and made false findings. Setup registers that webhook now, as
// trust-manager's main does, and the model's API server refuses them.
func quietScenario(t *testing.T) properties.Scenario {
	t.Helper()
	w, err := world()
	if err != nil {
		t.Fatal(err)
	}
	in, err := crt.Inputs(w.CRDs, w.Conv, trustmanager.New("roots", "roots-ca"), crt.InputsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return trustmanager.InputsScenario("bundle-inputs", w, in)
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
