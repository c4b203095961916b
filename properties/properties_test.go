package properties_test

import (
	"testing"

	"github.com/converge-sim/converge/controllers/replicaset"
	"github.com/converge-sim/converge/examples/broken"
	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
	"github.com/converge-sim/converge/scenarios"
	"github.com/stretchr/testify/assert"
)

// For each property: a deliberately broken controller it catches, and a
// correct one that passes.

func levelWithResync() model.Controller {
	return replicaset.Level(replicaset.LevelOptions{Resync: 20, Expectations: true})
}

func TestNoFightCatchesTwoOwnersOfOneField(t *testing.T) {
	cx := requireFails(t, scenarios.HPAGitOpsFight(), nil, properties.Fight, 0)
	assert.Equal(t, "no fight", cx.Failure.Property)
	assert.Contains(t, cx.Failure.Details, "field: spec.replicas")
	assert.Contains(t, cx.Failure.Details, "writers: autoscaler, gitops")
	requireConverges(t, scenarios.HPAGitOpsOwned(), nil)
}

func TestNoFixedPointCatchesControllersThatKeepEachOtherBusy(t *testing.T) {
	pingPong := properties.Scenario{Name: "ping-pong", Build: broken.ReplicaSetWorld(false, broken.PingPong()...)}
	cx := requireFails(t, pingPong, nil, properties.NoFixedPoint, 0)
	assert.Contains(t, cx.Failure.Summary, "no fixed point within")
	requireConverges(t, properties.Scenario{Name: "level", Build: broken.ReplicaSetWorld(false, levelWithResync())}, nil)
}

func TestIdempotenceCatchesUnguardedCreates(t *testing.T) {
	unguarded := properties.Scenario{
		Name:             "no-expectations",
		Build:            broken.ReplicaSetWorld(true, replicaset.Level(replicaset.LevelOptions{Resync: 20})),
		CheckIdempotence: true,
	}
	cx := requireFails(t, unguarded, nil, properties.NotIdempotent, 0)
	assert.Contains(t, cx.Failure.Details[1], "create Pod")
	guarded := unguarded
	guarded.Name = "expectations"
	guarded.Build = broken.ReplicaSetWorld(true, levelWithResync())
	requireConverges(t, guarded, faults.Mix{faults.KindDrop, faults.KindRestart})
}

func TestNoCacheMutationCatchesAnUncopiedCachedObject(t *testing.T) {
	mutates := properties.Scenario{Name: "mutates-cache", Build: broken.ReplicaSetWorld(false, levelWithResync(), broken.MutatesCache())}
	cx := requireFails(t, mutates, nil, properties.CacheMutation, 0)
	assert.Contains(t, cx.Failure.Details, `metadata.labels.team: <none>→"web"`)
	copies := properties.Scenario{Name: "copies-first", Build: broken.ReplicaSetWorld(false, levelWithResync(), broken.CopiesBeforeMutating())}
	requireConverges(t, copies, faults.Mix{faults.KindDrop, faults.KindRestart})
}

func TestNoLostUpdateCatchesAnUnconditionalWrite(t *testing.T) {
	blind := properties.Scenario{Name: "blind-writer", Build: broken.ReplicaSetWorld(true, broken.BlindWriter())}
	cx := requireFails(t, blind, nil, properties.LostUpdate, 0)
	assert.Contains(t, cx.Failure.Summary, "blind-writer overwrote user's change to spec.replicas")
	conditional := properties.Scenario{Name: "conditional-writer", Build: broken.ReplicaSetWorld(true, broken.ConditionalWriter())}
	requireConverges(t, conditional, faults.Mix{faults.KindDrop, faults.KindRestart})
}
