package model

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// laterCluster builds and starts a cluster whose controller "app" writes
// the status of its App at every reconcile, with writes of its own it
// would crash between.
func laterCluster(t testing.TB) *Cluster {
	t.Helper()
	c := NewCluster(Config{})
	require.NoError(t, c.AddController(Controller{
		Name: "app", For: "App",
		NewReconciler: func(cl Client) Reconciler {
			return ReconcilerFunc(func(req Request) (Result, error) {
				o, err := cl.Get("App", req.Namespace, req.Name)
				if err != nil {
					return Result{}, nil
				}
				o.Status.Set("seen", o.Status.Int("seen")+1)
				if err := cl.UpdateStatus(o); err != nil {
					return Result{}, err
				}
				return Result{}, cl.Create(&Object{Kind: "Pod", Namespace: "default", GenerateName: "web-"})
			})
		},
	}))
	require.NoError(t, c.Apply(&Object{Kind: "App", Namespace: "default", Name: "web"}))
	require.NoError(t, c.Start())
	return c
}

// runSteps does the first enabled action n times, or until none is.
func runSteps(c *Cluster, n int) {
	for range n {
		acts := c.Enabled(nil)
		if len(acts) == 0 {
			return
		}
		c.Do(acts[0])
	}
}

// TestFailWritesLaterDecidesAtTheWrite: failures armed for later are
// decided at the controller's first write, not before, and from then on
// the cluster is the one FailWrites would have made; until then only the
// fingerprint tells them apart, by name.
func TestFailWritesLaterDecidesAtTheWrite(t *testing.T) {
	for _, n := range []int{1, 3} {
		now := laterCluster(t)
		later := laterCluster(t)
		err := statusErr(ReasonConflict, "injected")
		require.NoError(t, now.Faults().FailWrites("app", err, n, false))
		calls := 0
		require.NoError(t, later.Faults().FailWritesLater("app", "one of two", func() (*StatusError, int, bool) {
			calls++
			return err, n, false
		}))
		assert.Zero(t, calls, "decided at the write, not when armed")
		assert.NotEqual(t, now.Fingerprint(), later.Fingerprint(), "armed for later is not armed now")

		twin := laterCluster(t)
		require.NoError(t, twin.Faults().FailWritesLater("app", "one of two", func() (*StatusError, int, bool) { return err, n, false }))
		assert.Equal(t, later.Fingerprint(), twin.Fingerprint(), "the same set armed for later")
		other := laterCluster(t)
		require.NoError(t, other.Faults().FailWritesLater("app", "one of three", func() (*StatusError, int, bool) { return err, n, false }))
		assert.NotEqual(t, later.Fingerprint(), other.Fingerprint(), "another set armed for later")
		assert.NotEqual(t, laterCluster(t).Fingerprint(), later.Fingerprint(), "armed for later is not unarmed")

		runSteps(now, 40)
		runSteps(later, 40)
		assert.Equal(t, 1, calls)
		assert.Equal(t, now.Steps(), later.Steps())
		assert.Equal(t, now.Fingerprint(), later.Fingerprint(), "n=%d: the same run once decided", n)
	}
}

// TestCrashAfterWritesLaterDecidesAtTheWrite: a crash between writes armed
// for later is decided at the first write and then crashes where
// CrashAfterWrites would have; on a controller that is down it arms
// nothing, as CrashAfterWrites does; a crash or time travel set up while
// it waits keeps its own down time.
func TestCrashAfterWritesLaterDecidesAtTheWrite(t *testing.T) {
	for _, writes := range []int{1, 2} {
		now := laterCluster(t)
		later := laterCluster(t)
		require.NoError(t, now.Faults().CrashAfterWrites("app", writes, 7))
		calls := 0
		require.NoError(t, later.Faults().CrashAfterWritesLater("app", "one of two", func() (int, Time) {
			calls++
			return writes, 7
		}))
		assert.Zero(t, calls)
		assert.NotEqual(t, now.Fingerprint(), later.Fingerprint())
		runSteps(now, 40)
		runSteps(later, 40)
		assert.Equal(t, 1, calls)
		plain := laterCluster(t)
		runSteps(plain, 40)
		assert.NotEqual(t, plain.Fingerprint(), later.Fingerprint(), "it crashed")
		assert.Equal(t, now.Steps(), later.Steps())
		assert.Equal(t, now.Fingerprint(), later.Fingerprint(), "writes=%d: the same run once decided", writes)
	}

	down := laterCluster(t)
	require.NoError(t, down.Faults().Crash("app", 5))
	before := down.Fingerprint()
	require.NoError(t, down.Faults().CrashAfterWritesLater("app", "one of two", func() (int, Time) { return 1, 7 }))
	assert.Equal(t, before, down.Fingerprint(), "no effect on a controller that is down")

	c := laterCluster(t)
	require.NoError(t, c.Faults().CrashAfterWritesLater("app", "one of two", func() (int, Time) { return 1, 7 }))
	c.ctrls[0].wait.crash, c.ctrls[0].crashDown = true, 3
	c.ctrls[0].crashLaterDown = false // as Crash of a waiting reconcile leaves it
	func() {
		defer func() { assert.IsType(t, crashSignal{}, recover(), "crashes after the one write") }()
		c.ctrls[0].wrote()
	}()
	assert.Equal(t, Time(3), c.ctrls[0].crashDown, "the later crash keeps the down time set since")
}

// TestFaultsArmedLaterRejectNoChoice: arming for later without a choice,
// or on a controller that does not exist, is an error.
func TestFaultsArmedLaterRejectNoChoice(t *testing.T) {
	c := laterCluster(t)
	assert.Error(t, c.Faults().FailWritesLater("app", "x", nil))
	assert.Error(t, c.Faults().CrashAfterWritesLater("app", "x", nil))
	assert.Error(t, c.Faults().FailWritesLater("nope", "x", func() (*StatusError, int, bool) { return nil, 0, false }))
	assert.Error(t, c.Faults().CrashAfterWritesLater("nope", "x", func() (int, Time) { return 1, 1 }))
}

// TestArmDelayLaterDecidesAtTheEvent: a delay armed for later is decided
// when the informer takes the next stream event, not before, and the run
// is then the one ArmDelay would have made; meanwhile a delivery to the
// informer is not local, as with a delay armed (Commute).
func TestArmDelayLaterDecidesAtTheEvent(t *testing.T) {
	now := laterCluster(t)
	later := laterCluster(t)
	require.NoError(t, now.Faults().ArmDelay("app", "App", 3))
	calls := 0
	require.NoError(t, later.Faults().ArmDelayLater("app", "App", "one of two", func() Time {
		calls++
		return 3
	}))
	assert.Zero(t, calls)
	assert.NotEqual(t, now.Fingerprint(), later.Fingerprint())
	assert.NotEqual(t, laterCluster(t).Fingerprint(), later.Fingerprint())
	assert.False(t, later.localDelivery(0), "a delay armed, for later or not, makes a delivery non-local")
	require.NoError(t, later.Apply(&Object{Kind: "App", Namespace: "default", Name: "db"}))
	require.NoError(t, now.Apply(&Object{Kind: "App", Namespace: "default", Name: "db"}))
	runSteps(now, 40)
	runSteps(later, 40)
	assert.Equal(t, 1, calls)
	assert.Equal(t, now.Steps(), later.Steps())
	assert.Equal(t, now.Fingerprint(), later.Fingerprint(), "the same run once decided")
	assert.Error(t, later.Faults().ArmDelayLater("app", "App", "x", nil))
}
