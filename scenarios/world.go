package scenarios

import (
	"github.com/converge-sim/converge/controllers/disruption"
	"github.com/converge-sim/converge/controllers/node"
	"github.com/converge-sim/converge/controllers/replicaset"
	"github.com/converge-sim/converge/model"
)

// actorMoves is an actor and how many times it may act.
type actorMoves struct {
	actor model.Actor
	moves int
}

// addAll adds controllers and actors to c, stopping at the first error.
func addAll(c *model.Cluster, ctrls []model.Controller, as []actorMoves) error {
	for _, ctrl := range ctrls {
		if err := c.AddController(ctrl); err != nil {
			return err
		}
	}
	for _, a := range as {
		if err := c.AddActor(a.actor, a.moves); err != nil {
			return err
		}
	}
	return nil
}

// chainControllers are the controllers under every Deployment: the
// ReplicaSet controller with expectations, the scheduler, a kubelet per
// node and the node lifecycle controller.
func chainControllers() []model.Controller {
	ctrls := []model.Controller{
		replicaset.Level(replicaset.LevelOptions{Resync: resyncPeriod, Expectations: true}),
		node.Scheduler(),
		node.Lifecycle(),
	}
	for _, n := range nodeNames {
		ctrls = append(ctrls, node.Kubelet(n))
	}
	return ctrls
}

func drainController() model.Controller      { return node.Drain() }
func disruptionController() model.Controller { return disruption.Controller() }

func budget(namespace, name, app string, minAvailable int64) *model.Object {
	return disruption.New(namespace, name, app, minAvailable)
}

// nodes returns the scenario's nodes, ready.
func nodes() []*model.Object {
	var out []*model.Object
	for _, n := range nodeNames {
		out = append(out, node.New(n))
	}
	return out
}
