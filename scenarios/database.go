package scenarios

import (
	"github.com/converge-sim/converge/actors"
	"github.com/converge-sim/converge/controllers/replicaset"
	"github.com/converge-sim/converge/controllers/statefulset"
	"github.com/converge-sim/converge/controllers/volume"
	"github.com/converge-sim/converge/examples/database"
	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
)

// databaseWorld builds a cluster where the database operator (opts) runs a
// Database pg of two replicas with 1Gi each, on three nodes, over the
// StatefulSet controller and the volume controller; the default
// StorageClass allows volume expansion when expand is set. A user grows
// pg's storage twice.
func databaseWorld(opts database.Options, expand bool) func(model.Config) (*model.Cluster, error) {
	return func(cfg model.Config) (*model.Cluster, error) {
		c := model.NewCluster(cfg)
		volume.Install(c)
		statefulset.Install(c)
		ctrls := append(chainControllers()[1:],
			statefulset.Controller(statefulset.Options{Resync: resyncPeriod}),
			volume.Controller(volume.Options{Resync: resyncPeriod}),
			database.Controller(opts))
		if err := addAll(c, ctrls, []actorMoves{
			{actors.Set{Actor: "resize", Kind: database.Kind, Path: "spec.storage", Values: []any{"2Gi", "3Gi"}}, 2},
		}); err != nil {
			return nil, err
		}
		return c, c.Apply(append(nodes(), volume.NewClass("standard", expand, true), database.New("default", "pg", 2, "1Gi"))...)
	}
}

// databaseEdits are the outside edits faults may make: delete a pod, or
// set pg's storage.
var databaseEdits = []faults.EditTarget{
	{Resource: replicaset.PodKind},
	{Resource: database.Kind, Path: "spec.storage", Values: []any{"2Gi", "4Gi"}},
}

// DatabaseBroken is the database operator with a crash window in its
// resize path: it records "resized to X" in its status before it patches
// the claims, and trusts the record from then on. A restart between the
// two writes leaves the claims small forever.
func DatabaseBroken() properties.Scenario {
	return properties.Scenario{
		Name:    "database-broken",
		Program: Fuzzrun,
		Doc:     "an operator of a StatefulSet with volumes that records a resize in its status before patching the claims; a restart between the writes leaves them small",
		Build:   databaseWorld(database.Options{Resync: resyncPeriod, TrustStatus: true}, true),
		Edits:   databaseEdits,
		// The bug is the operator's: restarts of the scheduler, the
		// kubelets or the StatefulSet controller cannot show it.
		FaultTargets: []string{"database"},
		Expect: []properties.Expectation{
			{Faults: faults.Mix{faults.KindRestart}, Fails: properties.GoalUnmet},
		},
	}
}

// Database is the fixed twin: it compares the wanted size with each
// claim's own request every time, and converges under every healable
// fault.
func Database() properties.Scenario {
	return properties.Scenario{
		Name:    "database",
		Program: Fuzzrun,
		Doc:     "the same operator, level-triggered: it grows each claim whose request is short; converges under every healable fault",
		Build:   databaseWorld(database.Options{Resync: resyncPeriod}, true),
		Edits:   databaseEdits,
		Expect: []properties.Expectation{
			{Faults: faults.Mix{faults.KindRestart}},
			{Faults: Healable},
		},
	}
}

// DatabaseNoExpansion is the fixed operator on a StorageClass that does
// not allow volume expansion: the API server rejects every claim patch,
// and the operator retries it forever.
func DatabaseNoExpansion() properties.Scenario {
	return properties.Scenario{
		Name:    "database-noexpand",
		Program: Fuzzrun,
		Doc:     "the fixed operator on a StorageClass without allowVolumeExpansion: the server rejects the claim patches, retried forever",
		Build:   databaseWorld(database.Options{Resync: resyncPeriod}, false),
		Edits:   databaseEdits,
		Expect: []properties.Expectation{
			{Faults: faults.Mix{}, Fails: properties.RejectedWrites},
		},
	}
}
