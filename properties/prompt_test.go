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
	assert.Contains(t, diagnosis, "the resync at t=80 (step 18) replayed ReplicaSet default/web")
	assert.Contains(t, diagnosis, "SyncPeriod is 10 hours")

	fixed := properties.Scenario{Name: "requeues-conflicts", Build: broken.QuietWorld(broken.RequeuesConflicts())}
	requireConverges(t, fixed, apierror)
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
