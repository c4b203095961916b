package classes

import (
	"slices"

	"github.com/converge-sim/converge/actors"
	"github.com/converge-sim/converge/controllers/replicaset"
	"github.com/converge-sim/converge/examples/broken"
	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
	"github.com/converge-sim/converge/scenarios"
)

// All returns the classes of the core benchmark: the broken controllers
// of examples/broken first, then the catalog rows that must fail, in the
// catalog's order.
func All() []Class {
	all := append(Broken(), Catalog()...)
	for i := range all {
		f := floors[all[i].Name]
		all[i].Floor, all[i].Pinned = f.floor, f.pinned
	}
	return all
}

// Broken returns a class per broken controller of examples/broken that a
// catalog scenario does not already run (PollsThenGivesUp and
// DeletesByName are catalog rows). A controller exposed by a fault runs
// under every healable fault its world supports (the whole mix a user
// would declare: Healable, without edit where the world has no edit
// targets), not only the kind its doc comment names; one that breaks a
// property with no fault runs with none, as its property's test declares.
func Broken() []Class {
	reference := func(name string, ctrl model.Controller) properties.Scenario {
		return properties.Scenario{Name: name, Build: quietWorld(ctrl)}
	}
	stale := reference("short-expectations", broken.ShortExpectations())
	stale.Invariants = []properties.Invariant{atMostOneExtra}
	unmapped := reference("unmapped-pods", broken.UnmappedPods())
	unmapped.Edits = []faults.EditTarget{{Resource: replicaset.PodKind}}
	withResync := replicaset.Level(replicaset.LevelOptions{Resync: 20, Expectations: true})

	cs := []Class{
		{Name: "swallows-errors", Scenario: reference("swallows-errors", broken.SwallowsErrors()), Fails: properties.GoalUnmet},
		{Name: "max-retries", Scenario: reference("max-retries", broken.MaxRetries()), Fails: properties.GoalUnmet},
		{Name: "short-expectations", Scenario: stale, Fails: properties.InvariantBroken},
		{Name: "unmapped-pods", Scenario: unmapped, Fails: properties.GoalUnmet},
		{Name: "record-keeper", Scenario: reference("record-keeper", broken.RecordKeeper()), Fails: properties.GoalUnmet},
		{Name: "first-seen-primary", Scenario: properties.Scenario{Name: "first-seen-primary", Build: primaryWorld(broken.FirstSeenPrimary())}, Fails: properties.GoalUnmet},
		{Name: "ignores-conflicts", Scenario: reference("ignores-conflicts", broken.IgnoresConflicts()), Fails: properties.ResyncDependent},
	}
	for i := range cs {
		cs[i].Faults = HealableFor(cs[i].Scenario)
	}
	return append(cs,
		Class{Name: "mutates-cache", Scenario: properties.Scenario{Name: "mutates-cache", Build: worldOf(false, withResync, broken.MutatesCache())}, Fails: properties.CacheMutation},
		Class{Name: "blind-writer", Scenario: properties.Scenario{Name: "blind-writer", Build: worldOf(true, broken.BlindWriter())}, Fails: properties.LostUpdate},
		Class{Name: "ping-pong", Scenario: properties.Scenario{Name: "ping-pong", Build: worldOf(false, broken.PingPong()...)}, Fails: properties.NoFixedPoint},
		Class{Name: "waits-with-errors", Scenario: properties.Scenario{Name: "waits-with-errors", Build: broken.GateWorld(broken.WaitsWithErrors()), ConvergeWithin: 2 * broken.PollInterval}, Fails: properties.SlowConvergence},
	)
}

// Catalog returns a class per catalog row that must fail: the scenario
// under the mix the row declares, named scenario/mix.
func Catalog() []Class {
	var cs []Class
	for _, sc := range scenarios.All() {
		for _, e := range sc.Expect {
			if e.Fails == "" {
				continue
			}
			cs = append(cs, Class{Name: sc.Name + "/" + e.Faults.String(), Scenario: sc, Faults: e.Faults, Fails: e.Fails})
		}
	}
	return cs
}

// HealableFor is the whole mix a scenario whose bug a fault exposes is
// declared against: every healable fault (scenarios.Healable), without
// edit when the scenario has no edit targets.
func HealableFor(sc properties.Scenario) faults.Mix {
	mix := slices.Clone(scenarios.Healable)
	if len(sc.Edits) == 0 {
		mix = slices.DeleteFunc(mix, func(k faults.Kind) bool { return k == faults.KindEdit })
	}
	return mix
}

// quietWorld is one ReplicaSet web with 3 replicas run by ctrl, and no
// outside actors: every outside change comes from the faults.
func quietWorld(ctrl model.Controller) func(model.Config) (*model.Cluster, error) {
	return func(cfg model.Config) (*model.Cluster, error) {
		c := model.NewCluster(cfg)
		if err := c.AddController(ctrl); err != nil {
			return nil, err
		}
		return c, c.Apply(replicaset.New("default", "web", 3))
	}
}

// primaryWorld creates two ReplicaSets one tick apart, old then new.
func primaryWorld(ctrl model.Controller) func(model.Config) (*model.Cluster, error) {
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

// worldOf runs the controllers over one ReplicaSet web with 3 replicas,
// with a user who rescales it when rescale is set.
func worldOf(rescale bool, ctrls ...model.Controller) func(model.Config) (*model.Cluster, error) {
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

// atMostOneExtra is "at most replicas+1 pods per ReplicaSet".
var atMostOneExtra = properties.AtMostPerOwner(replicaset.PodKind, replicaset.Kind, func(rs *model.Object) int64 {
	return rs.Spec.Int("replicas") + 1
})
