package properties_test

import (
	"fmt"

	"github.com/converge-sim/converge/actors"
	"github.com/converge-sim/converge/controllers/replicaset"
	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
)

// A controller author's own property test: declare the world (objects,
// controllers, outside actors), pick faults, and let the search look for a
// schedule under which the controller does not converge. In a Go test,
// properties.Check(t, sc, mix) runs the same search and fails the test with
// the report, ending with the go test line that replays it.
func Example() {
	sc := properties.Scenario{
		Name: "my-replicaset",
		// The program that replays a finding: one that calls
		// fuzzrun.Main(sc), run from the module root.
		Program: "go run ./cmd/mycheck",
		Build: func(cfg model.Config) (*model.Cluster, error) {
			c := model.NewCluster(cfg)
			if err := c.AddController(replicaset.Edge("my-controller")); err != nil {
				return nil, err
			}
			if err := c.AddActor(actors.Killer{Kind: replicaset.PodKind}, 2); err != nil {
				return nil, err
			}
			return c, c.Apply(replicaset.New("default", "web", 3))
		},
	}
	res, err := properties.Search(sc, faults.Mix{faults.KindDrop}, properties.SearchOptions{Checks: 100, Seed: 1})
	if err != nil {
		panic(err)
	}
	cx := res.Counterexample
	fmt.Println(cx.Failure.Verdict, "with", len(cx.Schedule), "fault")
	fmt.Println(cx.Failure.Details[0])
	// Output:
	// goal-unmet with 1 fault
	// ReplicaSet default/web wants 3 pods, has 2 (goal of my-controller)
}
