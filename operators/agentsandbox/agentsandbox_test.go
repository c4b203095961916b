package agentsandbox_test

import (
	"sync"
	"testing"
	"testing/synctest"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/operators/agentsandbox"
	"github.com/converge-sim/converge/operators/suite"
	"github.com/converge-sim/converge/properties"
)

var world = sync.OnceValues(agentsandbox.NewWorld)

func scenario(t *testing.T) properties.Scenario {
	t.Helper()
	w, err := world()
	if err != nil {
		t.Fatal(err)
	}
	return agentsandbox.Scenario("sandbox", w)
}

// TestConverges: agent-sandbox's Sandbox controller, its own
// SetupWithManager and CRDs, runs each Sandbox's pod and Service and says
// so in its status, and suspends and resumes it, under every faithful
// fault.
func TestConverges(t *testing.T) { suite.Converges(t, scenario(t), suite.Faithful, 30) }

// TestMeasure reports runs and reconciles per second (-operators.measure).
func TestMeasure(t *testing.T) { suite.Measure(t, scenario(t), suite.Faithful) }

// TestExplore explores within a budget (-operators.explore=60s).
func TestExplore(t *testing.T) { suite.Explore(t, scenario(t), suite.Faithful) }

// TestRunsEverySandbox: without a fault, each Sandbox gets its running
// pod, coder its Service, and both a Ready status with the pod's address,
// so the goal is not met vacuously.
func TestRunsEverySandbox(t *testing.T) {
	sc := scenario(t)
	synctest.Test(t, func(t *testing.T) {
		out, _, err := properties.Replay(sc, faults.Schedule{}, nil, properties.RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if out.Failure != nil {
			t.Fatal(out.Failure.Report(nil))
		}
		s := out.Cluster.State()
		for _, name := range []string{"coder", "notebook"} {
			if s.Get("Pod", "default", name) == nil {
				t.Errorf("no pod %s", name)
			}
			sb := s.Get("Sandbox", "default", name)
			if sb == nil {
				t.Fatalf("no Sandbox %s", name)
			}
			if got := sb.Status.Str("podIPs[0]"); got == "" {
				t.Errorf("Sandbox %s has no pod address in its status: %v", name, sb.Status)
			}
		}
		if s.Get("Service", "default", "coder") == nil {
			t.Error("no Service coder")
		}
		if s.Get("Service", "default", "notebook") != nil {
			t.Error("a Service notebook, which it does not ask for")
		}
	})
}
