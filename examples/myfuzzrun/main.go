// Command myfuzzrun is what a team with its own controllers writes to get
// the fuzzrun command line for them: declare scenarios, hand them to
// fuzzrun.Main. Every flag works as for cmd/fuzzrun: campaigns, workers,
// shards, findings and replay.
//
//	go run ./examples/myfuzzrun                     # a 10 s campaign
//	go run ./examples/myfuzzrun -strategy pct -runs 300
//	go run ./examples/myfuzzrun -out findings
//	go run ./examples/myfuzzrun -replay findings/finding-my-singleton-invariant-….json
//
// The scenario stands in for yours: a ReplicaSet of one replica under the
// reference level-triggered controller without expectations, with chaos
// deleting its pod. The controller reconciles on a cache that has not
// seen its own create yet and makes more pods than it should, which the
// invariant catches. The bug needs one informer starved while the
// controller runs twice, which the pct strategy is good at: with -runs 300,
// pct fails on 13 seeds, the first of them seed 4; random on none (its
// first failing seed is 556).
package main

import (
	"github.com/converge-sim/converge/actors"
	"github.com/converge-sim/converge/controllers/replicaset"
	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/fuzzrun"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
)

func main() {
	fuzzrun.Main(singleton())
}

func singleton() properties.Scenario {
	return properties.Scenario{
		Name:    "my-singleton",
		Program: "go run ./examples/myfuzzrun",
		Doc:     "one replica, chaos deleting its pod, no expectations: over-creates on a stale cache",
		Build: func(cfg model.Config) (*model.Cluster, error) {
			c := model.NewCluster(cfg)
			if err := c.AddController(replicaset.Level(replicaset.LevelOptions{Name: "my-controller", Resync: 20})); err != nil {
				return nil, err
			}
			if err := c.AddActor(actors.Killer{Kind: replicaset.PodKind}, 2); err != nil {
				return nil, err
			}
			return c, c.Apply(replicaset.New("default", "web", 1))
		},
		Invariants: []properties.Invariant{
			properties.AtMostPerOwner(replicaset.PodKind, replicaset.Kind, func(rs *model.Object) int64 {
				return rs.Spec.Int("replicas") + 1
			}),
		},
		Expect: []properties.Expectation{
			{Faults: faults.Mix{faults.KindRestart}, Fails: properties.InvariantBroken},
		},
	}
}
