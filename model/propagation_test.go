package model

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// owned creates a pod named name owned by owners, with finalizers.
func owned(t *testing.T, s *Server, name string, finalizers []string, owners ...OwnerReference) *Object {
	t.Helper()
	p := pod(name)
	p.OwnerReferences = owners
	p.Finalizers = finalizers
	require.NoError(t, s.Create("test", p))
	return p
}

// collect runs the garbage collector until it has nothing to do and
// returns what it did of Orphan and Foreground deletes, step by step.
func collect(t *testing.T, s *Server) []string {
	t.Helper()
	var did []string
	for i := 0; s.GCPending(); i++ {
		require.Less(t, i, 100, "the collector does not stop")
		s.CollectGarbage()
		if s.gcDid != "" {
			did = append(did, s.gcDid)
		}
	}
	return did
}

func TestOrphanDeleteKeepsDependentsAndDropsTheirOwnerReferences(t *testing.T) {
	s, _ := newTestServer(100)
	owner := &Object{Kind: "ReplicaSet", Namespace: "default", Name: "web", Finalizers: []string{"example.com/keep"}}
	require.NoError(t, s.Create("test", owner))
	other := &Object{Kind: "ReplicaSet", Namespace: "default", Name: "other"}
	require.NoError(t, s.Create("test", other))
	owned(t, s, "a", nil, NewOwnerReference(owner))
	owned(t, s, "b", nil, NewOwnerReference(owner), OwnerReference{Kind: "ReplicaSet", Name: "other", UID: other.UID})

	require.NoError(t, s.Delete("test", owner.Ref(), DeleteOptions{Propagation: PropagationOrphan}))
	held := s.Peek(owner.Ref())
	require.NotNil(t, held, "an orphan delete keeps the owner until the collector is done")
	assert.True(t, held.Deleting())
	assert.Equal(t, []string{"example.com/keep", FinalizerOrphan}, held.Finalizers)

	s.CollectGarbage()
	assert.Empty(t, s.Peek(Ref{Kind: "Pod", Namespace: "default", Name: "a"}).OwnerReferences)
	assert.Contains(t, s.Peek(owner.Ref()).Finalizers, FinalizerOrphan, "the finalizer stays while a dependent is owned")
	s.CollectGarbage()
	assert.Equal(t, []OwnerReference{{Kind: "ReplicaSet", Name: "other", UID: other.UID}},
		s.Peek(Ref{Kind: "Pod", Namespace: "default", Name: "b"}).OwnerReferences, "only the reference to the deleted owner goes")
	assert.Equal(t, []string{"orphan: ReplicaSet default/web has no dependents left; finalizer orphan removed"}, collect(t, s))

	assert.Equal(t, []string{"example.com/keep"}, s.Peek(owner.Ref()).Finalizers, "another finalizer still holds the owner")
	assert.Equal(t, 2, s.Count("Pod"), "the dependents are left")
	release := s.Peek(owner.Ref()).DeepCopy()
	release.Finalizers = nil
	require.NoError(t, s.Update("test", release))
	assert.Nil(t, s.Peek(owner.Ref()))
	assert.Empty(t, collect(t, s))
	assert.Equal(t, 2, s.Count("Pod"), "orphans are not collected when their owner goes")
}

func TestOrphanDeleteWithoutDependentsStillPassesThroughTheCollector(t *testing.T) {
	s, _ := newTestServer(100)
	owner := &Object{Kind: "ReplicaSet", Namespace: "default", Name: "web"}
	require.NoError(t, s.Create("test", owner))
	require.NoError(t, s.Delete("test", owner.Ref(), DeleteOptions{Propagation: PropagationOrphan}))
	require.NotNil(t, s.Peek(owner.Ref()))
	assert.Len(t, collect(t, s), 1)
	assert.Nil(t, s.Peek(owner.Ref()))
}

