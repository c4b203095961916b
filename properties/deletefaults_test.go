package properties_test

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
	"github.com/converge-sim/converge/scenarios"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestShrinkKeepsFaultsTheFailureNeeds: a controller that counts its lives
// in the object's status, and whose goal is at most two, fails only after
// two restarts. Each deletion passes, so both restarts stay.
func TestShrinkKeepsFaultsTheFailureNeeds(t *testing.T) {
	skipUnderRace(t)
	sc := properties.Scenario{Name: "counts-lives", Build: func(cfg model.Config) (*model.Cluster, error) {
		c := model.NewCluster(cfg)
		if err := c.AddController(livesCounter()); err != nil {
			return nil, err
		}
		return c, c.Apply(&model.Object{Kind: "Counter", Namespace: "default", Name: "lives"})
	}}
	res, err := properties.Search(sc, faults.Mix{faults.KindRestart}, properties.SearchOptions{Test: t, Checks: ciChecks, Seed: 1})
	require.NoError(t, err)
	cx := res.Counterexample
	require.NotNil(t, cx, "two restarts make a third life")
	assert.Equal(t, properties.GoalUnmet, cx.Failure.Verdict)
	assert.Len(t, cx.Schedule, 2, cx.Report())
	assert.Equal(t, cx.Shrunk, cx.Schedule)
	assert.GreaterOrEqual(t, cx.DeletionRuns, 3, "one replay, then each fault deleted")
}

// livesCounter adds one to status.lives of each Counter on the first
// reconcile of each of its lives (a start, or a restart, which loses its
// memory); its goal is at most two lives.
func livesCounter() model.Controller {
	return model.Controller{
		Name: "lives",
		For:  "Counter",
		NewReconciler: func(cl model.Client) model.Reconciler {
			counted := false
			return model.ReconcilerFunc(func(req model.Request) (model.Result, error) {
				if counted {
					return model.Result{}, nil
				}
				obj, err := cl.Get("Counter", req.Namespace, req.Name)
				if err != nil {
					return model.Result{}, err
				}
				obj.Status.Set("lives", obj.Status.Int("lives")+1)
				if err := cl.UpdateStatus(obj); err != nil {
					return model.Result{}, err
				}
				counted = true
				return model.Result{}, nil
			})
		},
		Goal: func(s model.State) []model.Unmet {
			var out []model.Unmet
			for _, o := range s.List("Counter", model.ListOptions{}) {
				if lives := o.Status.Int("lives"); lives > 2 {
					out = append(out, model.Unmet{Object: o.Ref(), Message: fmt.Sprintf("%d lives", lives)})
				}
			}
			return out
		},
	}
}

// Seeds of the timetravel row (scenarios.TimeTravel under timetravel alone)
// whose failure rapid shrinks, with one check, to two time travels where the
// failure needs one (docs/design.md, "Faults rapid cannot delete"): a time
// travel one version behind at t=0 stays beside the one the bug needs, and
// the pass deletes it. (They were 97 and 33 until time travel drew
// distances up to 1000 and landmarks, which changed every time travel's
// draws; 671 and 1109 are the first such seeds of today's draw, the
// first with the same one fault as seed 97 had. Re-pinned again to 191
// and 1474 when the draw became three-way, a short distance, a far one or
// a landmark, which changed every time travel's draws again: the first
// seeds, from 1, whose shrunk schedule keeps the one-version travel at
// t=0 beside the one the bug needs.)
const (
	randomDeletionSeed = 191
	pctDeletionSeed    = 1474
)

// deletionSearch searches the timetravel row from seed with one check.
func deletionSearch(t *testing.T, seed uint64, strategy properties.Strategy) *properties.Counterexample {
	t.Helper()
	res, err := properties.Search(scenarios.TimeTravel(), faults.Mix{faults.KindTimeTravel}, properties.SearchOptions{Test: t, Checks: 1, Seed: seed, Strategy: strategy})
	require.NoError(t, err)
	require.NotNil(t, res.Counterexample, "seed %d fails", seed)
	return res.Counterexample
}

