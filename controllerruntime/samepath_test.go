package controllerruntime_test

import (
	"math/rand/v2"
	"testing"
	"testing/synctest"
	"time"

	crt "github.com/converge-sim/converge/controllerruntime"
	"github.com/converge-sim/converge/controllerruntime/examples/cronjob"
	"github.com/converge-sim/converge/controllerruntime/examples/memcached"
	"github.com/converge-sim/converge/controllerruntime/internal/shared"
	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/properties"
	"github.com/stretchr/testify/require"
)

// choices draws a run's interleaving from a seeded stream.
type choices struct{ r *rand.Rand }

func (c choices) Choose(n int, _ string) int { return c.r.IntN(n) }

// exampleTraces runs seeds 0..runs-1 of the CronJob and memcached
// examples as their benchmarks do (every fault kind but the rival, random
// schedules and interleavings) and returns each run's trace hash.
func exampleTraces(t *testing.T, runs int) []string {
	t.Helper()
	mix := faults.Mix{faults.KindDrop, faults.KindDuplicate, faults.KindDelay, faults.KindExpire, faults.KindRestart,
		faults.KindStale, faults.KindEdit, faults.KindAPIError, faults.KindPartition, faults.KindTimeTravel}
	cconv, err := cronjob.Converter()
	require.NoError(t, err)
	mconv, err := memcached.Converter()
	require.NoError(t, err)
	var hashes []string
	for _, sc := range []properties.Scenario{
		cronjob.Scenario("periodicjob", cconv, cronjob.Options{}),
		memcached.Scenario("memcached", mconv, memcached.Options{SyncPeriod: 30 * time.Second}),
	} {
		plan, err := properties.PlanFor(sc, mix)
		require.NoError(t, err)
		gen := faults.Schedules(mix, plan.Topology, plan.Budget)
		for i := range runs {
			r := rand.New(rand.NewPCG(uint64(i), 7))
			sched := gen.Example(int(r.Int32()))
			var out *properties.Outcome
			synctest.Test(t, func(*testing.T) {
				out, err = properties.Execute(sc, sched, choices{r}, properties.RunOptions{})
			})
			require.NoError(t, err)
			hashes = append(hashes, out.Cluster.Trace().Hash())
		}
	}
	return hashes
}

// TestFastPathsGiveTheSameTraces: the memos' first decode of a version
// through convert.FromModelShared (one copy to the reader, the parts
// shared with the converter), a status update that sends the memo's
// encoding of the status it read, the memo of built-in defaulting, the
// memo's own objects for the builder's Owns watches and invariant
// verdicts kept while the kinds they read are unwritten, and the user
// actor's merge patches applied to the stored body give every run of the
// CronJob and memcached examples the trace the plain paths give, byte for
// byte.
//
// The paths added since are also switched off one at a time: the
// built-in controllers' shared reads (package shared), the kept
// decodes of spec and status types that refer to nothing, the
// Deployment controller's kept template hashes, the merge patch's
// path, and within it the merge into a part's kept decode and the
// patch's own reading, the written version made from what was sent, and
// the custom resources' copies into destinations not zeroed first.
func TestFastPathsGiveTheSameTraces(t *testing.T) {
	restore := crt.SetFastPaths(false)
	plain := exampleTraces(t, 12)
	restore()
	shared := exampleTraces(t, 12)
	require.Equal(t, plain, shared)
	for _, off := range []struct {
		name string
		set  func(bool) func()
	}{
		{"shared reads", crt.SetSharedReads},
		{"plain copies", crt.SetPlainCopy},
		{"kept template hashes", crt.SetKeepHashes},
		{"the merge patch through JSON", crt.SetFastMergePatch},
		{"the merge patch into the unflattened part", crt.SetTypedMergePatch},
		{"the merge patch read by encoding/json", crt.SetScanMergePatch},
		{"the written version decoded from the stored fields", crt.SetSentDecode},
		{"zeroed copies", crt.SetUnzeroedCopies},
	} {
		restore := off.set(false)
		without := exampleTraces(t, 12)
		restore()
		require.Equal(t, shared, without, "without %s", off.name)
	}
}

// TestBuiltinControllersOnlyReadWhatTheyShare: the built-in Job, kubelet,
// ReplicaSet and Deployment controllers read the memo's own objects
// (package shared), and none of them modifies one, in every run of the
// CronJob and memcached examples: each object shared is kept with a deep
// copy and compared with it after the runs.
func TestBuiltinControllersOnlyReadWhatTheyShare(t *testing.T) {
	log, stop := shared.Install()
	defer stop()
	exampleTraces(t, 6)
	require.Positive(t, log.Reads())
	require.Empty(t, log.Changed())
}
