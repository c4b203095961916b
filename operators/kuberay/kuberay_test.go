package kuberay_test

import (
	"strings"
	"sync"
	"testing"

	crt "github.com/converge-sim/converge/controllerruntime"
	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/operators/kuberay"
	"github.com/converge-sim/converge/operators/suite"
	"github.com/converge-sim/converge/properties"
)

var world = sync.OnceValues(kuberay.NewWorld)

func scenario(t *testing.T) properties.Scenario {
	t.Helper()
	w, err := world()
	if err != nil {
		t.Fatal(err)
	}
	return kuberay.Scenario("raycluster", w)
}

// TestConverges: KubeRay's RayCluster controller, its own SetupWithManager
// and CRDs, brings up the head and the workers and says so in its status,
// under every faithful fault but time travel, whose real finding
// TestATimeTravelledRelistMakesASecondHeadPod holds (and which these 30
// runs find too).
func TestConverges(t *testing.T) {
	suite.Converges(t, scenario(t), suite.Without(faults.KindTimeTravel), 30)
}

// TestMeasure reports runs and reconciles per second (-operators.measure)
// under the mix TestConverges checks: with time travel, a few hundred
// random runs meet the real finding of a second head pod. Without it they
// still meet the undone edit now and then (run 192 first), which
// knownFindings lets them count.
func TestMeasure(t *testing.T) {
	suite.Measure(t, scenario(t), suite.Without(faults.KindTimeTravel), knownFindings...)
}

// knownFindings are KubeRay's real findings that random runs under
// TestMeasure's mix meet, each held by a test of its own.
var knownFindings = []suite.Known{{
	Test: "TestAnUndoneEditLeavesObservedGenerationBehind",
	// The run reached a fixed point whose only unmet goal is a status
	// behind the spec's generation: the pods, the Service and the worker
	// counts match the spec (the goal checks those first, see unmet), so
	// the controller served the latest spec and did not say so.
	Match: func(f *properties.Failure) bool {
		if f.Verdict != properties.GoalUnmet || len(f.Details) == 0 {
			return false
		}
		for _, d := range f.Details {
			if !strings.Contains(d, "status has seen generation") {
				return false
			}
		}
		return true
	},
}}

// TestExplore explores within a budget (-operators.explore=60s) under
// every faithful fault but time travel, whose finding
// TestATimeTravelledRelistMakesASecondHeadPod holds.
func TestExplore(t *testing.T) {
	suite.Explore(t, scenario(t), suite.Without(faults.KindTimeTravel))
}

// TestATimeTravelledRelistMakesASecondHeadPod: a real finding. KubeRay
// remembers the pods it created in memory only (its scale expectations);
// a restarted operator whose first list is served by an API server behind
// the one it read before (faults.KindTimeTravel: a lagging watch cache)
// sees no head pod, creates a second one, and from then on every
// reconcile fails with "2 head pods found … Please delete extra head
// pods": it never deletes the extra pod itself, so the cluster stays
// there until a person does. Exploration finds it at depth 2.
func TestATimeTravelledRelistMakesASecondHeadPod(t *testing.T) {
	res, err := crt.Explore(t, scenario(t), faults.Mix{faults.KindTimeTravel}, properties.ExploreOptions{Depth: 2, Deviations: 2})
	if err != nil {
		t.Fatal(err)
	}
	cx := res.Counterexample
	if cx == nil {
		t.Fatal("no counterexample: the second head pod was not found")
	}
	report := cx.Report()
	for _, want := range []string{"has 2 head pods", "Please delete extra head pods", "timetravel: restart raycluster"} {
		if !strings.Contains(report, want) {
			t.Errorf("the counterexample does not say %q:\n%s", want, report)
		}
	}
}
