package examples_test

import (
	"path/filepath"
	"testing"
	"time"

	crt "github.com/converge-sim/converge/controllerruntime"
	"github.com/converge-sim/converge/controllerruntime/convert"
	"github.com/converge-sim/converge/controllerruntime/crd"
	"github.com/converge-sim/converge/controllerruntime/examples/cronjob"
	"github.com/converge-sim/converge/controllerruntime/examples/memcached"
	"github.com/converge-sim/converge/model"
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
	cronjobIgnores = []suite.Ignored{
		{Path: "status.lastSuccessfulTime", Why: "seed 1: when the last Job succeeded, by design another time after a history"},
	}
	cronjobRestrictions = []suite.Restriction{
		{Path: "intervalSeconds", Value: int64(cronjob.Interval), Why: "10-min run, seeds 3, 13: no fixed point within 5000 steps at intervals of 12478 and 6432 s (a periodic controller always has a next run; the example's 10 s fits its bounds); seed 1: at 1 s, the Jobs present depend on when the run ended"},
		{Path: "jobTemplate", Value: cronjobTemplate(), Why: "seeds 1, 3, 5: a drawn Job template with no container (the CRD admits it, the Job API does not): Job creates rejected forever, and at a long interval no fixed point"},
		{Path: "startingDeadlineSeconds", Why: "seed 1: goal-unmet, no Job for the latest run: a deadline of 0 s misses every run by design, and the example's own goal (which stays: its reconciler is internal) asks for a Job"},
	}
)

// cronjobTemplate is the Job template of the example's own PeriodicJob.
func cronjobTemplate() model.Fields {
	conv, err := cronjob.Converter()
	if err != nil {
		panic(err)
	}
	o, err := conv.ToModel(cronjob.New("default", "report"))
	if err != nil {
		panic(err)
	}
	return suite.Sub(o.Spec, "jobTemplate")
}

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

// TestQuietMemcachedSmoke: the first runs of the memcached campaign
// (seeds 1 to 5; its real finding comes first at seed 6) find nothing.
func TestQuietMemcachedSmoke(t *testing.T) {
	c := suite.Quiet(t, memcachedScenario(t), time.Hour, 5)
	if c.Runs != 5 || len(c.Findings) != 0 {
		t.Fatalf("%d runs, %d findings: want 5 runs and none", c.Runs, len(c.Findings))
	}
}