// traceJSON is the trace's bytes.
func traceJSON(t *testing.T, tr *model.Trace) string {
	t.Helper()
	var b strings.Builder
	require.NoError(t, tr.WriteJSON(&b))
	return b.String()
}

// assertOneFaultLeft checks a counterexample of the timetravel row whose
// shrunk schedule had two faults: the pass left one of them, and the
// counterexample replays exactly, with the same verdict and the same trace
// bytes.
func assertOneFaultLeft(t *testing.T, cx *properties.Counterexample) {
	t.Helper()
	report := cx.Report()
	require.Len(t, cx.Shrunk, 2, "rapid shrank it to two faults:\n%s", report)
	require.Len(t, cx.Schedule, 1, "the pass deleted one:\n%s", report)
	assert.Contains(t, cx.Shrunk, cx.Schedule[0], "a deletion adds no fault")
	assert.Positive(t, cx.DeletionRuns)
	assert.Equal(t, properties.InvariantBroken, cx.Failure.Verdict, report)
	assert.Equal(t, faults.Faithful, cx.Class)
	assert.Contains(t, report, "fault schedule (1 fault):\n  "+cx.Schedule.Lines()[0]+"\n")

	out, diverged, err := properties.Replay(scenarios.TimeTravel(), cx.Schedule, cx.Choices, properties.RunOptions{Inputs: cx.Inputs})
	require.NoError(t, err)
	assert.False(t, diverged, "the recorded choices replay the run")
	require.NotNil(t, out.Failure, "the replay fails")
	assert.Equal(t, cx.Failure.Property, out.Failure.Property)
	assert.Equal(t, cx.Failure.Verdict, out.Failure.Verdict)
	assert.Equal(t, cx.Failure.Report(cx.Schedule), out.Failure.Report(out.Schedule))
	assert.Equal(t, cx.Steps, out.Cluster.Steps())
	assert.Equal(t, traceJSON(t, cx.Trace), traceJSON(t, out.Cluster.Trace()), "the same trace, byte for byte")
}

// assertSameCounterexample checks that two searches of one seed found the
// same counterexample.
func assertSameCounterexample(t *testing.T, a, b *properties.Counterexample) {
	t.Helper()
	assert.Equal(t, a.Report(), b.Report())
	assert.Equal(t, a.Schedule, b.Schedule)
	assert.Equal(t, a.Shrunk, b.Shrunk)
	assert.Equal(t, a.DeletionRuns, b.DeletionRuns)
	assert.Equal(t, a.Choices, b.Choices)
	assert.Equal(t, traceJSON(t, a.Trace), traceJSON(t, b.Trace))
}

// TestDeletionLeavesOneFaultOfTimeTravelSeed: from a seed of the
// timetravel row that rapid shrinks to two faults, the random strategy's
// counterexample has one, replays exactly, and a second search of the
// seed finds the same.
func TestDeletionLeavesOneFaultOfTimeTravelSeed(t *testing.T) {
	skipUnderRace(t)
	cx := deletionSearch(t, randomDeletionSeed, properties.Strategy{})
	assertOneFaultLeft(t, cx)
	assertSameCounterexample(t, cx, deletionSearch(t, randomDeletionSeed, properties.Strategy{}))
}

// TestDeletionLeavesOneFaultOfTimeTravelPCTSeed: the same under PCT, whose
// change points are step counts a deleted fault shifts.
func TestDeletionLeavesOneFaultOfTimeTravelPCTSeed(t *testing.T) {
	skipUnderRace(t)
	pct := properties.Strategy{Name: properties.StrategyPCT}
	cx := deletionSearch(t, pctDeletionSeed, pct)
	assertOneFaultLeft(t, cx)
	assertSameCounterexample(t, cx, deletionSearch(t, pctDeletionSeed, pct))
}

// envDeletionCheck makes TestCheckReportsTheFaultsLeft the failing test it
// runs in a subprocess.
const envDeletionCheck = "CONVERGE_DELETION_CHECK"

