package fuzzrun_test

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/converge-sim/converge/controllers/replicaset"
	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/fuzzrun"
	"github.com/converge-sim/converge/fuzzrun/fuzzruntest"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// clockScenario is the ReplicaSet controller without resync, which a
// dropped notification leaves diverged, whose first reconcile fails with
// an error that quotes the wall clock: the time lands in the trace, so a
// replay repeats the trace only when the time it reads is the bubble's.
func clockScenario() properties.Scenario {
	ctrl := replicaset.Level(replicaset.LevelOptions{Name: "clock"})
	build := ctrl.NewReconciler
	ctrl.NewReconciler = func(c model.Client) model.Reconciler {
		inner, first := build(c), true
		return model.ReconcilerFunc(func(req model.Request) (model.Result, error) {
			if first {
				first = false
				return model.Result{}, fmt.Errorf("first reconcile at %s", time.Now().UTC().Format(time.RFC3339Nano))
			}
			return inner.Reconcile(req)
		})
	}
	sc := properties.Scenario{
		Name:   "clock",
		Doc:    "ReplicaSet controller without resync whose first reconcile fails quoting the clock",
		Build:  worldOf(ctrl),
		Expect: []properties.Expectation{{Faults: faults.Mix{faults.KindDrop}, Fails: properties.GoalUnmet}},
	}
	return sc
}

// TestFuzzrunClock is the test binary's fuzzrun over clockScenario; it
// skips without fuzzrun's flags after --, as under go test.
func TestFuzzrunClock(t *testing.T) { fuzzrun.MainTest(t, clockScenario()) }

// TestMainTestCampaignReplaysByteForByte runs a campaign through this
// test binary, with worker processes, and replays each finding twice:
// the same report, trace and timeline page, the time the controller read
// included, which only the bubbles make the same.
func TestMainTestCampaignReplaysByteForByte(t *testing.T) {
	bin := fuzzruntest.Self(t, "TestFuzzrunClock")
	dir := t.TempDir()
	res := fuzzruntest.Run(t, bin, "-runs", "4", "-workers", "2", "-out", dir, "-json")
	require.Equal(t, fuzzrun.ExitOK, res.Code, res)
	assert.Contains(t, res.Stdout, `"type":"summary"`)
	files := fuzzruntest.Findings(t, dir)
	require.NotEmpty(t, files, res)
	require.Equal(t, len(files), fuzzruntest.RequireReplaysByteForByte(t, bin, dir))

	first, _ := fuzzruntest.ReplayTwice(t, bin, files[0])
	// synctest's clock starts at midnight UTC, 2000-01-01, in every bubble.
	assert.Contains(t, first.Stdout, "first reconcile at 2000-01-01T00:00:00Z", first.Result)
	f, err := fuzzrun.ReadFinding(files[0])
	require.NoError(t, err)
	assert.Equal(t, bin.Path+" -test.run '^TestFuzzrunClock$' -- -replay "+files[0], f.Replay, "the replay line names the test binary")
	assert.Contains(t, f.ReplaySeed, bin.Path+" -test.run '^TestFuzzrunClock$' -- ", "so does the seed's, written by a worker")
}

// TestMainTestSeedReplayIsTheSameTwice: a seed replay (-scenario -seed)
// re-runs and re-shrinks the seed in bubbles, and prints the same twice.
func TestMainTestSeedReplayIsTheSameTwice(t *testing.T) {
	bin := fuzzruntest.Self(t, "TestFuzzrunClock")
	var outs []string
	for range 2 {
		res := fuzzruntest.Run(t, bin, "-scenario", "clock", "-faults", "drop", "-seed", "3")
		require.Equal(t, fuzzrun.ExitOK, res.Code, res)
		outs = append(outs, res.Stdout)
	}
	assert.Equal(t, outs[0], outs[1])
	assert.Contains(t, outs[0], "goal-unmet")
	assert.Contains(t, outs[0], "first reconcile at 2000-01-01T00:00:00Z")
}

// TestMainTestSkipsWithoutFlags: under a plain go test, with nothing
// after --, MainTest skips and says how to run it.
func TestMainTestSkipsWithoutFlags(t *testing.T) {
	bin := fuzzruntest.Self(t, "TestFuzzrunClock")
	res := fuzzruntest.Run(t, bin)
	require.Equal(t, 0, res.Code, res)
	assert.Contains(t, res.Stdout, "PASS")
	t.Run("verbose", func(t *testing.T) {
		out := runBinary(t, bin.Path, "-test.run", "^TestFuzzrunClock$", "-test.v")
		assert.Contains(t, out, "--- SKIP: TestFuzzrunClock")
		assert.Contains(t, out, "-test.run '^TestFuzzrunClock$' -- -duration")
	})
}

// TestMainTestBadFlagsAreUsageErrors: a bad fuzzrun flag after -- is
// fuzzrun's usage error, exit code 2, not a test failure or a panic.
func TestMainTestBadFlagsAreUsageErrors(t *testing.T) {
	bin := fuzzruntest.Self(t, "TestFuzzrunClock")
	res := fuzzruntest.Run(t, bin, "-workers", "0")
	require.Equal(t, fuzzrun.ExitUsage, res.Code, res)
	assert.Contains(t, res.Stderr, "-workers must be at least 1")
	assert.False(t, strings.Contains(res.Stdout, "FAIL"), res)
}

// runBinary runs a test binary with args and returns its output; it must
// exit 0.
func runBinary(t *testing.T, bin string, args ...string) string {
	t.Helper()
	out, err := exec.Command(bin, args...).CombinedOutput()
	require.NoError(t, err, "%s", out)
	return string(out)
}
