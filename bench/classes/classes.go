package classes

import (
	"slices"

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
// would declare: Healable; where the world declares no edit targets, its
// edits delete the children the controllers made), not only the kind its
// doc comment names, which is its targeted mix (Class.Targeted); one that
// breaks a property with no fault runs with none, as its property's test
// declares.
func Broken() []Class {
	reference := func(name string, ctrl model.Controller) properties.Scenario {
		return properties.Scenario{Name: name, Build: broken.QuietWorld(ctrl)}
	}
	stale := reference("short-expectations", broken.ShortExpectations())
	stale.Invariants = []properties.Invariant{atMostOneExtra}
	unmapped := reference("unmapped-pods", broken.UnmappedPods())
	unmapped.Edits = []faults.EditTarget{{Resource: replicaset.PodKind}}
	withResync := replicaset.Level(replicaset.LevelOptions{Resync: 20, Expectations: true})

	cs := []Class{
		{Name: "swallows-errors", Scenario: reference("swallows-errors", broken.SwallowsErrors()), Fails: properties.GoalUnmet, Targeted: only(faults.KindAPIError)},
		{Name: "max-retries", Scenario: reference("max-retries", broken.MaxRetries()), Fails: properties.GoalUnmet, Targeted: only(faults.KindPartition)},
		{Name: "short-expectations", Scenario: stale, Fails: properties.InvariantBroken, Targeted: only(faults.KindStale)},
		{Name: "unmapped-pods", Scenario: unmapped, Fails: properties.GoalUnmet, Targeted: only(faults.KindEdit)},
		{Name: "record-keeper", Scenario: reference("record-keeper", broken.RecordKeeper()), Fails: properties.GoalUnmet, Targeted: only(faults.KindRestart)},
		{Name: "first-seen-primary", Scenario: properties.Scenario{Name: "first-seen-primary", Build: broken.PrimaryWorld(broken.FirstSeenPrimary())}, Fails: properties.GoalUnmet, Targeted: only(faults.KindDelay)},
		{Name: "ignores-conflicts", Scenario: reference("ignores-conflicts", broken.IgnoresConflicts()), Fails: properties.ResyncDependent, Targeted: only(faults.KindAPIError)},
	}
	for i := range cs {
		cs[i].Faults = HealableFor(cs[i].Scenario)
	}
	return append(cs,
		Class{Name: "mutates-cache", Scenario: properties.Scenario{Name: "mutates-cache", Build: broken.ReplicaSetWorld(false, withResync, broken.MutatesCache())}, Fails: properties.CacheMutation},
		Class{Name: "blind-writer", Scenario: properties.Scenario{Name: "blind-writer", Build: broken.ReplicaSetWorld(true, broken.BlindWriter())}, Fails: properties.LostUpdate},
		Class{Name: "ping-pong", Scenario: properties.Scenario{Name: "ping-pong", Build: broken.ReplicaSetWorld(false, broken.PingPong()...)}, Fails: properties.NoFixedPoint},
		Class{Name: "waits-with-errors", Scenario: properties.Scenario{Name: "waits-with-errors", Build: broken.GateWorld(broken.WaitsWithErrors()), ConvergeWithin: 2 * broken.PollInterval}, Fails: properties.SlowConvergence},
	)
}

// only is the targeted mix of one kind.
func only(k faults.Kind) faults.Mix { return faults.Mix{k} }

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
// declared against: every healable fault (scenarios.Healable). A scenario
// that declares no edit targets is edited too: its edits delete children
// its controllers made (faults.OwnedChildren, which Prepare gives it;
// docs/design.md, "Faults", "Edits of the children controllers make").
func HealableFor(properties.Scenario) faults.Mix {
	return slices.Clone(scenarios.Healable)
}

// atMostOneExtra is "at most replicas+1 pods per ReplicaSet".
var atMostOneExtra = properties.AtMostPerOwner(replicaset.PodKind, replicaset.Kind, func(rs *model.Object) int64 {
	return rs.Spec.Int("replicas") + 1
})
