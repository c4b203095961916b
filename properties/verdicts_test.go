package properties_test

import (
	"math/rand/v2"
	"testing"

	"github.com/converge-sim/converge/actors"
	"github.com/converge-sim/converge/controllers/replicaset"
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

// brokenTimestamping wraps the level-triggered controller with the classic
// hot loop, deliberately: every reconcile stamps status with the time.
func brokenTimestamping() model.Controller {
	ctrl := replicaset.Level(replicaset.LevelOptions{Name: "timestamping", Resync: 20})
	inner := ctrl.NewReconciler
	ctrl.NewReconciler = func(c model.Client) model.Reconciler {
		r := inner(c)
		return model.ReconcilerFunc(func(req model.Request) (model.Result, error) {
			res, err := r.Reconcile(req)
			if rs, getErr := c.Get(replicaset.Kind, req.Namespace, req.Name); getErr == nil {
				if rs.Status == nil {
					rs.Status = model.Fields{}
				}
				rs.Status["lastSync"] = int64(c.Now())
				_ = c.UpdateStatus(rs)
			}
			return res, err
		})
	}
	return ctrl
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
				pods["none"]++ // nil map write: the deliberate bug
			}
			return r.Reconcile(req)
		})
	}
	return ctrl
}

var dropAndRestart = faults.Mix{faults.KindDrop, faults.KindRestart}

func TestNoFixedPointCatchesAHotLoop(t *testing.T) {
	broken := properties.Scenario{Name: "timestamping", Build: world(brokenTimestamping(), true)}
	cx := requireFails(t, broken, dropAndRestart, properties.NoFixedPoint, 0)
	assert.Contains(t, cx.Report(), "timestamping wrote")

	correct := properties.Scenario{Name: "level", Build: world(replicaset.Level(replicaset.LevelOptions{Resync: 20}), true)}
	requireConverges(t, correct, dropAndRestart)
}

// The level-triggered controller without expectations over-creates when it
// reconciles on a cache that has not caught up with its own creates.
var atMostOneExtra = properties.Invariant{Name: "at most replicas+1 pods", Check: replicaset.AtMostPodsPlus(1)}

func TestInvariantCatchesOverCreation(t *testing.T) {
	broken := properties.Scenario{
		Name:       "no-expectations",
		Build:      world(replicaset.Level(replicaset.LevelOptions{Resync: 20}), false),
		Invariants: []properties.Invariant{atMostOneExtra},
	}
	cx := requireFails(t, broken, dropAndRestart, properties.InvariantBroken, 0)
	assert.Equal(t, "invariant at most replicas+1 pods", cx.Failure.Property)

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

// randomSchedule draws a schedule from the same generator rapid uses,
// from a seeded PRNG instead.
func randomSchedule(r *rand.Rand, plan properties.Plan, mix faults.Mix) faults.Schedule {
	var s faults.Schedule
	for range r.IntN(plan.Budget.MaxFaults + 1) {
		at := model.Time(r.Int64N(int64(plan.Budget.Horizon) + 1))
		target := plan.Topology.Targets[r.IntN(len(plan.Topology.Targets))]
		switch mix[r.IntN(len(mix))] {
		case faults.KindDrop:
			s = append(s, faults.Timed{At: at, Fault: faults.Drop{Controller: target.Controller, Resource: target.Kinds[r.IntN(len(target.Kinds))]}})
		case faults.KindRestart:
			s = append(s, faults.Timed{At: at, Fault: faults.Restart{Controller: target.Controller, Down: model.Time(1 + r.IntN(int(plan.Budget.MaxDown)))}})
		case faults.KindEdit:
			e := plan.Topology.Edits[r.IntN(len(plan.Topology.Edits))]
			s = append(s, faults.Timed{At: at, Fault: faults.Edit{Target: e, Pick: r.IntN(8), Value: e.Min + r.Int64N(e.Max-e.Min+1)}})
		}
	}
	return s
}

// TestSameSeedSameTrace is the guard against silent nondeterminism (Known
// trap 6): for 100 seeds of every built-in scenario, two runs give
// byte-identical traces.
func TestSameSeedSameTrace(t *testing.T) {
	mix := faults.Mix{faults.KindDrop, faults.KindRestart, faults.KindEdit}
	for _, sc := range scenarios.All() {
		plan, err := properties.PlanFor(sc, mix)
		require.NoError(t, err)
		for seed := range uint64(100) {
			run := func() (string, string) {
				r := rand.New(rand.NewPCG(seed, 7))
				sched := randomSchedule(r, plan, mix)
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
