package properties_test

import (
	"slices"

	"testing"

	"github.com/converge-sim/converge/controllers/replicaset"
	"github.com/converge-sim/converge/examples/broken"
	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/properties"
	"github.com/converge-sim/converge/scenarios"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var podDeletes = []faults.EditTarget{{Resource: replicaset.PodKind}}

// faultKindCase pairs a fault kind with the deliberately broken controller
// it exposes and the verdict it must produce.
type faultKindCase struct {
	kind        faults.Kind
	broken      properties.Scenario
	verdict     properties.Verdict
	correct     properties.Scenario
	checkShrunk func(t *testing.T, cx *properties.Counterexample)
}

func faultKindCases() []faultKindCase {
	level := replicaset.Level(replicaset.LevelOptions{Resync: 20})
	reference := properties.Scenario{Name: "reference", Build: broken.QuietWorld(level), Edits: podDeletes}
	return []faultKindCase{
		{
			kind:    faults.KindAPIError,
			broken:  properties.Scenario{Name: "swallows-errors", Build: broken.QuietWorld(broken.SwallowsErrors())},
			verdict: properties.GoalUnmet,
			correct: reference,
		},
		{
			kind:    faults.KindPartition,
			broken:  properties.Scenario{Name: "max-retries", Build: broken.QuietWorld(broken.MaxRetries())},
			verdict: properties.GoalUnmet,
			correct: reference,
		},
		{
			kind: faults.KindStale,
			broken: properties.Scenario{
				Name: "short-expectations", Build: broken.QuietWorld(broken.ShortExpectations()),
				Invariants: []properties.Invariant{atMostOneExtra},
			},
			verdict: properties.InvariantBroken,
			correct: properties.Scenario{
				Name:       "expectations",
				Build:      broken.QuietWorld(replicaset.Level(replicaset.LevelOptions{Resync: 20, Expectations: true})),
				Invariants: []properties.Invariant{atMostOneExtra},
			},
		},
		{
			kind:    faults.KindEdit,
			broken:  properties.Scenario{Name: "unmapped-pods", Build: broken.QuietWorld(broken.UnmappedPods()), Edits: podDeletes},
			verdict: properties.GoalUnmet,
			correct: reference,
		},
		{
			kind:    faults.KindRestart,
			broken:  properties.Scenario{Name: "record-keeper", Build: broken.QuietWorld(broken.RecordKeeper())},
			verdict: properties.GoalUnmet,
			correct: reference,
			checkShrunk: func(t *testing.T, cx *properties.Counterexample) {
				for _, f := range cx.Schedule {
					if r, ok := f.Fault.(faults.Restart); ok && r.AfterWrites > 0 {
						return
					}
				}
				t.Errorf("the bug needs a crash between two writes, but the schedule is %s", cx.Schedule)
			},
		},
		{
			kind:    faults.KindDelay,
			broken:  properties.Scenario{Name: "first-seen-primary", Build: broken.PrimaryWorld(broken.FirstSeenPrimary())},
			verdict: properties.GoalUnmet,
			correct: reference,
		},
		{
			kind:    faults.KindTimeTravel,
			broken:  scenarios.TimeTravel(),
			verdict: properties.InvariantBroken,
			correct: scenarios.TimeTravelFixed(),
		},
	}
}

// TestEachFaultKindExposesItsBug shows, for each fault kind not covered by
// the reference controllers' claims, a deliberately broken controller that
// the fault exposes, and a correct controller that survives the same fault.
func TestEachFaultKindExposesItsBug(t *testing.T) {
	skipUnderRace(t)
	for _, tc := range faultKindCases() {
		t.Run(string(tc.kind), func(t *testing.T) {
			mix := faults.Mix{tc.kind}
			cx := requireFails(t, tc.broken, mix, tc.verdict, 3)
			assert.Positive(t, len(cx.Schedule), "the fault is needed:\n%s", cx.Report())
			if tc.checkShrunk != nil {
				tc.checkShrunk(t, cx)
			}
			requireConverges(t, tc.correct, mix)
		})
	}
}

// TestBrokenControllersPassWithoutFaults is the control group: each broken
// controller converges (and keeps its invariants) when no fault strikes, so
// each failure above is its fault's doing.
func TestBrokenControllersPassWithoutFaults(t *testing.T) {
	for _, tc := range faultKindCases() {
		t.Run(tc.broken.Name, func(t *testing.T) { requireConverges(t, tc.broken, nil) })
	}
}

// TestAnUndeclaredEditFindsAnUnwatchedChild: a scenario that declares no
// edit targets is edited all the same, by deleting a child its controller
// made (faults.OwnedChildren), and that finds a controller that never
// hears of its pods' deletes.
func TestAnUndeclaredEditFindsAnUnwatchedChild(t *testing.T) {
	skipUnderRace(t)
	sc := properties.Scenario{Name: "unmapped-pods", Build: broken.QuietWorld(broken.UnmappedPods())}
	cx := requireFails(t, sc, faults.Mix{faults.KindEdit}, properties.GoalUnmet, 1)
	require.Len(t, cx.Schedule, 1)
	e, ok := cx.Schedule[0].Fault.(faults.Edit)
	require.True(t, ok, cx.Report())
	assert.True(t, e.Target.Owned, cx.Report())
}

// TestCorrectControllersHealDeletedChildren: the correct twins of the
// broken controllers, in worlds that declare no edits, converge when the
// edit fault deletes the children they made, alone and in the whole
// healable mix (with resync; but time travel for expectations, the
// catalog's replicaset-expectations row) or its faithful part (without
// resync): a deleted pod is one a level-triggered controller makes again
// (docs/design.md, "Faults", "Edits of the children controllers make").
func TestCorrectControllersHealDeletedChildren(t *testing.T) {
	skipUnderRace(t)
	faithful, _ := scenarios.Healable.Split()
	noTravel := slices.DeleteFunc(slices.Clone(scenarios.Healable), func(k faults.Kind) bool { return k == faults.KindTimeTravel })
	for _, tc := range []struct {
		sc  properties.Scenario
		mix faults.Mix
	}{
		{properties.Scenario{Name: "reference", Build: broken.QuietWorld(replicaset.Level(replicaset.LevelOptions{Resync: 20}))}, scenarios.Healable},
		{properties.Scenario{Name: "expectations", Build: broken.QuietWorld(replicaset.Level(replicaset.LevelOptions{Resync: 20, Expectations: true})), Invariants: []properties.Invariant{atMostOneExtra}}, noTravel},
		{properties.Scenario{Name: "noresync", Build: broken.QuietWorld(replicaset.Level(replicaset.LevelOptions{Expectations: true}))}, faithful},
		{properties.Scenario{Name: "primary", Build: broken.PrimaryWorld(replicaset.Level(replicaset.LevelOptions{Resync: 20}))}, scenarios.Healable},
	} {
		t.Run(tc.sc.Name, func(t *testing.T) {
			requireConverges(t, tc.sc, faults.Mix{faults.KindEdit})
			requireConverges(t, tc.sc, tc.mix)
		})
	}
}
