package properties_test

import (
	"math/rand/v2"
	"testing"

	"github.com/converge-sim/converge/actors"
	"github.com/converge-sim/converge/controllers/replicaset"
	"github.com/converge-sim/converge/examples/broken"
	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
	"github.com/converge-sim/converge/scenarios"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// world builds a one-ReplicaSet cluster around ctrl, with a chaos actor
// and, if scale is set, a user who rescales it.
func world(ctrl model.Controller, scale bool) func(model.Config) (*model.Cluster, error) {
	return func(cfg model.Config) (*model.Cluster, error) {
		c := model.NewCluster(cfg)
		if err := c.AddController(ctrl); err != nil {
			return nil, err
		}
		if scale {
			if err := c.AddActor(actors.Scaler{Kind: replicaset.Kind, Field: "replicas", Min: 0, Max: 5}, 2); err != nil {
				return nil, err
			}
		}
		if err := c.AddActor(actors.Killer{Kind: replicaset.PodKind}, 2); err != nil {
			return nil, err
		}
		return c, c.Apply(replicaset.New("default", "web", 3))
	}
}

// brokenPanicking wraps the level-triggered controller so that it panics,
// deliberately, on a ReplicaSet scaled to zero.
func brokenPanicking() model.Controller {
	ctrl := replicaset.Level(replicaset.LevelOptions{Name: "panicking", Resync: 20})
	inner := ctrl.NewReconciler
	ctrl.NewReconciler = func(c model.Client) model.Reconciler {
		r := inner(c)
		return model.ReconcilerFunc(func(req model.Request) (model.Result, error) {
			if rs, err := c.Get(replicaset.Kind, req.Namespace, req.Name); err == nil && rs.Spec.Int("replicas") == 0 {
				var pods map[string]int
				//lint:ignore SA5000 the nil map write is the deliberate bug: its panic is the finding
				pods["none"]++
			}
			return r.Reconcile(req)
		})
	}
	return ctrl
}

var dropAndRestart = faults.Mix{faults.KindDrop, faults.KindRestart}

func TestNoHotLoopCatchesATimestamp(t *testing.T) {
	stamps := properties.Scenario{Name: "timestamping", Build: world(broken.Timestamping(), true)}
	cx := requireFails(t, stamps, dropAndRestart, properties.HotLoop, 0)
	assert.Contains(t, cx.Report(), "timestamping rewrote status.lastSync of ReplicaSet default/web")

	correct := properties.Scenario{Name: "level", Build: world(replicaset.Level(replicaset.LevelOptions{Resync: 20}), true)}
	requireConverges(t, correct, dropAndRestart)
}

// The level-triggered controller without expectations over-creates when it
// reconciles on a cache that has not caught up with its own creates.
var atMostOneExtra = properties.AtMostPerOwner(replicaset.PodKind, replicaset.Kind, func(rs *model.Object) int64 {
	return rs.Spec.Int("replicas") + 1
})

func TestInvariantCatchesOverCreation(t *testing.T) {
	broken := properties.Scenario{
		Name:       "no-expectations",
		Build:      world(replicaset.Level(replicaset.LevelOptions{Resync: 20}), false),
		Invariants: []properties.Invariant{atMostOneExtra},
	}
	cx := requireFails(t, broken, dropAndRestart, properties.InvariantBroken, 0)
	assert.Equal(t, "invariant bounded Pods per ReplicaSet", cx.Failure.Property)

	correct := broken
	correct.Name = "expectations"
	correct.Build = world(replicaset.Level(replicaset.LevelOptions{Resync: 20, Expectations: true}), false)
	requireConverges(t, correct, dropAndRestart)
}

func TestNoPanicCatchesAPanickingController(t *testing.T) {
	broken := properties.Scenario{Name: "panicking", Build: world(brokenPanicking(), true)}
	cx := requireFails(t, broken, faults.Mix{faults.KindDrop}, properties.ControllerPanic, 0)
	assert.Contains(t, cx.Failure.Summary, "panicking panicked: assignment to entry in nil map")
	require.NotEmpty(t, cx.Failure.Details)
	assert.Contains(t, cx.Failure.Details[0], "verdicts_test.go", "the report points at the panicking line")
}

// prng is a chooser for determinism checks outside rapid.
type prng struct{ r *rand.Rand }

func (p prng) Choose(n int, _ string) int { return p.r.IntN(n) }

// randomSchedule draws a schedule from the generator rapid uses, from a
// seed, outside rapid.
func randomSchedule(seed int, plan properties.Plan, mix faults.Mix) faults.Schedule {
	return faults.Schedules(mix, plan.Topology, plan.Budget).Example(seed)
}

// TestSameSeedSameTrace is the guard against silent nondeterminism (docs/design.md,
// trap 6): for 100 seeds of every built-in scenario, two runs give
// byte-identical traces.
func TestSameSeedSameTrace(t *testing.T) {
	skipUnderRace(t)
	for _, sc := range scenarios.All() {
		mix := sc.EveryFault()
		plan, err := properties.PlanFor(sc, mix)
		require.NoError(t, err)
		for seed := range uint64(100) {
			run := func() (string, string) {
				r := rand.New(rand.NewPCG(seed, 7))
				sched := randomSchedule(int(seed), plan, mix)
				out, err := properties.Execute(sc, sched, prng{r}, properties.RunOptions{})
				require.NoError(t, err)
				verdict := ""
				if out.Failure != nil {
					verdict = out.Failure.Report(sched)
				}
				return out.Cluster.Trace().Hash(), verdict
			}
			h1, v1 := run()
			h2, v2 := run()
			require.Equal(t, h1, h2, "%s seed %d: traces differ", sc.Name, seed)
			require.Equal(t, v1, v2, "%s seed %d: verdicts differ", sc.Name, seed)
		}
	}
}
