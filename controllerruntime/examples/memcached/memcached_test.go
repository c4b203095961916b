package memcached_test

import (
	"path/filepath"
	"runtime"
	"testing"
	"testing/synctest"
	"time"

	crt "github.com/converge-sim/converge/controllerruntime"
	"github.com/converge-sim/converge/controllerruntime/convert"
	"github.com/converge-sim/converge/controllerruntime/crd"
	"github.com/converge-sim/converge/controllerruntime/examples/memcached"
	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const checks = 50

// everyFault is every fault kind but the persistent rival (a fight by
// construction); faithful leaves out drop too, which no client-go
// informer does and only a resync repairs.
var (
	everyFault = faults.Mix{faults.KindDrop, faults.KindDuplicate, faults.KindDelay, faults.KindExpire, faults.KindRestart, faults.KindStale, faults.KindEdit, faults.KindAPIError, faults.KindPartition, faults.KindTimeTravel}
	faithful   = faults.Mix{faults.KindDuplicate, faults.KindDelay, faults.KindExpire, faults.KindRestart, faults.KindStale, faults.KindEdit, faults.KindAPIError, faults.KindPartition, faults.KindTimeTravel}
)

func converter(t *testing.T) *convert.Converter {
	t.Helper()
	conv, err := memcached.Converter()
	require.NoError(t, err)
	return conv
}

func search(t *testing.T, sc properties.Scenario, mix faults.Mix) *properties.SearchResult {
	t.Helper()
	res, err := properties.Search(sc, mix, properties.SearchOptions{
		Checks: checks, Seed: 1, Wrap: properties.InBubble(t), Test: t,
	})
	require.NoError(t, err)
	return res
}

func requireConverges(t *testing.T, sc properties.Scenario, mix faults.Mix) {
	t.Helper()
	res := search(t, sc, mix)
	if cx := res.Counterexample; cx != nil {
		t.Fatalf("%s must converge under %s, but:\n%s\ntrace:\n%v", sc.Name, mix, cx.Report(), cx.Trace)
	}
	assert.Equal(t, checks, res.Runs)
}

// TestMemcachedConvergesUnderEveryFault runs the project's
// SetupWithManager unmodified: with a resync every 30 s under every
// fault, and with no resync under the faithful ones.
func TestMemcachedConvergesUnderEveryFault(t *testing.T) {
	conv := converter(t)
	t.Run("resync", func(t *testing.T) {
		requireConverges(t, memcached.Scenario("memcached", conv, memcached.Options{SyncPeriod: 30 * time.Second}), everyFault)
	})
	t.Run("no-resync", func(t *testing.T) {
		requireConverges(t, memcached.Scenario("memcached", conv, memcached.Options{}), faithful)
	})
}

// TestForgettingOwnsNeverSeesTheDeploymentReady: without Owns, the
// Memcached never hears that its Deployment became ready, so its
// Available condition stays False until a resync (ten hours away in
// production). The search finds it with no fault at all and shrinks it to
// the shortest run; the fixed twin passes the same search.
func TestForgettingOwnsNeverSeesTheDeploymentReady(t *testing.T) {
	conv := converter(t)
	edits := faults.Mix{faults.KindEdit}
	// Rapid's draws alone: a planned delete of the Deployment (the same
	// missing Owns, which never hears of it) fails earlier
	// (docs/design.md, "Faults planned from the reference run").
	res, err := properties.Search(memcached.Scenario("memcached-bug", conv, memcached.Options{ForgetOwns: true}), edits, properties.SearchOptions{
		Checks: checks, Seed: 1, Wrap: properties.InBubble(t), Test: t, NoPlan: true,
	})
	require.NoError(t, err)
	cx := res.Counterexample
	require.NotNil(t, cx, "the search must find the stale Available condition")
	assert.Equal(t, properties.GoalUnmet, cx.Failure.Verdict, cx.Report())
	assert.Empty(t, cx.Schedule, "no fault is needed\n%s", cx.Report())
	assert.Contains(t, cx.Failure.Report(nil), "is not Available")
	t.Logf("shrunk counterexample:\n%s", cx.Report())

	// The printed line replays: -rapid.seed=N makes the search start at N
	// (SearchOptions.Test), whose first run is the failure, shrunk the same way.
	again, err := properties.Search(memcached.Scenario("memcached-bug", conv, memcached.Options{ForgetOwns: true}), edits,
		properties.SearchOptions{Checks: 1, Seed: cx.Seed, Wrap: properties.InBubble(t), Test: t})
	require.NoError(t, err)
	require.NotNil(t, again.Counterexample)
	assert.Equal(t, cx.Failure.Report(cx.Schedule), again.Counterexample.Failure.Report(again.Counterexample.Schedule))
	assert.Equal(t, cx.Trace.Hash(), again.Counterexample.Trace.Hash())

	requireConverges(t, memcached.Scenario("memcached", conv, memcached.Options{}), edits)
}

// TestDeletionRunsTheFinalizer: a Memcached deleted from outside is held
// by the finalizer until the reconciler recorded its cleanup (a Deleting
// event), then goes, and garbage collection takes its Deployment.
func TestDeletionRunsTheFinalizer(t *testing.T) {
	sc := memcached.Scenario("memcached", converter(t), memcached.Options{})
	sched := faults.Schedule{{At: 5, Fault: faults.Edit{Target: faults.EditTarget{Resource: "Memcached"}}}}
	synctest.Test(t, func(t *testing.T) {
		out, _, err := properties.Replay(sc, sched, nil, properties.RunOptions{})
		require.NoError(t, err)
		require.Nil(t, out.Failure)
		s := out.Cluster.State()
		assert.Nil(t, s.Get("Memcached", "default", "cache"), "the finalizer was removed")
		assert.Zero(t, s.Len("Deployment"), "garbage collection took the Deployment")
		var reasons []string
		for _, e := range s.List("Event", model.ListOptions{}) {
			reasons = append(reasons, e.Spec.Str("reason"))
		}
		assert.Contains(t, reasons, "Deleting")
	})
}

// TestTheSampleNeverPropagatesAPortChange: given state transitions of its
// Memcached drawn from its CRD's schema (crt.Inputs) and no goal beyond
// its own, the operator-sdk sample is found history-dependent: it syncs
// only spec.size into its Deployment, so a containerPort changed after the
// Deployment exists never reaches it, while a fresh cluster given the same
// spec runs the new port. The counterexample is one transition. Its
// Available condition's lastTransitionTime, which differs between
// histories by design, is not what is reported.
func TestTheSampleNeverPropagatesAPortChange(t *testing.T) {
	conv := converter(t)
	_, file, _, _ := runtime.Caller(0)
	crds, err := crd.Load(filepath.Join(filepath.Dir(file), "config", "crd", "bases"))
	require.NoError(t, err)
	in, err := crt.Inputs(crds, conv, memcached.New("default", "cache", 2), crt.InputsOptions{})
	require.NoError(t, err)
	sc := memcached.Scenario("memcached-inputs", conv, memcached.Options{})
	sc.Inputs = in
	res := search(t, sc, faults.Mix{})
	cx := res.Counterexample
	require.NotNil(t, cx, "the port change is never propagated")
	assert.Equal(t, properties.HistoryDependent, cx.Failure.Verdict)
	assert.Len(t, cx.Inputs, 1, "one transition")
	t.Logf("found after %d runs:\n%s", res.Runs, cx.Report())
	report := cx.Report()
	// Containers are keyed by name and their ports by containerPort (and
	// protocol, when set), as Kubernetes merges them: the old port is an
	// item the fresh cluster lacks.
	assert.Contains(t, report, "Deployment default/cache spec.template.spec.containers[name=memcached].ports[containerPort=11211,protocol=TCP].containerPort: 11211 after the transitions, <none> in a fresh cluster")
	assert.NotContains(t, report, "lastTransitionTime")

	// The witness is believable: in its run, the API server, which
	// validates built-in kinds as a real one does (admit.Builtin), refused
	// none of the operator's writes as invalid (docs/design.md,
	// "Differential oracle").
	synctest.Test(t, func(t *testing.T) {
		out, _, err := properties.Replay(sc, nil, nil, properties.RunOptions{Inputs: cx.Inputs})
		require.NoError(t, err)
		require.NotNil(t, out.Failure)
		for _, rej := range out.Cluster.Server().Rejections(0) {
			assert.NotEqual(t, model.ReasonInvalid, model.ReasonOf(rej.Err), "%s %s of %s: %v", rej.Caller, rej.Verb, rej.Ref, rej.Err)
		}
	})
}
