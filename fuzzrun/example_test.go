package fuzzrun_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/converge-sim/converge/fuzzrun"
	"github.com/converge-sim/converge/properties"
	"github.com/converge-sim/converge/scenarios"
)

// myScenarios stands for a program's own scenarios.
func myScenarios() []properties.Scenario { return scenarios.All() }

// A program's whole main: Main gives it fuzzrun's command line over its
// own scenarios (examples/myfuzzrun is one such program). Main exits, so
// this example is compiled, not run.
func Example() {
	fuzzrun.Main(myScenarios()...)
}

// A test binary that runs campaigns through Run with more than one worker
// calls ServeIfWorker first in its TestMain, since its workers are the test
// binary re-executed.
func ExampleServeIfWorker() {
	testMain := func(m *testing.M) {
		fuzzrun.ServeIfWorker(myScenarios()...)
		os.Exit(m.Run())
	}
	_ = testMain // func TestMain(m *testing.M) in a _test.go file
}

// A finding file becomes a one-line regression test, which fails while the
// bug is there.
func ExampleRequireFixed() {
	testEdgeIsFixed := func(t *testing.T) {
		fuzzrun.RequireFixed(t, "testdata/finding-replicaset-edge-goal-unmet-6122bddfe348.json", myScenarios()...)
	}
	_ = testEdgeIsFixed // func TestEdgeIsFixed(t *testing.T) in a _test.go file
}

// Fixed says why a finding's bug is still there: here the recorded run of
// the edge-triggered ReplicaSet controller fails again. (The report goes on
// with the diagnosis and the fault schedule.)
func ExampleFixed() {
	err := fuzzrun.Fixed("testdata/finding-replicaset-edge-goal-unmet-6122bddfe348.json", myScenarios()...)
	report, _, _ := strings.Cut(err.Error(), "diagnosis:")
	fmt.Print(report)
	// Output:
	// testdata/finding-replicaset-edge-goal-unmet-6122bddfe348.json: the bug is still there: the recorded run fails again:
	// converges violated (goal-unmet) at step 9, t=60: the cluster is at a fixed point but a goal is unmet
	//   ReplicaSet default/web wants 3 pods, has 6 (goal of replicaset-edge)
}