func TestForegroundDeleteKeepsTheOwnerUntilBlockingDependentsAreGone(t *testing.T) {
	s, _ := newTestServer(100)
	d := &Object{Kind: "Deployment", Namespace: "default", Name: "web"}
	require.NoError(t, s.Create("test", d))
	rs := &Object{Kind: "ReplicaSet", Namespace: "default", Name: "web-1", OwnerReferences: []OwnerReference{NewOwnerReference(d)}}
	require.NoError(t, s.Create("test", rs))
	owned(t, s, "web-1-a", nil, NewOwnerReference(rs))
	// A dependent that does not block: the owner does not wait for it.
	loose := NewOwnerReference(d)
	loose.BlockOwnerDeletion = false
	owned(t, s, "loose", []string{"example.com/hold"}, loose)

	require.NoError(t, s.Delete("test", d.Ref(), DeleteOptions{Propagation: PropagationForeground}))
	assert.Equal(t, []string{FinalizerForeground}, s.Peek(d.Ref()).Finalizers)
	assert.True(t, s.Peek(d.Ref()).Deleting())

	s.CollectGarbage()
	assert.Equal(t, "foreground: dependent Pod default/loose of Deployment default/web deleted", s.gcDid)
	// The ReplicaSet has dependents of its own: it is deleted in the
	// foreground too, and the Deployment waits for it.
	s.CollectGarbage()
	assert.Equal(t, "foreground: dependent ReplicaSet default/web-1 of Deployment default/web deleted", s.gcDid)
	assert.Equal(t, []string{FinalizerForeground}, s.Peek(rs.Ref()).Finalizers)
	assert.Equal(t, []string{
		"foreground: dependent Pod default/web-1-a of ReplicaSet default/web-1 deleted",
		"foreground: Deployment default/web waits for its blocking dependents to go",
		"foreground: ReplicaSet default/web-1 has no blocking dependents left; finalizer foregroundDeletion removed",
		"foreground: Deployment default/web has no blocking dependents left; finalizer foregroundDeletion removed",
	}, collect(t, s))
	assert.Nil(t, s.Peek(d.Ref()))
	assert.Nil(t, s.Peek(rs.Ref()))
	left := s.Peek(Ref{Kind: "Pod", Namespace: "default", Name: "loose"})
	require.NotNil(t, left, "a non-blocking dependent held by its finalizer does not hold the owner")
	assert.True(t, left.Deleting())
	assert.Equal(t, 1, s.Count("Pod"))
}

func TestForegroundDeleteWaitsForAFinalizerOfABlockingDependent(t *testing.T) {
	s, _ := newTestServer(100)
	owner := &Object{Kind: "ReplicaSet", Namespace: "default", Name: "web"}
	require.NoError(t, s.Create("test", owner))
	owned(t, s, "a", []string{"example.com/hold"}, NewOwnerReference(owner))

	require.NoError(t, s.Delete("test", owner.Ref(), DeleteOptions{Propagation: PropagationForeground}))
	collect(t, s)
	require.NotNil(t, s.Peek(owner.Ref()), "the owner waits for its blocking dependent")
	assert.False(t, s.GCPending(), "waiting, the collector has nothing to do")

	a := s.Peek(Ref{Kind: "Pod", Namespace: "default", Name: "a"}).DeepCopy()
	require.True(t, a.Deleting())
	a.Finalizers = nil
	require.NoError(t, s.Update("test", a))
	assert.True(t, s.GCPending(), "the dependent's going wakes its owner")
	collect(t, s)
	assert.Nil(t, s.Peek(owner.Ref()))
}

func TestForegroundDeleteLeavesADependentWithAnotherOwner(t *testing.T) {
	s, _ := newTestServer(100)
	owner := &Object{Kind: "ReplicaSet", Namespace: "default", Name: "web"}
	require.NoError(t, s.Create("test", owner))
	other := &Object{Kind: "ReplicaSet", Namespace: "default", Name: "other"}
	require.NoError(t, s.Create("test", other))
	owned(t, s, "shared", nil, NewOwnerReference(owner), OwnerReference{Kind: "ReplicaSet", Name: "other", UID: other.UID})

	require.NoError(t, s.Delete("test", owner.Ref(), DeleteOptions{Propagation: PropagationForeground}))
	collect(t, s)
	assert.Nil(t, s.Peek(owner.Ref()))
	shared := s.Peek(Ref{Kind: "Pod", Namespace: "default", Name: "shared"})
	require.NotNil(t, shared)
	assert.Equal(t, []OwnerReference{{Kind: "ReplicaSet", Name: "other", UID: other.UID}}, shared.OwnerReferences)
}

