package broken

import (
	"github.com/converge-sim/converge/actors"
	"github.com/converge-sim/converge/controllers/replicaset"
	"github.com/converge-sim/converge/model"
)

// The worlds the broken controllers are tried in, shared by the property
// tests and the class benchmark (bench/classes), so that both measure the
// same world.

// QuietWorld is one ReplicaSet web with 3 replicas run by ctrl, and no
// outside actors: every outside change comes from the faults under test.
func QuietWorld(ctrl model.Controller) func(model.Config) (*model.Cluster, error) {
	return ReplicaSetWorld(false, ctrl)
}

// ReplicaSetWorld runs ctrls over one ReplicaSet web with 3 replicas, with
// a user who rescales it (0 to 5) when rescale is set.
func ReplicaSetWorld(rescale bool, ctrls ...model.Controller) func(model.Config) (*model.Cluster, error) {
	return func(cfg model.Config) (*model.Cluster, error) {
		c := model.NewCluster(cfg)
		for _, ctrl := range ctrls {
			if err := c.AddController(ctrl); err != nil {
				return nil, err
			}
		}
		if rescale {
			if err := c.AddActor(actors.Scaler{Kind: replicaset.Kind, Field: "replicas", Min: 0, Max: 5}, 2); err != nil {
				return nil, err
			}
		}
		return c, c.Apply(replicaset.New("default", "web", 3))
	}
}

// PrimaryWorld runs ctrl while a user creates two ReplicaSets one tick
// apart, old then new, with no replicas.
func PrimaryWorld(ctrl model.Controller) func(model.Config) (*model.Cluster, error) {
	return func(cfg model.Config) (*model.Cluster, error) {
		c := model.NewCluster(cfg)
		if err := c.AddController(ctrl); err != nil {
			return nil, err
		}
		for i, name := range []string{"old", "new"} {
			rs := replicaset.New("default", name, 0)
			c.At(model.Time(i+1), "user", "create "+name, func() { _ = c.Outside("user").Create(rs) })
		}
		return c, nil
	}
}
