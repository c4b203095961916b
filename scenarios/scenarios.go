// Package scenarios is the built-in catalog: scenarios that demonstrate
// what converge shows, each with what it must show under which faults.
// `fuzzrun` runs them; their tests check every expectation.
package scenarios

import (
	"github.com/converge-sim/converge/actors"
	"github.com/converge-sim/converge/controllers/replicaset"
	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
)

// All returns the built-in scenarios in the order `fuzzrun -list` shows.
func All() []properties.Scenario {
	return []properties.Scenario{ReplicaSetLevel(), ReplicaSetNoResync(), ReplicaSetEdge()}
}

// ByName returns the built-in scenario with this name.
func ByName(name string) (properties.Scenario, bool) {
	for _, sc := range All() {
		if sc.Name == name {
			return sc, true
		}
	}
	return properties.Scenario{}, false
}

// resyncPeriod is the reference controllers' resync period, in ticks.
const resyncPeriod = 20

// replicaSetEdits are the outside edits faults may make around a
// ReplicaSet: delete a pod, or set spec.replicas.
var replicaSetEdits = []faults.EditTarget{
	{Resource: replicaset.PodKind},
	{Resource: replicaset.Kind, Field: "replicas", Min: 0, Max: 5},
}

// replicaSetWorld builds a cluster running ctrl over one ReplicaSet web
// with 3 replicas, a user who rescales it twice and a chaos actor who
// deletes two pods.
func replicaSetWorld(ctrl model.Controller) func(cfg model.Config) (*model.Cluster, error) {
	return func(cfg model.Config) (*model.Cluster, error) {
		c := model.NewCluster(cfg)
		if err := c.AddController(ctrl); err != nil {
			return nil, err
		}
		if err := c.AddActor(actors.Scaler{Kind: replicaset.Kind, Field: "replicas", Min: 0, Max: 5}, 2); err != nil {
			return nil, err
		}
		if err := c.AddActor(actors.Killer{Kind: replicaset.PodKind}, 2); err != nil {
			return nil, err
		}
		if err := c.Apply(replicaset.New("default", "web", 3)); err != nil {
			return nil, err
		}
		return c, nil
	}
}

// ReplicaSetLevel is the level-triggered ReplicaSet controller with resync:
// it converges under every mix of drop, restart and edit.
func ReplicaSetLevel() properties.Scenario {
	return properties.Scenario{
		Name:  "replicaset-level",
		Doc:   "level-triggered ReplicaSet controller with resync; converges under drop, restart and edit",
		Build: replicaSetWorld(replicaset.Level(replicaset.LevelOptions{Resync: resyncPeriod})),
		Edits: replicaSetEdits,
		Expect: []properties.Expectation{
			{Faults: faults.Mix{faults.KindDrop}},
			{Faults: faults.Mix{faults.KindRestart}},
			{Faults: faults.Mix{faults.KindEdit}},
			{Faults: faults.Mix{faults.KindDrop, faults.KindRestart, faults.KindEdit}},
		},
	}
}

// ReplicaSetNoResync is the same controller without resync: a dropped
// notification that nothing follows leaves it diverged for good.
func ReplicaSetNoResync() properties.Scenario {
	return properties.Scenario{
		Name:  "replicaset-noresync",
		Doc:   "level-triggered ReplicaSet controller without resync; a dropped notification nothing follows leaves it diverged",
		Build: replicaSetWorld(replicaset.Level(replicaset.LevelOptions{Name: "replicaset-noresync"})),
		Edits: replicaSetEdits,
		Expect: []properties.Expectation{
			{Faults: faults.Mix{faults.KindDrop}, Fails: properties.GoalUnmet},
		},
	}
}

// ReplicaSetEdge is the edge-triggered twin: it acts on deltas and counts
// in memory, and fails under drop and under restart.
func ReplicaSetEdge() properties.Scenario {
	return properties.Scenario{
		Name:  "replicaset-edge",
		Doc:   "edge-triggered ReplicaSet controller counting in memory; fails under drop and under restart",
		Build: replicaSetWorld(replicaset.Edge("replicaset-edge")),
		Edits: replicaSetEdits,
		Expect: []properties.Expectation{
			{Faults: faults.Mix{faults.KindDrop}, Fails: properties.GoalUnmet},
			{Faults: faults.Mix{faults.KindRestart}, Fails: properties.GoalUnmet},
		},
	}
}
