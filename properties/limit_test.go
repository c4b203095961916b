package properties_test

import (
	"context"
	"flag"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/converge-sim/converge/controllers/replicaset"
	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// misbehaving is the level-triggered ReplicaSet controller with bug run
// at the start of every reconcile.
func misbehaving(name string, bug func()) properties.Scenario {
	ctrl := replicaset.Level(replicaset.LevelOptions{Name: name, Resync: 20})
	inner := ctrl.NewReconciler
	ctrl.NewReconciler = func(c model.Client) model.Reconciler {
		r := inner(c)
		return model.ReconcilerFunc(func(req model.Request) (model.Result, error) {
			bug()
			return r.Reconcile(req)
		})
	}
	return properties.Scenario{Name: name, Build: world(ctrl, false), RunTimeout: 200 * time.Millisecond}
}

// blockForever blocks the reconcile that calls it for good.
func blockForever() { <-make(chan struct{}) }

// spinForever loops for good without a function call: only asynchronous
// preemption can even see it.
func spinForever() {
	//lint:ignore SA5002 the spin is the bug under test
	for {
	}
}

// leakOne starts a goroutine that never ends.
func leakOne() { go blockForever() }

// waitForOne starts a goroutine and waits for it: nothing leaks.
func waitForOne() {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done() }()
	wg.Wait()
}

// withShrinkTime sets rapid's shrink time for the test.
func withShrinkTime(t *testing.T, d time.Duration) {
	f := flag.Lookup("rapid.shrinktime")
	require.NotNil(t, f)
	old := f.Value.String()
	require.NoError(t, flag.Set("rapid.shrinktime", d.String()))
	t.Cleanup(func() { _ = flag.Set("rapid.shrinktime", old) })
}

// TestSearchReportsAHangWithItsSeedAndTheStuckStack: a reconcile that
// blocks for good is a hang counterexample with its seed and the stack of
// the stuck reconcile, within the run's time limit, not a test that hangs
// until go test's timeout (issue 13, defect 4).
func TestSearchReportsAHangWithItsSeedAndTheStuckStack(t *testing.T) {
	withShrinkTime(t, time.Second)
	sc := misbehaving("blocking", blockForever)
	res, err := properties.Search(sc, faults.Mix{faults.KindRestart}, properties.SearchOptions{Test: t, Checks: 1, Seed: 7})
	require.NoError(t, err)
	cx := res.Counterexample
	require.NotNil(t, cx)
	assert.Equal(t, properties.Hang, cx.Failure.Verdict)
	assert.Equal(t, "terminates", cx.Failure.Property)
	assert.Equal(t, uint64(7), cx.Seed)
	assert.Contains(t, cx.Report(), "did not finish within 100ms", "runs after the first hang get a tenth of the limit")
	assert.Contains(t, strings.Join(cx.Failure.Details, "\n"), "properties_test.blockForever()", "the stuck reconcile's stack")
	assert.Contains(t, cx.Replay, "-rapid.seed=7")
}

// TestReplayOfAHangIsAHang: the recorded choices of a hang replay to the
// same hang, bounded by the limit.
func TestReplayOfAHangIsAHang(t *testing.T) {
	sc := misbehaving("blocking", blockForever)
	out, _, err := properties.Replay(sc, nil, nil, properties.RunOptions{Timeout: 50 * time.Millisecond})
	require.NoError(t, err)
	require.NotNil(t, out.Failure)
	assert.Equal(t, properties.Hang, out.Failure.Verdict)
}

// TestALeakedGoroutineIsAFinding: a reconcile that leaves a goroutine
// running is a goroutine-leak counterexample naming where it was started;
// one that waits for its goroutines converges.
func TestALeakedGoroutineIsAFinding(t *testing.T) {
	withShrinkTime(t, time.Second)
	res, err := properties.Search(misbehaving("leaking", leakOne), nil, properties.SearchOptions{Test: t, Checks: 1, Seed: 1})
	require.NoError(t, err)
	require.NotNil(t, res.Counterexample)
	f := res.Counterexample.Failure
	assert.Equal(t, properties.GoroutineLeak, f.Verdict)
	assert.Equal(t, "no goroutine leak", f.Property)
	assert.Contains(t, strings.Join(f.Details, "\n"), "properties_test.leakOne")

	res, err = properties.Search(misbehaving("waiting", waitForOne), nil, properties.SearchOptions{Test: t, Checks: 5, Seed: 1})
	require.NoError(t, err)
	assert.Nil(t, res.Counterexample, "goroutines a reconcile waits for are no leak")
	require.NotNil(t, res.Passed, "a search that passed keeps its last run")
	assert.Nil(t, res.Passed.Failure)
	assert.NotEmpty(t, res.Passed.Cluster.Trace().Records, "with its trace, for a timeline page")
}