// TestCheckReportsTheFaultsLeft: a go test that checks the timetravel row
// with CheckWith in synctest bubbles (InBubble), from the seed rapid
// shrinks to two faults, fails with the one fault the pass left.
func TestCheckReportsTheFaultsLeft(t *testing.T) {
	skipUnderRace(t)
	if os.Getenv(envDeletionCheck) != "" {
		properties.CheckWith(t, scenarios.TimeTravel(), faults.Mix{faults.KindTimeTravel}, properties.CheckOptions{Wrap: properties.InBubble(t)})
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestCheckReportsTheFaultsLeft$", "-rapid.nofailfile", "-rapid.checks=1", "-rapid.seed="+strconv.Itoa(randomDeletionSeed))
	cmd.Env = append(os.Environ(), envDeletionCheck+"=1", properties.TimelineDirEnv+"="+t.TempDir())
	out, err := cmd.CombinedOutput()
	require.Error(t, err, "the check fails:\n%s", out)
	rep := strings.ReplaceAll(report(t, string(out)), "\n        ", "\n") // go test indents what a test logs
	assert.Contains(t, rep, "seed "+strconv.Itoa(randomDeletionSeed)+": invariant a live App's volumes are never deleted by its controller violated")
	assert.Contains(t, rep, "fault schedule (1 fault):\n  t=2 timetravel: restart deletes-by-name (down 1 ticks); it relists from a server 8 versions behind\nreplay: ")
	assert.NotContains(t, rep, "1 version behind", "the fault rapid could not delete is gone")
}

// TestTheFewerFaultsPassIsBounded: the lives counter fails only after two
// restarts (a time travel is one too), so under every kind of fault but
// apierror (whose ambiguous timeout fails its one write twice) deletion
// leaves two faults and no schedule of one fault fails. The random
// strategy's pass for fewer faults (docs/design.md, "Fewer faults than
// deletion leaves") then spends its whole budget and no more: as many
// runs as the search made, and at least 500, where searching every kind
// in turn would make 100 + 8·60 = 580. Its progress lines say how far it
// got.
func TestTheFewerFaultsPassIsBounded(t *testing.T) {
	skipUnderRace(t)
	sc := properties.Scenario{Name: "counts-lives", Build: func(cfg model.Config) (*model.Cluster, error) {
		c := model.NewCluster(cfg)
		if err := c.AddController(livesCounter()); err != nil {
			return nil, err
		}
		return c, c.Apply(&model.Object{Kind: "Counter", Namespace: "default", Name: "lives"})
	}}
	mix := faults.Mix{faults.KindDrop, faults.KindDuplicate, faults.KindDelay, faults.KindExpire, faults.KindRestart, faults.KindStale, faults.KindPartition, faults.KindTimeTravel}
	var lines strings.Builder
	res, err := properties.Search(sc, mix, properties.SearchOptions{Test: t, Checks: 2000, Seed: 1, Progress: &lines})
	require.NoError(t, err)
	cx := res.Counterexample
	require.NotNil(t, cx, "two restarts make a third life")
	require.Len(t, cx.Schedule, 2, cx.Report())
	assert.Equal(t, 500, cx.FewerBudget, "the search made fewer runs than the pass's floor")
	assert.Equal(t, cx.FewerBudget, cx.FewerRuns, "the pass found nothing, and spent its budget")
	assert.Greater(t, cx.DeletionRuns, cx.FewerRuns, "deletion's runs and the pass's")
	assert.Contains(t, lines.String(), "converge: counts-lives/"+mix.String()+": fewer faults than deletion leaves (2 faults): under restart, 60 runs; 500 of the pass's 500 runs left\n")
	assert.Contains(t, lines.String(), "converge: counts-lives/"+mix.String()+": fewer faults than deletion leaves (2 faults): one of them moved, up to 100 runs; 440 of the pass's 500 runs left\n")
	assert.Contains(t, lines.String(), "converge: counts-lives/"+mix.String()+": fewer faults than deletion leaves: 2 faults → 2 faults in 500 of the pass's 500 runs\n")
	t.Log(lines.String())
}
