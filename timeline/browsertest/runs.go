package browsertest

import (
	"fmt"

	"github.com/converge-sim/converge/actors"
	"github.com/converge-sim/converge/controllers/replicaset"
	"github.com/converge-sim/converge/examples/broken"
	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
	"github.com/converge-sim/converge/scenarios"
	"github.com/converge-sim/converge/timeline"
)

// Golden is one of the counterexamples whose diagnosis the core module
// pins in scenarios/testdata/diagnosis.
type Golden struct {
	Scenario string
	Faults   faults.Mix
	Seed     uint64
	// Actors are the outside actors of its shrunk run, each with a lane.
	Actors []string
}

// Goldens are the golden counterexamples.
var Goldens = []Golden{
	{"replicaset-edge", faults.Mix{faults.KindDrop}, 6, []string{"chaos", "user"}},
	{"hpa-gitops-fight", faults.Mix{}, 1, nil},
	{"pdb-drain", faults.Mix{}, 1, []string{"admin"}},
}

// Run finds the golden counterexample again and returns its page's run.
func (g Golden) Run() (timeline.Run, error) {
	sc, ok := scenarios.ByName(g.Scenario)
	if !ok {
		return timeline.Run{}, fmt.Errorf("no scenario %q", g.Scenario)
	}
	res, err := properties.Search(sc, g.Faults, properties.SearchOptions{Checks: 1, Seed: g.Seed})
	if err != nil {
		return timeline.Run{}, err
	}
	if res.Counterexample == nil {
		return timeline.Run{}, fmt.Errorf("scenario %s, seed %d no longer fails", g.Scenario, g.Seed)
	}
	return res.Counterexample.Timeline(sc)
}

// PassingRun is a run that passes: replicaset-level under drop, seed 1,
// the run fuzzrun -html draws for that seed.
func PassingRun() (timeline.Run, error) {
	sc, ok := scenarios.ByName("replicaset-level")
	if !ok {
		return timeline.Run{}, fmt.Errorf("no scenario replicaset-level")
	}
	res, err := properties.Search(sc, faults.Mix{faults.KindDrop}, properties.SearchOptions{Checks: 1, Seed: 1})
	if err != nil {
		return timeline.Run{}, err
	}
	if res.Passed == nil {
		return timeline.Run{}, fmt.Errorf("scenario replicaset-level, seed 1 no longer passes")
	}
	return res.Passed.Timeline("scenario replicaset-level, faults drop, seed 1", ""), nil
}

// stride is a chooser that walks the choices with a fixed stride, for a
// long run that mixes its sources without a search. It avoids choice 0,
// which for a busy cluster means "settle first": ping-pong never settles,
// and the faults and the user would never get a turn.
type stride struct{ i int }

func (s *stride) Choose(n int, _ string) int {
	if n < 2 {
		return 0
	}
	s.i += 7
	return 1 + s.i%(n-1)
}

// LongRun is a run of 5,000 steps: two controllers that keep triggering
// each other (examples/broken.PingPong) on two ReplicaSets, with a user
// scaling them, a dropped notification and a restart. It never reaches a
// fixed point and fails at the step bound, as such a counterexample does.
func LongRun() (timeline.Run, error) {
	sc := properties.Scenario{
		Name: "ping-pong",
		Build: func(cfg model.Config) (*model.Cluster, error) {
			c := model.NewCluster(cfg)
			for _, ctl := range broken.PingPong() {
				ctl.ResyncPeriod = 20
				if err := c.AddController(ctl); err != nil {
					return nil, err
				}
			}
			if err := c.AddActor(actors.Scaler{Kind: replicaset.Kind, Field: "replicas", Min: 1, Max: 5}, 5); err != nil {
				return nil, err
			}
			return c, c.Apply(replicaset.New("default", "web", 3), replicaset.New("default", "db", 1))
		},
	}
	sched := faults.Schedule{
		{At: 0, Fault: faults.Drop{Controller: "ping", Resource: replicaset.Kind}},
		{At: 0, Fault: faults.Restart{Controller: "pong", Down: 5}},
	}
	out, err := properties.Execute(sc, sched, &stride{}, properties.RunOptions{})
	if err != nil {
		return timeline.Run{}, err
	}
	return out.Timeline(fmt.Sprintf("scenario ping-pong, faults drop,restart, %d steps", out.Cluster.Steps()), ""), nil
}
