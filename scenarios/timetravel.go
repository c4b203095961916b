package scenarios

import (
	"github.com/converge-sim/converge/actors"
	"github.com/converge-sim/converge/examples/broken"
	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
)

// faithfulHealable is every faithful fault kind that heals at quiescence
// (Healable but drop): what a controller that needs no resync must
// converge under.
var faithfulHealable, _ = Healable.Split()

// TimeTravel is the App controller that deletes an App's volumes by name
// when it sees the App deleting (examples/broken.DeletesByName), while a
// user deletes the App and creates it again under the same name. Relisted
// from a server behind, it sees the old App's deletion timestamp and
// deletes the new App's volumes. It converges, since it recreates them;
// the invariant that a live App's volumes are never deleted by its own
// controller (their data cannot be recreated) is what breaks.
func TimeTravel() properties.Scenario {
	return appScenario("timetravel", broken.DeletesByName(),
		"an App controller deletes volumes by name on a deletion timestamp; relisted from a server behind, it deletes a recreated App's volumes (invariant broken)",
		[]properties.Expectation{{Faults: faults.Mix{faults.KindTimeTravel}, Fails: properties.InvariantBroken}})
}

// TimeTravelFixed is TimeTravel's fix (examples/broken.ChecksVolumeOwner):
// it deletes only volumes owned by the App it saw, with their UID as a
// precondition, and keeps the invariant under every faithful fault.
func TimeTravelFixed() properties.Scenario {
	return appScenario("timetravel-fixed", broken.ChecksVolumeOwner(),
		"the same App controller checking each volume's owner UID and deleting with a UID precondition; keeps every volume of a live App under every faithful fault",
		[]properties.Expectation{{Faults: faults.Mix{faults.KindTimeTravel}}, {Faults: faithfulHealable}})
}

// TimeTravelFar is TimeTravel with an App controller that sets each new
// App up in examples/broken.SetupSteps status writes before it creates its
// volumes (examples/broken.DeletesByNameAfterSetup): the old App's
// deletion timestamp is then more than 48 versions behind by the time a
// recreated App has volumes, as in a real operator's stale-state bug. A
// time travel of at most 12 versions, the earlier draw, never finds it;
// a distance over the whole history, or a landmark, does.
func TimeTravelFar() properties.Scenario {
	return appScenario("timetravel-far", broken.DeletesByNameAfterSetup(),
		"the App controller deleting volumes by name, after a setup of 50 writes per App; only a time travel more than 48 versions back deletes a recreated App's volumes (invariant broken)",
		[]properties.Expectation{{Faults: faults.Mix{faults.KindTimeTravel}, Fails: properties.InvariantBroken}})
}

// TimeTravelFarFixed is TimeTravelFar's fix
// (examples/broken.ChecksVolumeOwnerAfterSetup), which keeps the invariant
// under time travel however far back.
func TimeTravelFarFixed() properties.Scenario {
	return appScenario("timetravel-far-fixed", broken.ChecksVolumeOwnerAfterSetup(),
		"the same App controller with a setup of 50 writes, checking each volume's owner UID and deleting with a UID precondition; keeps every volume of a live App under time travel",
		[]properties.Expectation{{Faults: faults.Mix{faults.KindTimeTravel}}})
}

// appScenario is one App db with two volumes run by ctrl, and a user who
// deletes the App and, once it is gone, creates it again (same name, new
// UID), twice: actors.Recreator, as `kubectl replace --force` or a GitOps
// tool re-creating an object do.
func appScenario(name string, ctrl model.Controller, doc string, expect []properties.Expectation) properties.Scenario {
	return properties.Scenario{
		Name:    name,
		Program: Fuzzrun,
		Doc:     doc,
		Build: func(cfg model.Config) (*model.Cluster, error) {
			c := model.NewCluster(cfg)
			if err := addAll(c, []model.Controller{ctrl}, []actorMoves{{&actors.Recreator{Actor: "user", Kind: broken.AppKind}, 4}}); err != nil {
				return nil, err
			}
			return c, c.Apply(broken.NewApp("default", "db", 2))
		},
		Edits: []faults.EditTarget{{Resource: broken.VolumeKind}, {Resource: broken.AppKind, Recreate: true}},
		Monitors: func(c *model.Cluster) []properties.Invariant {
			kept := broken.AppVolumesKept(c, ctrl.Name)
			return []properties.Invariant{{Name: "a live App's volumes are never deleted by its controller", Check: kept.Check, Fingerprint: kept.Fingerprint}}
		},
		Expect: expect,
	}
}
