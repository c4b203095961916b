package trustmanager_test

import (
	"strings"
	"testing/synctest"

	trustapi "github.com/cert-manager/trust-manager/pkg/apis/trust/v1alpha1"
	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
func TestMeasure(t *testing.T) { suite.Measure(t, scenario(t), suite.Faithful) }

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

// TestTheBundleWebhookRuns: trust-manager's own validating webhook,
// registered by Setup as its main registers it, refuses through the
// model's API server a Bundle its CRD admits: a Secret source with
// neither key nor includeAllKeys.
func TestTheBundleWebhookRuns(t *testing.T) {
	w, err := world()
	if err != nil {
		t.Fatal(err)
	}
	c, err := trustmanager.Scenario("bundle", w).Build(model.Config{})
	if err != nil {
		t.Fatal(err)
	}
	b := trustmanager.New("bad", "ca")
	b.Spec.Sources = []trustapi.BundleSource{{Secret: &trustapi.SourceObjectKeySelector{Selector: &metav1.LabelSelector{}}}}
	mo, err := w.Conv.ToModel(b)
	if err != nil {
		t.Fatal(err)
	}
	err = c.Server().Create("user", mo)
	if !model.IsForbidden(err) || !strings.Contains(err.Error(), "source secret key must be defined when includeAllKeys is false") {
		t.Fatalf("want the webhook's denial, got %v", err)
	}
	if c.Server().Peek(mo.Ref()) != nil {
		t.Fatal("a refused Bundle is stored")
	}
	good := trustmanager.New("good", "ca")
	if mo, err = w.Conv.ToModel(good); err != nil {
		t.Fatal(err)
	}
	if err := c.Server().Create("user", mo); err != nil {
		t.Fatalf("a valid Bundle is refused: %v", err)
	}
}
