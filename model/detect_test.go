package model

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// peekingCluster runs a controller that lists its pods without copying on
// every reconcile and hands pod "a", the cache's own object, to mutate
// (nil: read only). Pod a has a label, a finalizer, an owner and, deleted
// while its finalizer holds it, a deletion time.
func peekingCluster(t *testing.T, mutate *func(*Object)) *Cluster {
	t.Helper()
	c := NewCluster(Config{})
	require.NoError(t, c.AddController(Controller{
		Name: "peeker", For: "Pod",
		NewReconciler: func(cl Client) Reconciler {
			return ReconcilerFunc(func(Request) (Result, error) {
				pods, err := cl.PeekList("Pod", ListOptions{Namespace: "default"})
				for _, p := range pods {
					if p.Name == "a" && *mutate != nil {
						(*mutate)(p)
					}
				}
				return Result{}, err
			})
		},
	}))
	owner := &Object{Kind: "ConfigMap", Namespace: "default", Name: "owner"}
	out := c.Outside("setup")
	require.NoError(t, out.Create(owner))
	a := pod("a")
	a.Finalizers = []string{"example.com/hold"}
	a.OwnerReferences = []OwnerReference{{Kind: "ConfigMap", Name: "owner", UID: owner.UID}}
	require.NoError(t, out.Create(a))
	require.NoError(t, out.Delete(a.Ref(), DeleteOptions{}))
	require.NoError(t, out.Create(pod("b")))
	require.NoError(t, c.Start())
	settle(t, c)
	return c
}

func settle(t *testing.T, c *Cluster) {
	t.Helper()
	for i := 0; c.Busy(); i++ {
		require.Less(t, i, 1000, "the cluster does not settle")
		c.Do(c.Enabled(nil)[0])
	}
}

// TestCacheMutationDetectorCatchesEveryPartOfALentObject mutates each part
// of an object read without copying, in a step after the one that first
// lent its version (so the detector compares with a copy it made earlier),
// and checks that the mutation is reported and undone.
func TestCacheMutationDetectorCatchesEveryPartOfALentObject(t *testing.T) {
	for _, tc := range []struct {
		name    string
		mutate  func(*Object)
		changes []string
	}{
		{"label set", func(o *Object) { o.Labels = o.Labels.With("team", "web") }, []string{`metadata.labels.team: <none>→"web"`}},
		{"label changed", func(o *Object) { o.Labels = o.Labels.With("app", "db") }, []string{`metadata.labels.app: "web"→"db"`}},
		{"label removed", func(o *Object) { o.Labels = o.Labels.Without("app") }, []string{`metadata.labels.app: "web"→<none>`}},
		{"labels replaced", func(o *Object) { o.Labels = NewLabels(map[string]string{"app": "web", "x": "y"}) }, []string{`metadata.labels.x: <none>→"y"`}},
		{"labels dropped", func(o *Object) { o.Labels = Labels{} }, []string{`metadata.labels.app: "web"→<none>`}},
		{"spec", func(o *Object) { o.Spec.Set("image", "v2") }, []string{`spec.image: "v1"→"v2"`}},
		{"status", func(o *Object) { o.Status.Set("phase", "Running") }, []string{`status.phase: <none>→"Running"`}},
		{"finalizer in place", func(o *Object) { o.Finalizers[0] = "other" }, nil},
		{"finalizers appended", func(o *Object) { o.Finalizers = append(o.Finalizers, "more") }, nil},
		{"owner reference in place", func(o *Object) { o.OwnerReferences[0].Controller = true }, nil},
		{"deletion time in place", func(o *Object) { *o.DeletionTimestamp += 5 }, nil},
		{"deletion time dropped", func(o *Object) { o.DeletionTimestamp = nil }, nil},
		{"resource version", func(o *Object) { o.ResourceVersion++ }, nil},
		{"name", func(o *Object) { o.Name = "renamed" }, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mutate func(*Object)
			c := peekingCluster(t, &mutate)
			ref := Ref{Kind: "Pod", Namespace: "default", Name: "a"}
			before := c.Server().Peek(ref).DeepCopy()
			require.Nil(t, c.CacheMutation(), "reading alone is no mutation")

			mutate = tc.mutate
			b := c.Server().Peek(Ref{Kind: "Pod", Namespace: "default", Name: "b"}).DeepCopy()
			require.NoError(t, c.Outside("user").Set(b, "spec.image", "v3")) // a reconcile to run
			settle(t, c)

			m := c.CacheMutation()
			require.NotNil(t, m, "the mutation is caught")
			assert.Equal(t, "peeker", m.Controller)
			assert.Equal(t, ref, m.Object)
			var changes []string
			for _, ch := range m.Changes {
				changes = append(changes, ch.String())
			}
			assert.Equal(t, tc.changes, changes)
			after := c.Server().Peek(ref)
			assert.Equal(t, before, after.DeepCopy(), "the stored object is restored")
			assert.Empty(t, Diff(before, after))
		})
	}
}

// TestLentVersionMadeByStructCopyGetsItsOwnCopy checks that a version made
// from another by copying the struct (as the server makes a deletion's last
// state) is not compared with the other version's copy.
func TestLentVersionMadeByStructCopyGetsItsOwnCopy(t *testing.T) {
	c := NewCluster(Config{})
	v1 := pod("a")
	v1.ResourceVersion = 1
	c.lend("ctl", v1)
	c.checkLent()
	require.NotNil(t, v1.snap)

	v2 := *v1 // carries v1's copy along
	v2.ResourceVersion = 2
	v2.Spec.Set("image", "v2")
	c.lend("ctl", &v2)
	c.checkLent()
	assert.Nil(t, c.CacheMutation(), "v2 is compared with a copy of itself")
	assert.Same(t, &v2, v2.snap.of)

	c.lend("ctl", &v2)
	v2.Labels = NewLabels(map[string]string{"app": "db"}) // v2 has its own labels now
	c.checkLent()
	m := c.CacheMutation()
	require.NotNil(t, m)
	assert.Equal(t, []FieldChange{{Path: "metadata.labels.app", Old: "web", New: "db"}}, m.Changes)
	assert.Equal(t, uint64(2), v2.ResourceVersion)
	assert.Equal(t, "v2", v2.Spec.Str("image"))
	assert.Equal(t, "web", v2.Labels.Value("app"), "restored")
	assert.Equal(t, "web", v1.Labels.Value("app"))
}
