package agentsandbox_test

import (
	"strings"
	"testing"
	"time"

	crt "github.com/converge-sim/converge/controllerruntime"
	"github.com/converge-sim/converge/controllerruntime/crd"
	"github.com/converge-sim/converge/operators/agentsandbox"
	"github.com/converge-sim/converge/operators/suite"
	"github.com/converge-sim/converge/properties"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// quietGen is the input space of the campaign (operators/QUIET.md,
// "After: agent-sandbox"). The target is the harness's own Sandbox, so
// every field not named keeps its value: drawn from the whole CRD, the
// pod template had no container or a container with no image (pod
// creates rejected forever, seeds 180, 181, 268, 283 of the first
// campaign), and spec.service was left unset after being true, which
// keeps the Service by design ("When unset, the controller preserves
// existing Services", seed 8). The three fields named are what a user of
// a Sandbox changes: suspend and resume, the shutdown time, and the pod's
// labels and annotations.
func quietGen() crd.GenOptions {
	return crd.GenOptions{
		Target: agentsandbox.New("default", "coder", true),
		Fields: []string{"spec.operatingMode", "spec.shutdownTime", "spec.podTemplate.metadata"},
	}
}

// quietIgnores are the two differences agent-sandbox makes by design.
var quietIgnores = []properties.Ignore{
	// A Sandbox that ran keeps its Suspended condition (False,
	// NotSuspended) when it expires, and one created expired never had
	// it: expiry keeps the conditions on purpose, and the API's doc says a
	// stale Suspended condition may linger (seed 1 of the first campaign).
	{Kind: "Sandbox", Path: "status.conditions[type=Suspended]"},
	// status.selector, a constant of the Sandbox's name, is set once a pod
	// exists and kept when the Sandbox is suspended; one created suspended
	// never has it. Nothing reads it (the Sandbox has no scale
	// subresource). Seed 13 of the second campaign, 42 of its findings.
	{Kind: "Sandbox", Path: "status.selector"},
}

func quietScenario(t *testing.T) properties.Scenario {
	t.Helper()
	w, err := world()
	if err != nil {
		t.Fatal(err)
	}
	in, err := crt.Inputs(w.CRDs, w.Conv, agentsandbox.New("default", "coder", true), crt.InputsOptions{Gen: quietGen(), Ignore: quietIgnores})
	if err != nil {
		t.Fatal(err)
	}
	return agentsandbox.InputsScenario("sandbox-inputs", w, in)
}

// TestQuiet runs the input campaign of issue 35's measure of quietness
// (-operators.quiet=10m) and logs every finding.
func TestQuiet(t *testing.T) {
	suite.Quiet(t, quietScenario(t), suite.QuietBudget(t), 0)
}

// TestQuietPodMetadata runs the campaign of a narrower space
// (-operators.quiet=2m): one declaration, the pod template's metadata
// drawn with the Sandbox as target, and no ignore, since with neither
// expiry nor suspension drawn the two differences by design cannot arise
// (operators/QUIET.md, "agent-sandbox").
func TestQuietPodMetadata(t *testing.T) {
	budget := suite.QuietBudget(t)
	w, err := world()
	require.NoError(t, err)
	gen := crd.GenOptions{Target: agentsandbox.New("default", "coder", true), Fields: []string{"spec.podTemplate.metadata"}}
	in, err := crt.Inputs(w.CRDs, w.Conv, agentsandbox.New("default", "coder", true), crt.InputsOptions{Gen: gen})
	require.NoError(t, err)
	suite.Quiet(t, agentsandbox.InputsScenario("sandbox-podmetadata", w, in), budget, 0)
}

// TestQuietSmoke: the first runs of the campaign (seeds 1 to 5) run and
// find nothing false: a finding there is the real one
// (TestQuietSmokeFindsTheEmptyLabelValue), which seed 3 finds since a
// run applies every transition it was given (docs/design.md,
// "State-transition inputs").
func TestQuietSmoke(t *testing.T) {
	c := suite.Quiet(t, quietScenario(t), time.Hour, 5)
	require.Equal(t, 5, c.Runs)
	for _, f := range c.Findings {
		assertEmptyLabelValue(t, f.Verdict, f.Details)
	}
}

// TestQuietSmokeFindsTheEmptyLabelValue: the campaign's first finding
// (seed 3; seed 13 before a run applied every transition it was given)
// is the real one of agent-sandbox v1.0.1: a label or an annotation of
// empty value added to a running Sandbox's pod template never reaches its
// pod (updatePodMetadata compares pod.Labels[k] != v, and a missing key
// reads as ""), while a fresh Sandbox's pod has it.
func TestQuietSmokeFindsTheEmptyLabelValue(t *testing.T) {
	c := suite.QuietWith(t, quietScenario(t), suite.QuietOptions{Budget: time.Hour, MaxRuns: 20, MaxFindings: 1, ShrinkTime: 5 * time.Second})
	require.Len(t, c.Findings, 1, "%d runs", c.Runs)
	f := c.Findings[0]
	assertEmptyLabelValue(t, f.Verdict, f.Details)
}

// assertEmptyLabelValue asserts that a finding is the empty label or
// annotation value that never reaches the pod.
func assertEmptyLabelValue(t *testing.T, verdict properties.Verdict, details []string) {
	t.Helper()
	assert.Equal(t, properties.HistoryDependent, verdict)
	require.NotEmpty(t, details)
	for _, d := range details {
		assert.True(t, strings.HasPrefix(d, "Pod default/coder metadata.labels.") || strings.HasPrefix(d, "Pod default/coder metadata.annotations."), d)
		assert.True(t, strings.HasSuffix(d, `<none> after the transitions, "" in a fresh cluster`), d)
	}
}
