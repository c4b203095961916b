package faults_test

import (
	"fmt"

	"github.com/converge-sim/converge/controllers/replicaset"
	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
)

// The smallest use, as the package comment shows it: draw a schedule for a
// cluster and inject it. Inside a rapid property the schedule is drawn with
// Draw(t, "faults") instead of Example(seed), so that rapid shrinks it.
func Example() {
	cluster := model.NewCluster(model.Config{})
	if err := cluster.AddController(replicaset.Edge("rs")); err != nil {
		panic(err)
	}
	if err := cluster.Apply(replicaset.New("default", "web", 2)); err != nil {
		panic(err)
	}
	if err := cluster.Start(); err != nil {
		panic(err)
	}

	topo := faults.TopologyOf(cluster, nil, nil)
	sched := faults.Schedules(faults.Mix{faults.KindDrop}, topo, faults.Budget{MaxFaults: 2, Horizon: 60, MaxDown: 10}).Example(6)
	timers := sched.Inject(cluster)

	fmt.Println(topo.Targets)
	fmt.Println(sched)
	fmt.Println(len(timers), "timers")
	// Output:
	// [{rs [Pod ReplicaSet]}]
	// t=0 drop the next ReplicaSet notification to rs; t=1 drop the next Pod notification to rs
	// 2 timers
}

// A schedule is data: it can be written by hand, and it prints as the
// reports and finding files show it.
func ExampleSchedule() {
	sched := faults.Schedule{
		{At: 5, Fault: faults.Drop{Controller: "rs", Resource: "Pod"}},
		{At: 12, Fault: faults.Restart{Controller: "rs", Down: 3}},
	}
	fmt.Println(sched)
	fmt.Println(sched.Class())
	// Output:
	// t=5 drop the next Pod notification to rs; t=12 restart rs (down 3 ticks)
	// adversarial
}
