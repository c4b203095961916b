package properties

import (
	"fmt"
	"os"
	"testing"

	"github.com/converge-sim/converge/examples/broken"
	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/controllers/replicaset"
)

func TestZZPlan(t *testing.T) {
	name := os.Getenv("ZZ")
	var sc Scenario
	for _, s := range zzScenarios() {
		if s.Name == name {
			sc = s
		}
	}
	p, err := Prepare(sc, faults.Mix{faults.KindDrop, faults.KindDuplicate, faults.KindDelay, faults.KindExpire, faults.KindRestart, faults.KindStale, faults.KindEdit, faults.KindAPIError, faults.KindPartition, faults.KindTimeTravel})
	if err != nil {
		t.Fatal(err)
	}
	plan := plannedSchedules(p.shape.dry.landmarks, p.mix, p.plan.Topology, p.plan.Budget, 1)
	for i, s := range plan {
		out, err := p.execute(s, &planChooser{}, RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		v := "ok"
		if out.Failure != nil {
			v = string(out.Failure.Verdict)
		}
		fmt.Printf("%d %s %s\n", i+1, s, v)
	}
}

func zzScenarios() []Scenario {
	ref := func(name string, ctrl model.Controller) Scenario {
		return Scenario{Name: name, Build: broken.QuietWorld(ctrl)}
	}
	un := ref("unmapped-pods", broken.UnmappedPods())
	un.Edits = []faults.EditTarget{{Resource: replicaset.PodKind}}
	se := ref("short-expectations", broken.ShortExpectations())
	se.Invariants = []Invariant{zzAtMostOneExtra}
	return []Scenario{se, ref("swallows-errors", broken.SwallowsErrors()), ref("max-retries", broken.MaxRetries()), ref("ignores-conflicts", broken.IgnoresConflicts()), un}
}

func TestZZTrace(t *testing.T) {
	sc := zzScenarios()[0]
	for _, s := range zzScenarios() {
		if s.Name == os.Getenv("ZZ") {
			sc = s
		}
	}
	p, _ := Prepare(sc, faults.Mix{faults.KindAPIError})
	s := faults.Schedule{{At: 0, Fault: faults.APIError{Controller: sc.Name, Error: faults.ErrConflict, Count: 4}}}
	out, _ := p.execute(s, &planChooser{}, RunOptions{})
	for _, r := range out.Cluster.Trace().Records {
		fmt.Println(r.String())
	}
}

var zzAtMostOneExtra = AtMostPerOwner(replicaset.PodKind, replicaset.Kind, func(rs *model.Object) int64 {
	return rs.Spec.Int("replicas") + 1
})

func TestZZStale(t *testing.T) {
	sc := zzScenarios()[0]
	p, _ := Prepare(sc, faults.Mix{faults.KindStale})
	for _, inf := range []string{"Pod", "ReplicaSet"} {
		for b := uint64(1); b <= 5; b++ {
			for _, first := range []bool{true, false} {
				for at := model.Time(0); at < 3; at++ {
					s := faults.Schedule{{At: at, Fault: faults.Stale{Controller: sc.Name, Resource: inf, Behind: b, For: 10}}}
					var ch model.Chooser = &planChooser{}
					if !first {
						ch = &coverageChooser{zeros: true}
					}
					out, _ := p.execute(s, ch, RunOptions{})
					v := "ok"
					if out.Failure != nil {
						v = string(out.Failure.Verdict)
					}
					fmt.Println(s, first, v)
				}
			}
		}
	}
}
