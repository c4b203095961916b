// Package classes is the controller-runtime half of converge's benchmark
// of bug classes (bench/classes in the core module, docs/design.md "A
// benchmark of bug classes"): the bug of every example project here, each
// searched under the whole fault mix it is declared against with default
// settings, over 20 seeds as the core table.
//
// Regenerate its table with
//
//	go test ./examples/classes -run TestClassTable -v -converge.classes -timeout 0
//
// from the controllerruntime module's root.
package classes

import (
	"github.com/converge-sim/converge/bench/classes"
	"github.com/converge-sim/converge/controllerruntime/examples/applyfight"
	"github.com/converge-sim/converge/controllerruntime/examples/cronjob"
	"github.com/converge-sim/converge/controllerruntime/examples/gateway"
	"github.com/converge-sim/converge/controllerruntime/examples/kvstore"
	"github.com/converge-sim/converge/controllerruntime/examples/memcached"
	"github.com/converge-sim/converge/controllerruntime/examples/replicaset"
	"github.com/converge-sim/converge/controllerruntime/examples/schemaops"
	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/properties"
)

// All returns a class per bug of the example projects. A bug a fault
// exposes runs under every healable fault its world supports
// (classes.HealableFor), and its targeted mix is the one its example's
// tests search (Class.Targeted); a bug shown with no fault runs with
// none, as its example's test declares. The projects that read the clock run in a
// synctest bubble, as their tests do.
func All() ([]classes.Class, error) {
	cronConv, err := cronjob.Converter()
	if err != nil {
		return nil, err
	}
	rsConv, err := replicaset.Converter()
	if err != nil {
		return nil, err
	}
	mcConv, err := memcached.Converter()
	if err != nil {
		return nil, err
	}
	afConv, err := applyfight.Converter()
	if err != nil {
		return nil, err
	}
	kw, err := kvstore.NewWorld()
	if err != nil {
		return nil, err
	}
	gw, err := gateway.NewWorld()
	if err != nil {
		return nil, err
	}
	sw, err := schemaops.NewWorld()
	if err != nil {
		return nil, err
	}

	generateName := replicaset.Scenario("replicaset-generatename", rsConv, replicaset.Options{GenerateName: true})
	generateName.Invariants = []properties.Invariant{replicaset.AtMostOneExtraPod(rsConv)}
	byFault := func(c classes.Class) classes.Class {
		c.Faults = classes.HealableFor(c.Scenario)
		return c
	}
	all := []classes.Class{
		byFault(classes.Class{Name: "cronjob", Scenario: cronjob.Scenario("cronjob", cronConv, cronjob.Options{NameByCreationTime: true}), Fails: properties.InvariantBroken, Bubble: true, Targeted: faults.Mix{faults.KindDelay}}),
		byFault(classes.Class{Name: "replicaset-generatename", Scenario: generateName, Fails: properties.InvariantBroken, Targeted: faults.Mix{faults.KindDrop, faults.KindRestart}}),
		byFault(classes.Class{Name: "memcached-forget-owns", Scenario: memcached.Scenario("memcached-forget-owns", mcConv, memcached.Options{ForgetOwns: true}), Fails: properties.GoalUnmet, Bubble: true, Targeted: faults.Mix{faults.KindEdit}}),
		byFault(classes.Class{Name: "replacing-sync", Scenario: sw.SyncScenario("replacing-sync", true), Fails: properties.GoalUnmet, Targeted: faults.Mix{faults.KindRestart}}),
		{Name: "apply-fight", Scenario: applyfight.Scenario("apply-fight", afConv, applyfight.Options{DeclareReplicas: true}), Fails: properties.Fight},
		{Name: "apply-no-force", Scenario: applyfight.Scenario("apply-no-force", afConv, applyfight.Options{DeclareReplicas: true, NoForce: true}), Fails: properties.RejectedWrites},
		{Name: "batch-uncapped", Scenario: sw.BatchScenario("batch-uncapped", false, true), Fails: properties.RejectedWrites},
		{Name: "sync-update", Scenario: sw.SyncScenario("sync-update", false), Fails: properties.RejectedWrites},
		{Name: "kvstore-stale-scaledown", Scenario: kvstore.Scenario("kvstore-stale-scaledown", kw, kvstore.Options{StaleOnScaleDown: true}), Fails: properties.HistoryDependent, Bubble: true},
		{Name: "kvstore-stale-loglevel", Scenario: kvstore.Scenario("kvstore-stale-loglevel", kw, kvstore.Options{KeepsRemovedLogLevel: true}), Fails: properties.HistoryDependent, Bubble: true},
		{Name: "gateway-nil-secret", Scenario: gateway.Scenario("gateway-nil-secret", gw, gateway.Options{DerefsSecretName: true}), Fails: properties.ControllerPanic, Bubble: true},
	}
	for i := range all {
		f := floors[all[i].Name]
		all[i].Floor, all[i].Pinned = f.floor, f.pinned
	}
	return all, nil
}

// floor is a class's floor and pinned seeds (Class.Floor, Class.Pinned).
type floor struct {
	floor  int
	pinned []uint64
}

// floors are set from the 20-seed table of BENCHMARKS.md ("Bug classes")
// with a margin: three quarters of the seeds that found the bug, rounded
// down, but at least one when any did; the pinned seed is the one that
// found it in the fewest runs. A change to the draws moves them all:
// regenerate the table and set them again.
var floors = map[string]floor{
	"cronjob":                 {floor: 15, pinned: []uint64{2, 19}}, // 20/20; pinned seed 2 found it at run 9, seed 19 at run 15 (the child's late Job event delayed, drawn delayDraws more times)
	"replicaset-generatename": {floor: 15, pinned: []uint64{1}},     // 20/20; pinned seed found it at run 1
	"memcached-forget-owns":   {floor: 15, pinned: []uint64{4}},     // 20/20; pinned seed found it at run 1
	"replacing-sync":          {floor: 15, pinned: []uint64{7}},     // 20/20; pinned seed found it at run 2
	"apply-fight":             {floor: 15, pinned: []uint64{1}},     // 20/20; pinned seed found it at run 1
	"apply-no-force":          {floor: 15, pinned: []uint64{1}},     // 20/20; pinned seed found it at run 1
	"batch-uncapped":          {floor: 15, pinned: []uint64{1}},     // 20/20; pinned seed found it at run 1
	"sync-update":             {floor: 15, pinned: []uint64{1}},     // 20/20; pinned seed found it at run 1
	"kvstore-stale-scaledown": {floor: 15, pinned: []uint64{3}},     // 20/20; pinned seed found it at run 1
	"kvstore-stale-loglevel":  {floor: 15, pinned: []uint64{6}},     // 20/20; pinned seed found it at run 1
	"gateway-nil-secret":      {floor: 15, pinned: []uint64{8}},     // 20/20; pinned seed found it at run 1
}
