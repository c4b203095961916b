package properties_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/converge-sim/converge/controllers/replicaset"
	"github.com/converge-sim/converge/examples/broken"
	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestResyncDependentCatchesAConflictNothingRequeues(t *testing.T) {
	apierror := faults.Mix{faults.KindAPIError}
	sc := properties.Scenario{Name: "ignores-conflicts", Build: broken.QuietWorld(broken.IgnoresConflicts())}
	cx := requireFails(t, sc, apierror, properties.ResyncDependent, 2)
	diagnosis := strings.Join(cx.Failure.Diagnosis, "\n")
	assert.Contains(t, diagnosis, "failed: Conflict")
	assert.Contains(t, diagnosis, "returned nil, and nothing requeued it")
	assert.Regexp(t, `the resync at t=\d+ \(step \d+\) replayed ReplicaSet default/web`, diagnosis)
	assert.Contains(t, diagnosis, "SyncPeriod is 10 hours")

	fixed := properties.Scenario{Name: "requeues-conflicts", Build: broken.QuietWorld(broken.RequeuesConflicts())}
	requireConverges(t, fixed, apierror)
}

// timerFirst is the chooser that first picks the last action (the next
// timer: the fault's, at t=0) and then always the first: the cluster
// settles, then the next timer fires.
type timerFirst struct{ chose *bool }

func (c timerFirst) Choose(n int, _ string) int {
	if !*c.chose {
		*c.chose = true
		return n - 1
	}
	return 0
}

func newTimerFirst() timerFirst { return timerFirst{chose: new(bool)} }

// TestAResyncOfTheFaultPhaseThatRetriesASwallowedWriteIsResyncDependent:
// the fault phase lasts two resync periods, so a Conflict swallowed early
// in it is retried by the resync at t=20, and by the heal every goal
// holds; checking the goals with resync held from the heal on saw a
// prompt controller. The resync that alone brought the controller back,
// after its reconcile had a write fail and returned nil, is the
// resync-dependent verdict (docs/design.md, "Prompt convergence"). The
// fixed twin requeues the Conflict and converges on the same run, and so
// does a run whose failed writes are retried by an event.
func TestAResyncOfTheFaultPhaseThatRetriesASwallowedWriteIsResyncDependent(t *testing.T) {
	conflicts := func(ctrl string) faults.Schedule {
		return faults.Schedule{{At: 0, Fault: faults.APIError{Controller: ctrl, Error: faults.ErrConflict, Count: 2}}}
	}
	sc := properties.Scenario{Name: "ignores-conflicts", Build: broken.QuietWorld(broken.IgnoresConflicts())}
	out, err := properties.Execute(sc, conflicts("ignores-conflicts"), newTimerFirst(), properties.RunOptions{})
	require.NoError(t, err)
	require.NotNil(t, out.Failure, "the resync of the fault phase retried the swallowed Conflict")
	assert.Equal(t, properties.ResyncDependent, out.Failure.Verdict)
	assert.Equal(t, []string{"in the fault phase, only a resync brought ignores-conflicts back to default/web (t=20, step 8), and it wrote what the reconcile before it (step 4) had failed to write and swallowed"}, out.Failure.Details)
	diagnosis := strings.Join(out.Failure.Diagnosis, "\n")
	assert.Contains(t, diagnosis, "failed: Conflict (fault) (ignored by the reconciler); returned nil, and nothing requeued it")
	assert.Regexp(t, `the resync at t=\d+ \(step \d+\) replayed ReplicaSet default/web`, diagnosis)

	fixed := properties.Scenario{Name: "requeues-conflicts", Build: broken.QuietWorld(broken.RequeuesConflicts())}
	out, err = properties.Execute(fixed, conflicts("requeues-conflicts"), newTimerFirst(), properties.RunOptions{})
	require.NoError(t, err)
	assert.Nil(t, out.Failure)

	// One Conflict fails the create alone: the status update that follows
	// succeeds, and its own event brings the controller back at once.
	one := faults.Schedule{{At: 0, Fault: faults.APIError{Controller: "ignores-conflicts", Error: faults.ErrConflict, Count: 1}}}
	out, err = properties.Execute(sc, one, newTimerFirst(), properties.RunOptions{})
	require.NoError(t, err)
	assert.Nil(t, out.Failure)
}

