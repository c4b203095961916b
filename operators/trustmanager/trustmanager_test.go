package trustmanager_test

import (
	"testing/synctest"

	"github.com/converge-sim/converge/faults"
	"sync"
	"testing"

	"github.com/converge-sim/converge/operators/suite"
	"github.com/converge-sim/converge/operators/trustmanager"
	"github.com/converge-sim/converge/properties"
)

var world = sync.OnceValues(trustmanager.NewWorld)

func scenario(t *testing.T) properties.Scenario {
	t.Helper()
	w, err := world()
	if err != nil {
		t.Fatal(err)
	}
	return trustmanager.Scenario("bundle", w)
}

// TestConverges: trust-manager's Bundle controller, its own
// SetupWithManager and CRDs, applies every Bundle as its ClusterBundle and
// marks it Deprecated, under every faithful fault.
func TestConverges(t *testing.T) { suite.Converges(t, scenario(t), suite.Faithful, 30) }

// TestMeasure reports runs and reconciles per second (-operators.measure).
func TestMeasure(t *testing.T) { suite.Measure(t, scenario(t)) }

// TestExplore explores within a budget (-operators.explore=60s).
func TestExplore(t *testing.T) { suite.Explore(t, scenario(t), suite.Faithful) }

// TestAppliesEveryBundle: without a fault, each Bundle gets its
// ClusterBundle with its source, written by the operator's server-side
// apply, so the goal
// is not met vacuously.
func TestAppliesEveryBundle(t *testing.T) {
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
		for _, name := range []string{"roots", "internal"} {
			cb := s.Get("ClusterBundle", "", name)
			if cb == nil {
				t.Fatalf("no ClusterBundle %s", name)
			}
			if got := cb.Spec.Str("inLineCAs"); got != name+"-ca" {
				t.Errorf("ClusterBundle %s has source %q: %v", name, got, cb.Spec)
			}
		}
	})
}
