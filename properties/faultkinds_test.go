package properties_test

import (
	"testing"

	"github.com/converge-sim/converge/controllers/replicaset"
	"github.com/converge-sim/converge/examples/broken"
	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/properties"
	"github.com/converge-sim/converge/scenarios"
	"github.com/stretchr/testify/assert"
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