// TestCheckReportsAHangInsteadOfHangingGoTest runs properties.Check on a
// reconcile that spins for good in a go test subprocess: the test fails
// within seconds with the seed and the spinning frame, instead of hanging
// until go test's timeout (issue 13, defect 4).
func TestCheckReportsAHangInsteadOfHangingGoTest(t *testing.T) {
	if os.Getenv("CONVERGE_CHECK_HANG") != "" {
		properties.Check(t, misbehaving("spinning", spinForever), nil)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a guard only
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestCheckReportsAHangInsteadOfHangingGoTest$", "-rapid.shrinktime=1s", "-rapid.checks=3", "-rapid.nofailfile")
	cmd.Env = append(os.Environ(), "CONVERGE_CHECK_HANG=1")
	out, err := cmd.CombinedOutput()
	require.Error(t, err, "the property fails:\n%s", out)
	assert.NotEqual(t, context.DeadlineExceeded, ctx.Err(), "it did not hang")
	for _, want := range []string{"terminates violated (hang)", "-rapid.seed=", "properties_test.spinForever()", "--- FAIL: TestCheckReportsAHangInsteadOfHangingGoTest"} {
		assert.Contains(t, string(out), want)
	}
}

// writeForever updates the reconciled ReplicaSet's status in a loop that
// never returns: inside a testing/synctest bubble virtual time does not
// move while it loops.
func writeForever(c model.Client, req model.Request) {
	for {
		if obj, err := c.Get(replicaset.Kind, req.Namespace, req.Name); err == nil {
			_ = c.UpdateStatus(obj)
		}
	}
}

// writingForever is the level-triggered ReplicaSet controller whose
// reconcile writes without end.
func writingForever() properties.Scenario {
	ctrl := replicaset.Level(replicaset.LevelOptions{Name: "writing", Resync: 20})
	ctrl.NewReconciler = func(c model.Client) model.Reconciler {
		return model.ReconcilerFunc(func(req model.Request) (model.Result, error) {
			writeForever(c, req)
			return model.Result{}, nil
		})
	}
	return properties.Scenario{Name: "writing", Build: world(ctrl, false)}
}

// TestAStallInABubbleIsAHangWithItsSeed: a reconcile that writes in a
// loop inside a testing/synctest bubble, where runs have no time limit,
// ends as a Hang counterexample with its seed and the looping frame once
// it passes properties.StepWriteLimit writes in one step, instead of
// hanging the test. Outside a bubble it ends the same way, long before
// its time limit.
func TestAStallInABubbleIsAHangWithItsSeed(t *testing.T) {
	res, err := properties.Search(writingForever(), nil, properties.SearchOptions{Test: t, Checks: 1, Seed: 7, Wrap: properties.InBubble(t)})
	require.NoError(t, err)
	cx := res.Counterexample
	require.NotNil(t, cx)
	assert.Equal(t, properties.Hang, cx.Failure.Verdict)
	assert.Equal(t, "terminates", cx.Failure.Property)
	assert.Equal(t, uint64(7), cx.Seed)
	assert.Contains(t, cx.Failure.Summary, "writing made more than 10000 writes within one step")
	assert.Contains(t, strings.Join(cx.Failure.Details, "\n"), "properties_test.writeForever(", "the looping reconcile's stack")
	assert.Contains(t, cx.Replay, "-rapid.seed=7")

	out, _, err := properties.Replay(writingForever(), nil, nil, properties.RunOptions{Timeout: time.Hour})
	require.NoError(t, err)
	require.NotNil(t, out.Failure)
	assert.Equal(t, properties.Hang, out.Failure.Verdict, "not the hour's time limit")
	assert.Contains(t, out.Failure.Summary, "more than 10000 writes")
}
