package properties_test

import (
	"context"
	"flag"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/properties"
	"github.com/converge-sim/converge/scenarios"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCheckShrinkingDoesNotDependOnTheClock runs properties.Check on a
// failing scenario in go test subprocesses, from one seed. With rapid's
// shrink time limit at one nanosecond, the limit a loaded machine reaches
// first, Check still reports the counterexample an idle machine shrinks to:
// it lifts the limit as Search does. A limit set on the command line is
// the user's, and Check keeps it.
func TestCheckShrinkingDoesNotDependOnTheClock(t *testing.T) {
	skipUnderRace(t)
	if mode := os.Getenv("CONVERGE_CHECK_SHRINK"); mode != "" {
		if mode == "hurried" {
			require.NoError(t, flag.Set("rapid.shrinktime", "1ns"))
		}
		properties.Check(t, scenarios.ReplicaSetEdge(), faults.Mix{faults.KindDrop, faults.KindRestart})
		return
	}
	run := func(mode string, args ...string) string {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // a guard only
		defer cancel()
		args = append([]string{"-test.run=^TestCheckShrinkingDoesNotDependOnTheClock$", "-rapid.seed=5", "-rapid.checks=100", "-rapid.nofailfile"}, args...)
		cmd := exec.CommandContext(ctx, os.Args[0], args...)
		cmd.Env = append(os.Environ(), "CONVERGE_CHECK_SHRINK="+mode)
		out, err := cmd.CombinedOutput()
		require.Error(t, err, "the property fails:\n%s", out)
		return string(out)
	}
	relaxed := report(t, run("relaxed"))
	assert.Contains(t, relaxed, "fault schedule (1 fault)")
	assert.Equal(t, relaxed, report(t, run("hurried")), "the same seed shrinks to the same counterexample")
	assert.NotEqual(t, relaxed, report(t, run("relaxed", "-rapid.shrinktime=1ns")), "a limit on the command line is kept: the run is not shrunk")
}

// report returns Check's report of the minimal failing run from a go test
// output: the violation, its diagnosis, its fault schedule and its replay
// line (the trace and the timeline page's path, logged before it, differ
// between processes).
func report(t *testing.T, out string) string {
	t.Helper()
	_, rest, ok := strings.Cut(out, " runs: scenario ")
	require.True(t, ok, "a Check failure:\n%s", out)
	rep, _, ok := strings.Cut(rest, "\nFAIL")
	require.True(t, ok, "a Check failure:\n%s", out)
	return rep
}
