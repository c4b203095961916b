package model

import (
	"fmt"
	"hash"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// counter is a reconciler whose memory (a count of reconciles) would
// decide its future; it does not declare it.
type counter struct {
	n int
}

func (r *counter) Reconcile(Request) (Result, error) { r.n++; return Result{}, nil }

// hookedCounter is counter with the Fingerprinter hook.
type hookedCounter struct{ counter }

func (r *hookedCounter) Fingerprint(h hash.Hash64) { fmt.Fprintf(h, "n=%d", r.n) }

// fingerprintCluster builds and starts a cluster with one controller of
// Apps, whose reconciler newRec makes, and one App.
func fingerprintCluster(t *testing.T, newRec func() Reconciler) *Cluster {
	t.Helper()
	c := NewCluster(Config{})
	require.NoError(t, c.AddController(Controller{
		Name:          "app",
		For:           "App",
		NewReconciler: func(Client) Reconciler { return newRec() },
	}))
	require.NoError(t, c.Apply(&Object{Kind: "App", Namespace: "default", Name: "web"}))
	require.NoError(t, c.Start())
	return c
}

func TestFingerprintEqualForEqualStates(t *testing.T) {
	a := fingerprintCluster(t, func() Reconciler { return &counter{} })
	b := fingerprintCluster(t, func() Reconciler { return &counter{} })
	assert.Equal(t, a.Fingerprint(), b.Fingerprint())
	for _, c := range []*Cluster{a, b} {
		for acts := c.Enabled(nil); len(acts) > 0; acts = c.Enabled(nil) {
			c.Do(acts[0])
		}
		require.Positive(t, c.Steps())
	}
	assert.Equal(t, a.Fingerprint(), b.Fingerprint(), "the same steps reach the same state")
}

func TestFingerprintSeesQueueContents(t *testing.T) {
	a := fingerprintCluster(t, func() Reconciler { return &counter{} })
	b := fingerprintCluster(t, func() Reconciler { return &counter{} })
	b.ctrls[0].queue.Add("default/other")
	assert.NotEqual(t, a.Fingerprint(), b.Fingerprint())
}

func TestFingerprintSeesArmedFaults(t *testing.T) {
	for name, arm := range map[string]func(*Cluster) error{
		"drop":      func(c *Cluster) error { return c.Faults().ArmDrop("app", "App") },
		"duplicate": func(c *Cluster) error { return c.Faults().ArmDuplicate("app", "App") },
		"delay":     func(c *Cluster) error { return c.Faults().ArmDelay("app", "App", 3) },
		"failures":  func(c *Cluster) error { return c.Faults().FailWrites("app", statusErr(ReasonConflict, "x"), 1, false) },
		"crash":     func(c *Cluster) error { return c.Faults().CrashAfterWrites("app", 1, 2) },
		"partition": func(c *Cluster) error { return c.Faults().Partition("app", 2) },
	} {
		t.Run(name, func(t *testing.T) {
			a := fingerprintCluster(t, func() Reconciler { return &counter{} })
			b := fingerprintCluster(t, func() Reconciler { return &counter{} })
			require.NoError(t, arm(b))
			assert.NotEqual(t, a.Fingerprint(), b.Fingerprint())
		})
	}
}

// TestFingerprintSeesAPendingTimeTravel: a controller down after a time
// travel will relist from the past; one down after a plain crash will not.
// And an owner reference that blocks a foreground delete is not one that
// does not.
func TestFingerprintSeesAPendingTimeTravel(t *testing.T) {
	a := fingerprintCluster(t, func() Reconciler { return &counter{} })
	b := fingerprintCluster(t, func() Reconciler { return &counter{} })
	require.NoError(t, a.Faults().Crash("app", 2))
	require.NoError(t, b.Faults().TimeTravel("app", 1, 2))
	assert.NotEqual(t, a.Fingerprint(), b.Fingerprint())

	owned := func(block bool) *Cluster {
		c := fingerprintCluster(t, func() Reconciler { return &counter{} })
		app := c.State().Get("App", "default", "web")
		ref := NewOwnerReference(app)
		ref.BlockOwnerDeletion = block
		require.NoError(t, c.Apply(&Object{Kind: "Pod", Namespace: "default", Name: "p", OwnerReferences: []OwnerReference{ref}}))
		return c
	}
	assert.NotEqual(t, owned(true).Fingerprint(), owned(false).Fingerprint())
}

func TestFingerprintSeesHookedMemoryOnly(t *testing.T) {
	hooked := []*Cluster{
		fingerprintCluster(t, func() Reconciler { return &hookedCounter{} }),
		fingerprintCluster(t, func() Reconciler { return &hookedCounter{} }),
	}
	hooked[1].ctrls[0].rec.(*hookedCounter).n = 1
	assert.NotEqual(t, hooked[0].Fingerprint(), hooked[1].Fingerprint(), "memory declared through the hook counts")
	assert.Empty(t, hooked[0].Unfingerprinted())

	plain := []*Cluster{
		fingerprintCluster(t, func() Reconciler { return &counter{} }),
		fingerprintCluster(t, func() Reconciler { return &counter{} }),
	}
	plain[1].ctrls[0].rec.(*counter).n = 1
	assert.Equal(t, plain[0].Fingerprint(), plain[1].Fingerprint(), "memory without the hook is invisible")
	assert.Equal(t, []string{"app"}, plain[0].Unfingerprinted())
}

// TestFingerprintCacheFollowsCompaction: the history hash kept between
// fingerprints is recomputed when compaction drops the history's start,
// so the cached fingerprint stays the fresh one through compactions.
func TestFingerprintCacheFollowsCompaction(t *testing.T) {
	c := NewCluster(Config{HistoryWindow: 2})
	require.NoError(t, c.AddController(Controller{
		Name:          "app",
		For:           "App",
		NewReconciler: func(Client) Reconciler { return &hookedCounter{} },
	}))
	require.NoError(t, c.Start())
	compacted := false
	for i := range 12 {
		require.NoError(t, c.Apply(&Object{Kind: "App", Namespace: "default", Name: fmt.Sprintf("web-%d", i), Spec: NewFields(Values{"n": int64(i)})}))
		compacted = compacted || c.server.compactedRV > 0
		require.Equal(t, FreshFingerprint(c), c.Fingerprint(), "after write %d", i)
	}
	assert.True(t, compacted, "the history was compacted")
}

// BenchmarkFingerprint hashes a cluster that has run, afresh (the cache
// dropped, as in every execution of an exploration, whose cluster is
// new), then again after one more step (what the cache saves).
func BenchmarkFingerprint(b *testing.B) {
	c := laterCluster(b)
	runSteps(c, 30)
	b.Run("fresh", func(b *testing.B) {
		for b.Loop() {
			c.fpCache = nil
			c.Fingerprint()
		}
	})
	b.Run("cached", func(b *testing.B) {
		for b.Loop() {
			c.Fingerprint()
		}
	})
}