// TestAdversarialFaultsMayRelyOnResync: after a dropped notification the
// level-triggered controller with resync needs its resync, and that is no
// failure: resync is there for handler bugs.
func TestAdversarialFaultsMayRelyOnResync(t *testing.T) {
	level := replicaset.Level(replicaset.LevelOptions{Resync: 20})
	sc := properties.Scenario{Name: "level", Build: broken.QuietWorld(level), Edits: podDeletes}
	requireConverges(t, sc, faults.Mix{faults.KindDrop, faults.KindEdit})
	requireConverges(t, sc, faults.Mix{faults.KindEdit, faults.KindAPIError, faults.KindRestart})
}

const convergeWithin = 2 * broken.PollInterval

func TestSlowConvergenceCatchesABackoffWait(t *testing.T) {
	sc := properties.Scenario{Name: "waits-with-errors", Build: broken.GateWorld(broken.WaitsWithErrors()), ConvergeWithin: convergeWithin}
	cx := requireFails(t, sc, nil, properties.SlowConvergence, 0)
	assert.Contains(t, cx.Failure.Details[0], fmt.Sprintf("the last outside write was at t=%d", broken.GateOpensAt))
	diagnosis := strings.Join(cx.Failure.Diagnosis, "\n")
	assert.Contains(t, diagnosis, "reconciles returned an error")
	assert.Contains(t, diagnosis, "error: gate is closed")
	assert.Contains(t, diagnosis, "should return RequeueAfter")

	fixed := properties.Scenario{Name: "waits-with-requeue-after", Build: broken.GateWorld(broken.WaitsWithRequeueAfter()), ConvergeWithin: convergeWithin}
	requireConverges(t, fixed, nil)
}

// TestConvergeTimeIsMeasured: without ConvergeWithin nothing fails, and
// each run reports how long it took: the poller within its interval, the
// backoff waiter sometimes far longer.
func TestConvergeTimeIsMeasured(t *testing.T) {
	longest := map[string]model.Time{}
	for _, ctrl := range []model.Controller{broken.WaitsWithRequeueAfter(), broken.WaitsWithErrors()} {
		sc := properties.Scenario{Name: ctrl.Name, Build: broken.GateWorld(ctrl)}
		for seed := range uint64(50) {
			out, err := properties.Execute(sc, nil, prng{rand.New(rand.NewPCG(seed, 3))}, properties.RunOptions{DiscardTrace: true})
			require.NoError(t, err)
			require.Nil(t, out.Failure, "%s seed %d", ctrl.Name, seed)
			require.True(t, out.Converged)
			longest[ctrl.Name] = max(longest[ctrl.Name], out.ConvergeTime)
		}
	}
	assert.LessOrEqual(t, longest["waits-with-requeue-after"], model.Time(broken.PollInterval))
	assert.Greater(t, longest["waits-with-errors"], model.Time(convergeWithin))
}

// TestExplorationFindsAResyncOfTheFaultPhaseThatRetriesASwallowedWrite:
// bounded exploration judges the same way, at depth 1 (one Conflict
// armed at t=0 for the controller's first writes).
func TestExplorationFindsAResyncOfTheFaultPhaseThatRetriesASwallowedWrite(t *testing.T) {
	sc := properties.Scenario{Name: "ignores-conflicts", Build: broken.QuietWorld(broken.IgnoresConflicts())}
	p, err := properties.Prepare(sc, faults.Mix{faults.KindAPIError})
	require.NoError(t, err)
	res, err := p.Explore(properties.ExploreOptions{Depth: 1})
	require.NoError(t, err)
	require.NotNil(t, res.Counterexample, "explored %d states", res.States)
	assert.Equal(t, properties.ResyncDependent, res.Counterexample.Failure.Verdict)
	require.Len(t, res.Counterexample.Failure.Details, 1)
	assert.Contains(t, res.Counterexample.Failure.Details[0], "in the fault phase, only a resync brought ignores-conflicts back to default/web")
}
