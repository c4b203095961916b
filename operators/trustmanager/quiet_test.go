package trustmanager_test

import (
	"testing"
	"time"

	crt "github.com/converge-sim/converge/controllerruntime"
	"github.com/converge-sim/converge/controllerruntime/crd"
	"github.com/converge-sim/converge/operators/suite"
	"github.com/converge-sim/converge/operators/trustmanager"
	"github.com/converge-sim/converge/properties"
)

// quietScenario is the campaign's scenario: Bundle specs drawn by
// crt.Inputs from trust-manager's own CRD, with no ignore and four declared
// fields (operators/QUIET.md, "After"). Before, crt.Inputs could not
// draw a Bundle (the CRD's minimal spec breaks its CEL rules) and the user
// wrote the generator by hand: it is gone.
func quietScenario(t *testing.T) properties.Scenario {
	t.Helper()
	w, err := world()
	if err != nil {
		t.Fatal(err)
	}
	in, err := crt.Inputs(w.CRDs, w.Conv, trustmanager.New("roots", "roots-ca"), crt.InputsOptions{Gen: crd.GenOptions{
		// After, seeds 17, 27, 33: a Secret source with neither key nor
		// includeAllKeys ({secret: {selector: {}}}), which the CRD admits
		// and trust-manager's validating webhook refuses ("source secret
		// key must be defined when includeAllKeys is false"); the model's
		// API server calls no webhooks, so the Bundle landed and its
		// ClusterBundle was rejected forever. The declared space cannot
		// say "key or includeAllKeys", so sources are drawn inline only.
		// After, seeds 47, 92, …: a JKS target key equal to the Secret
		// target's ("a"), which the webhook refuses ("key must be unique
		// across all target output keys") and the ClusterBundle's CRD
		// rejects as a duplicate: the additional formats are not drawn.
		Fields: []string{"spec.sources[*].inLine", "spec.target.configMap", "spec.target.secret", "spec.target.namespaceSelector"},
	}})
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
