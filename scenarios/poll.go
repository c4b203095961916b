package scenarios

import (
	"github.com/converge-sim/converge/actors"
	"github.com/converge-sim/converge/examples/broken"
	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
)

// PollGivesUp is the Backup controller that polls its cache inside its
// reconcile for the result it created and, when the poll runs out, forgets
// the Backup (examples/broken.PollsThenGivesUp). Its waits let virtual
// time pass and its cache move (docs/design.md, "A reconcile that waits");
// a fault that holds its own create back longer than the poll leaves the
// Backup undone until a resync: resync-dependent.
func PollGivesUp() properties.Scenario {
	return pollScenario("poll-gives-up", broken.PollsThenGivesUp(),
		"a Backup controller polls its cache inside its reconcile for the result it created and forgets the Backup when the poll runs out; a held-back create leaves it undone until a resync",
		[]properties.Expectation{{Faults: faults.Mix{faults.KindDelay}, Fails: properties.ResyncDependent}})
}

// PollRequeues is PollGivesUp's fix (examples/broken.PollsThenRequeues):
// when its poll runs out it requeues after a few ticks, and converges
// under every faithful fault without a resync.
func PollRequeues() properties.Scenario {
	return pollScenario("poll-requeues", broken.PollsThenRequeues(),
		"the same Backup controller requeuing when its poll runs out; converges under every faithful fault without a resync",
		[]properties.Expectation{{Faults: faithfulHealable}})
}

// pollScenario is two Backups run by ctrl, and a user who deletes a Backup
// and creates it again under the same name, three times: each new Backup
// is a new result to create and poll for.
func pollScenario(name string, ctrl model.Controller, doc string, expect []properties.Expectation) properties.Scenario {
	return properties.Scenario{
		Name:    name,
		Program: Fuzzrun,
		Doc:     doc,
		Build: func(cfg model.Config) (*model.Cluster, error) {
			c := model.NewCluster(cfg)
			if err := addAll(c, []model.Controller{ctrl}, []actorMoves{{&actors.Recreator{Actor: "user", Kind: broken.BackupKind}, 3}}); err != nil {
				return nil, err
			}
			return c, c.Apply(broken.NewBackup("default", "nightly"), broken.NewBackup("default", "weekly"))
		},
		Edits:  []faults.EditTarget{{Resource: broken.BackupKind}, {Resource: broken.BackupKind, Recreate: true}},
		Expect: expect,
	}
}
