package examples_test

import (
	"path/filepath"
	"testing"

	crt "github.com/converge-sim/converge/controllerruntime"
	"github.com/converge-sim/converge/controllerruntime/convert"
	"github.com/converge-sim/converge/controllerruntime/crd"
	"github.com/converge-sim/converge/controllerruntime/examples/cronjob"
	"github.com/converge-sim/converge/controllerruntime/examples/memcached"
	"github.com/converge-sim/converge/operators/moddir"
	"github.com/converge-sim/converge/operators/suite"
	"github.com/converge-sim/converge/properties"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// crds loads the CRDs of the example in dir (under the controllerruntime
// module's examples/).
func crds(t *testing.T, example string) *crd.Set {
	t.Helper()
	dir, err := moddir.Dir("github.com/converge-sim/converge/controllerruntime")
	if err != nil {
		t.Fatal(err)
	}
	set, err := crd.Load(filepath.Join(dir, "examples", example, "config", "crd", "bases"))
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// withInputs returns sc with inputs of target drawn from set, ignoring
// ignores and restricted by rs.
func withInputs(t *testing.T, sc properties.Scenario, set *crd.Set, conv *convert.Converter, target client.Object, ignores []suite.Ignored, rs []suite.Restriction) properties.Scenario {
	t.Helper()
	in, err := crt.Inputs(set, conv, target, crt.InputsOptions{Ignore: suite.Paths(ignores)})
	if err != nil {
		t.Fatal(err)
	}
	in.Spec = suite.Restrict(in.Spec, rs)
	sc.Inputs = in
	return sc
}

// memcachedIgnores and memcachedRestrictions are what the memcached
// campaign needs today (operators/QUIET.md).
var (
	memcachedIgnores      = []suite.Ignored{}
	memcachedRestrictions = []suite.Restriction{}
)

func memcachedScenario(t *testing.T) properties.Scenario {
	t.Helper()
	conv, err := memcached.Converter()
	if err != nil {
		t.Fatal(err)
	}
	sc := memcached.Scenario("memcached-inputs", conv, memcached.Options{})
	return withInputs(t, sc, crds(t, "memcached"), conv, memcached.New("default", "cache", 2), memcachedIgnores, memcachedRestrictions)
}

// cronjobIgnores and cronjobRestrictions are what the PeriodicJob
// campaign needs today (operators/QUIET.md).
var (
	cronjobIgnores      = []suite.Ignored{}
	cronjobRestrictions = []suite.Restriction{}
)

func cronjobScenario(t *testing.T) properties.Scenario {
	t.Helper()
	conv, err := cronjob.Converter()
	if err != nil {
		t.Fatal(err)
	}
	sc := cronjob.Scenario("periodicjob-inputs", conv, cronjob.Options{})
	return withInputs(t, sc, crds(t, "cronjob"), conv, cronjob.New("default", "report"), cronjobIgnores, cronjobRestrictions)
}

// TestQuietMemcached runs the memcached input campaign
// (-operators.quiet=10m) and logs every finding.
func TestQuietMemcached(t *testing.T) {
	suite.Quiet(t, memcachedScenario(t), suite.QuietBudget(t), 0)
}

// TestQuietCronJob runs the PeriodicJob input campaign
// (-operators.quiet=10m) and logs every finding.
func TestQuietCronJob(t *testing.T) {
	suite.Quiet(t, cronjobScenario(t), suite.QuietBudget(t), 0)
}
