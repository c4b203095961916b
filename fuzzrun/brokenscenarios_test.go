package fuzzrun_test

import (
	"sync/atomic"
	"time"

	"github.com/converge-sim/converge/controllers/replicaset"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
)

// testScenarios are the broken scenarios of these tests, which the test
// binary serves besides the built-in ones, as a worker or as fuzzrun.
func testScenarios() []properties.Scenario {
	return []properties.Scenario{hanging(), crashing(), spinning(), allocating(), panickingGoroutine(), warmingUp(), printing(), printingIdle(), garbling(), closing(), ignoresConflicts()}
}

// spinning loops for good in a reconcile: the run's time limit catches it
// inside the worker.
func spinning() properties.Scenario {
	sc := broken("spinning", spinForever)
	sc.RunTimeout = 300 * time.Millisecond
	return sc
}

func spinForever() {
	//lint:ignore SA5002 the spin is the bug this scenario plants
	for {
	}
}

// allocating holds ever more memory from a reconcile.
func allocating() properties.Scenario { return broken("allocating", allocateForever) }

var hoard [][]byte

func allocateForever() {
	for {
		hoard = append(hoard, make([]byte, 16<<20))
	}
}

// panickingGoroutine panics in a goroutine of its own, which no recover
// in the model can catch: the process dies.
func panickingGoroutine() properties.Scenario {
	return broken("panicking-goroutine", func() { go panicOutsideTheModel() })
}

func panicOutsideTheModel() { panic("boom outside the model") }

// warmingUp is the level-triggered ReplicaSet controller with a
// process-wide "cache" the model knows nothing of: the first reconcile
// in a process only warms it up and asks to come back later, every later
// one does the work. Two runs of the same choices in one process differ.
func warmingUp() properties.Scenario {
	var warm atomic.Bool
	ctrl := replicaset.Level(replicaset.LevelOptions{Name: "warming-up", Resync: 20})
	inner := ctrl.NewReconciler
	ctrl.NewReconciler = func(c model.Client) model.Reconciler {
		r := inner(c)
		return model.ReconcilerFunc(func(req model.Request) (model.Result, error) {
			if !warm.Swap(true) {
				return model.Result{RequeueAfter: 7}, nil
			}
			return r.Reconcile(req)
		})
	}
	sc := broken("warming-up", func() {})
	sc.Build = worldOf(ctrl)
	return sc
}