func TestBackgroundDeleteIsTheDefault(t *testing.T) {
	for _, p := range []Propagation{"", PropagationBackground} {
		s, _ := newTestServer(100)
		owner := &Object{Kind: "ReplicaSet", Namespace: "default", Name: "web"}
		require.NoError(t, s.Create("test", owner))
		owned(t, s, "a", nil, NewOwnerReference(owner))
		require.NoError(t, s.Delete("test", owner.Ref(), DeleteOptions{Propagation: p}))
		assert.Nil(t, s.Peek(owner.Ref()), "the owner goes at once")
		assert.Empty(t, collect(t, s))
		assert.Zero(t, s.Count("Pod"), "its dependents after it")
	}
}

func TestUnknownPropagationPolicyIsInvalid(t *testing.T) {
	s, _ := newTestServer(100)
	owner := &Object{Kind: "ReplicaSet", Namespace: "default", Name: "web"}
	require.NoError(t, s.Create("test", owner))
	err := s.Delete("test", owner.Ref(), DeleteOptions{Propagation: "orphan"})
	assert.Equal(t, ReasonInvalid, ReasonOf(err))
	assert.Contains(t, err.Error(), `Unsupported value: "orphan"`)
	stored := s.Peek(owner.Ref())
	require.NotNil(t, stored)
	assert.False(t, stored.Deleting())
}

func TestTraceNamesThePolicyAndTheCollectorsSteps(t *testing.T) {
	c := NewCluster(Config{})
	require.NoError(t, c.AddController(Controller{Name: "idle", For: "Pod", NewReconciler: func(Client) Reconciler {
		return ReconcilerFunc(func(Request) (Result, error) { return Result{}, nil })
	}}))
	owner := &Object{Kind: "ReplicaSet", Namespace: "default", Name: "web"}
	require.NoError(t, c.Apply(owner))
	stored := c.State().Get("ReplicaSet", "default", "web")
	require.NoError(t, c.Apply(&Object{Kind: "Pod", Namespace: "default", Name: "a", OwnerReferences: []OwnerReference{NewOwnerReference(stored)}}))
	require.NoError(t, c.Start())
	out := c.Outside("user")
	require.NoError(t, out.Delete(owner.Ref(), DeleteOptions{Propagation: PropagationOrphan}))
	for c.server.GCPending() {
		c.Do(Action{Kind: ActCollect})
	}
	var text strings.Builder
	require.NoError(t, c.Trace().WriteText(&text))
	assert.Contains(t, text.String(), "delete ReplicaSet default/web@3 (orphan) (deletion pending on finalizers)")
	assert.Contains(t, text.String(), "[orphan: Pod default/a no longer owned by ReplicaSet default/web]")
	assert.Contains(t, text.String(), "update ReplicaSet default/web@5 (deleted: last finalizer removed)")
	var js strings.Builder
	require.NoError(t, c.Trace().WriteJSON(&js))
	assert.Contains(t, js.String(), `{"verb":"delete","object":"ReplicaSet default/web","rv":3,"writer":"user","propagation":"orphan"}`)
	assert.Equal(t, 1, strings.Count(js.String(), `"propagation"`), "only a delete with a policy other than Background says it")
	assert.NotNil(t, c.State().Get("Pod", "default", "a"))
}

