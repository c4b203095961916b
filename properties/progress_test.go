package properties_test

import (
	"bytes"
	"flag"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/properties"
	"github.com/converge-sim/converge/scenarios"
)

// TestALongShrinkSaysHowItGoes: with SearchOptions.Progress a search
// writes a line after its 64th run and at every power of two after, with
// the runs so far and, once a failure is found, the size of the failing
// run being shrunk. The lines change nothing else: the same seed gives the
// same counterexample and report with them or without.
func TestALongShrinkSaysHowItGoes(t *testing.T) {
	opts := properties.WithoutPlan(properties.SearchOptions{Test: t, Checks: 1000, Seed: 1}) // rapid's shrink
	var lines bytes.Buffer
	withLines := opts
	withLines.Progress = &lines
	res, err := properties.Search(scenarios.ReplicaSetEdge(), faults.Mix{faults.KindDrop}, withLines)
	require.NoError(t, err)
	require.NotNil(t, res.Counterexample)
	quiet, err := properties.Search(scenarios.ReplicaSetEdge(), faults.Mix{faults.KindDrop}, opts)
	require.NoError(t, err)
	require.NotNil(t, quiet.Counterexample)
	assert.Equal(t, quiet.Counterexample.Report(), res.Counterexample.Report())
	assert.Equal(t, quiet.Counterexample.Trace.Hash(), res.Counterexample.Trace.Hash())

	got := strings.Split(strings.TrimSuffix(lines.String(), "\n"), "\n")
	require.GreaterOrEqual(t, len(got), 2, "lines:\n%s", lines.String())
	line := regexp.MustCompile(`^converge: replicaset-edge/drop: (\d+) runs \((\d+) made, (\d+) answered by the memo\), [0-9.]+[mµn]?s: shrinking the failure of run \d+ \(\w[\w-]*\): now \d+ faults?, \d+ choices, \d+ steps, virtual time \d+$`)
	for i, l := range got {
		m := line.FindStringSubmatch(l)
		require.NotNil(t, m, "line %d: %s", i, l)
		assert.Equal(t, []string{"64", "128", "256", "512", "1024"}[i], m[1], "line %d is after run 64·2^%d", i, i)
	}
	t.Logf("%s", lines.String())
}

// TestCheckSaysHowItGoes: Check hands its search the progress writer (by
// default stderr), so a search of more than 64 runs in a Go test writes
// its line; this one converges, and says so while it searches.
func TestCheckSaysHowItGoes(t *testing.T) {
	if n, _ := strconv.Atoi(flag.Lookup("rapid.checks").Value.String()); n < 64 {
		t.Skipf("-rapid.checks=%d: fewer runs than the first line", n)
	}
	var lines bytes.Buffer
	properties.CheckWith(t, scenarios.ReplicaSetLevel(), nil, properties.CheckOptions{Progress: &lines})
	assert.Regexp(t, `^converge: replicaset-level/[^:]*: 64 runs \(64 made, 0 answered by the memo\), [0-9.]+[mµn]?s: searching, no failure yet\n`, lines.String())
}
