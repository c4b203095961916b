package kuberay_test

import (
	"sync"
	"testing"

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
// under every faithful fault.
// and CRDs, brings up the head and the workers and says so in its status,
// under every faithful fault.
func TestConverges(t *testing.T) { suite.Converges(t, scenario(t), 30) }

// TestMeasure reports runs and reconciles per second (-operators.measure).
func TestMeasure(t *testing.T) { suite.Measure(t, scenario(t)) }

// TestExplore explores within a budget (-operators.explore=60s).
func TestExplore(t *testing.T) { suite.Explore(t, scenario(t)) }