func TestASecondDeleteWithAnotherPolicySwitchesTheFinalizer(t *testing.T) {
	s, clock := newTestServer(100)
	owner := &Object{Kind: "ReplicaSet", Namespace: "default", Name: "web", Finalizers: []string{"example.com/keep"}}
	require.NoError(t, s.Create("test", owner))
	require.NoError(t, s.Delete("test", owner.Ref(), DeleteOptions{Propagation: PropagationOrphan}))
	since := *s.Peek(owner.Ref()).DeletionTimestamp
	clock.After(5, "later", func() {})
	clock.Fire()

	require.NoError(t, s.Delete("test", owner.Ref(), DeleteOptions{Propagation: PropagationForeground}))
	held := s.Peek(owner.Ref())
	assert.Equal(t, []string{"example.com/keep", FinalizerForeground}, held.Finalizers)
	assert.Equal(t, since, *held.DeletionTimestamp, "the deletion timestamp stays")
	assert.Equal(t, PropagationForeground, PropagationOf(held))

	rv := s.Revision()
	require.NoError(t, s.Delete("test", owner.Ref(), DeleteOptions{}))
	assert.Equal(t, rv, s.Revision(), "no policy keeps the finalizers: nothing to write")

	require.NoError(t, s.Delete("test", owner.Ref(), DeleteOptions{Propagation: PropagationBackground}))
	assert.Equal(t, []string{"example.com/keep"}, s.Peek(owner.Ref()).Finalizers)
	assert.Empty(t, PropagationOf(s.Peek(owner.Ref())))
}

func TestABackgroundDeleteOfAnOrphaningOwnerCollectsItsDependents(t *testing.T) {
	s, _ := newTestServer(100)
	owner := &Object{Kind: "ReplicaSet", Namespace: "default", Name: "web"}
	require.NoError(t, s.Create("test", owner))
	owned(t, s, "a", nil, NewOwnerReference(owner))
	require.NoError(t, s.Delete("test", owner.Ref(), DeleteOptions{Propagation: PropagationOrphan}))
	require.NoError(t, s.Delete("test", owner.Ref(), DeleteOptions{Propagation: PropagationBackground}))
	assert.Nil(t, s.Peek(owner.Ref()), "its only finalizer went: the owner goes")
	collect(t, s)
	assert.Zero(t, s.Count("Pod"), "and its dependents, in the background")
}

func TestAnOrphanFinalizerWrittenByHandIsHonoured(t *testing.T) {
	s, _ := newTestServer(100)
	owner := &Object{Kind: "ReplicaSet", Namespace: "default", Name: "web", Finalizers: []string{FinalizerOrphan}}
	require.NoError(t, s.Create("test", owner))
	owned(t, s, "a", nil, NewOwnerReference(owner))
	require.NoError(t, s.Delete("test", owner.Ref(), DeleteOptions{}))
	collect(t, s)
	assert.Nil(t, s.Peek(owner.Ref()))
	assert.Equal(t, 1, s.Count("Pod"), "orphaned, not collected")
}

// TestAControllersClientDeletesWithAPolicy: a controller's delete through
// its client carries the policy, and the collector finishes it.
func TestAControllersClientDeletesWithAPolicy(t *testing.T) {
	c := NewCluster(Config{})
	require.NoError(t, c.AddController(Controller{Name: "cleaner", For: "ReplicaSet", NewReconciler: func(cl Client) Reconciler {
		return ReconcilerFunc(func(req Request) (Result, error) {
			rs, err := cl.Get("ReplicaSet", req.Namespace, req.Name)
			if IsNotFound(err) || err == nil && rs.Deleting() {
				return Result{}, nil
			}
			if err != nil {
				return Result{}, err
			}
			return Result{}, cl.Delete(rs.Ref(), DeleteOptions{UID: rs.UID, Propagation: PropagationForeground})
		})
	}}))
	require.NoError(t, c.Apply(&Object{Kind: "ReplicaSet", Namespace: "default", Name: "web"}))
	rs := c.State().Get("ReplicaSet", "default", "web")
	require.NoError(t, c.Apply(&Object{Kind: "Pod", Namespace: "default", Name: "web-a", OwnerReferences: []OwnerReference{NewOwnerReference(rs)}}))
	require.NoError(t, c.Start())
	runToQuiet(t, c)
	text := traceText(t, c)
	assert.Contains(t, text, "cleaner reconcile ReplicaSet default/web => delete ReplicaSet default/web@3 (foreground) (deletion pending on finalizers)")
	assert.Contains(t, text, "[foreground: dependent Pod default/web-a of ReplicaSet default/web deleted]")
	assert.Nil(t, c.State().Get("ReplicaSet", "default", "web"))
	assert.Nil(t, c.State().Get("Pod", "default", "web-a"))
}
