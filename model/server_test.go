package model

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func newTestServer(window int) (*Server, *Clock) {
	clock := &Clock{}
	return NewServer(clock.Now, window), clock
}

func pod(name string) *Object {
	return &Object{Kind: "Pod", Namespace: "default", Name: name, Labels: NewLabels(map[string]string{"app": "web"}), Spec: NewFields(Values{"image": "v1"})}
}

func TestCreateAssignsMetadataAndDropsStatus(t *testing.T) {
	s, _ := newTestServer(10)
	p := pod("a")
	p.Status = NewFields(Values{"phase": "Running"})
	require.NoError(t, s.Create("test", p))
	assert.Equal(t, uint64(1), p.ResourceVersion)
	assert.Equal(t, int64(1), p.Generation)
	assert.NotEmpty(t, p.UID)
	assert.Zero(t, p.Status.Len(), "status is written through UpdateStatus only")

	err := s.Create("test", pod("a"))
	assert.True(t, IsAlreadyExists(err), "got %v", err)
}

func TestCreateRejectsInvalidObjects(t *testing.T) {
	s, _ := newTestServer(10)
	assert.True(t, IsInvalid(s.Create("test", &Object{Kind: "Pod"})), "no name nor generateName")
	assert.True(t, IsInvalid(s.Create("test", &Object{Name: "x"})), "no kind")
	bad := pod("b")
	bad.Spec = NewFields(Values{"x": 1.5})
	err := s.Create("test", bad)
	require.True(t, IsInvalid(err))
	assert.Contains(t, err.Error(), "spec.x: unsupported value type float64")
}

func TestGenerateNameIsDeterministic(t *testing.T) {
	names := func() []string {
		s, _ := newTestServer(10)
		var out []string
		for range 3 {
			p := &Object{Kind: "Pod", Namespace: "default", GenerateName: "web-"}
			require.NoError(t, s.Create("test", p))
			out = append(out, p.Name)
		}
		return out
	}
	first := names()
	assert.Equal(t, first, names())
	assert.Len(t, first, 3)
	assert.NotEqual(t, first[0], first[1])
}

func TestReadsAreDeepCopies(t *testing.T) {
	s, _ := newTestServer(10)
	require.NoError(t, s.Create("test", pod("a")))
	got, err := s.Get("Pod", "default", "a")
	require.NoError(t, err)
	got.Labels = got.Labels.With("app", "changed")
	got.Spec.Set("image", "changed")
	again, err := s.Get("Pod", "default", "a")
	require.NoError(t, err)
	assert.Equal(t, "web", again.Labels.Value("app"))
	assert.Equal(t, "v1", again.Spec.Str("image"))

	listed, _ := s.List("Pod", ListOptions{})
	listed[0].Labels = listed[0].Labels.With("app", "changed")
	assert.Equal(t, "web", s.Peek(Ref{"Pod", "default", "a"}).Labels.Value("app"))
}

func TestUpdateConflictsOnStaleResourceVersion(t *testing.T) {
	s, _ := newTestServer(10)
	require.NoError(t, s.Create("test", pod("a")))
	first, _ := s.Get("Pod", "default", "a")
	second, _ := s.Get("Pod", "default", "a")

	first.Spec.Set("image", "v2")
	require.NoError(t, s.Update("writer-1", first))
	second.Spec.Set("image", "v3")
	err := s.Update("writer-2", second)
	assert.True(t, IsConflict(err), "got %v", err)

	// An update without a resourceVersion is unconditional, as in Kubernetes.
	second.ResourceVersion = 0
	require.NoError(t, s.Update("writer-2", second))
	assert.Equal(t, "v3", s.Peek(Ref{"Pod", "default", "a"}).Spec.Str("image"))
}

func TestGenerationCountsSpecChangesOnly(t *testing.T) {
	s, _ := newTestServer(10)
	p := pod("a")
	require.NoError(t, s.Create("test", p))

	p.Labels = p.Labels.With("tier", "front")
	require.NoError(t, s.Update("test", p))
	assert.Equal(t, int64(1), p.Generation, "a label change is not a spec change")

	p.Status = NewFields(Values{"phase": "Running"})
	require.NoError(t, s.UpdateStatus("test", p))
	assert.Equal(t, int64(1), p.Generation, "a status change is not a spec change")

	p.Spec.Set("image", "v2")
	require.NoError(t, s.Update("test", p))
	assert.Equal(t, int64(2), p.Generation)
}

func TestNoOpUpdateWritesNothing(t *testing.T) {
	s, _ := newTestServer(10)
	p := pod("a")
	require.NoError(t, s.Create("test", p))
	var writes int
	s.OnWrite(func(Write) { writes++ })
	rv := p.ResourceVersion
	require.NoError(t, s.Update("test", p))
	require.NoError(t, s.UpdateStatus("test", p))
	assert.Equal(t, rv, p.ResourceVersion)
	assert.Zero(t, writes)
}

func TestUpdateAndUpdateStatusTouchTheirOwnPart(t *testing.T) {
	s, _ := newTestServer(10)
	p := pod("a")
	require.NoError(t, s.Create("test", p))
	p.Status = NewFields(Values{"phase": "Running"})
	p.Spec.Set("image", "ignored-by-status-update")
	require.NoError(t, s.UpdateStatus("test", p))
	stored := s.Peek(p.Ref())
	assert.Equal(t, "v1", stored.Spec.Str("image"))
	assert.Equal(t, "Running", stored.Status.Str("phase"))

	p, _ = s.Get("Pod", "default", "a")
	p.Status = NewFields(Values{"phase": "ignored-by-update"})
	p.Spec.Set("image", "v2")
	require.NoError(t, s.Update("test", p))
	stored = s.Peek(p.Ref())
	assert.Equal(t, "v2", stored.Spec.Str("image"))
	assert.Equal(t, "Running", stored.Status.Str("phase"))
}

func TestFinalizersHoldDeletion(t *testing.T) {
	s, _ := newTestServer(10)
	p := pod("a")
	p.Finalizers = []string{"example.com/cleanup"}
	require.NoError(t, s.Create("test", p))
	require.NoError(t, s.Delete("test", p.Ref(), DeleteOptions{}))
	held, err := s.Get("Pod", "default", "a")
	require.NoError(t, err)
	assert.True(t, held.Deleting())

	held.Finalizers = nil
	require.NoError(t, s.Update("test", held))
	_, err = s.Get("Pod", "default", "a")
	assert.True(t, IsNotFound(err))
}

func TestDeletePreconditions(t *testing.T) {
	s, _ := newTestServer(10)
	p := pod("a")
	require.NoError(t, s.Create("test", p))
	assert.True(t, IsConflict(s.Delete("test", p.Ref(), DeleteOptions{UID: "other"})))
	assert.True(t, IsConflict(s.Delete("test", p.Ref(), DeleteOptions{ResourceVersion: p.ResourceVersion + 1})))
	require.NoError(t, s.Delete("test", p.Ref(), DeleteOptions{UID: p.UID, ResourceVersion: p.ResourceVersion}))
	assert.True(t, IsNotFound(s.Delete("test", p.Ref(), DeleteOptions{})))
}

func TestGarbageCollectionRemovesDependents(t *testing.T) {
	s, _ := newTestServer(10)
	owner := &Object{Kind: "ReplicaSet", Namespace: "default", Name: "web"}
	require.NoError(t, s.Create("test", owner))
	for _, name := range []string{"a", "b"} {
		p := pod(name)
		p.OwnerReferences = []OwnerReference{NewOwnerReference(owner)}
		require.NoError(t, s.Create("test", p))
	}
	other := pod("unowned")
	require.NoError(t, s.Create("test", other))

	require.NoError(t, s.Delete("test", owner.Ref(), DeleteOptions{}))
	assert.True(t, s.GCPending())
	for s.GCPending() {
		s.CollectGarbage()
	}
	assert.Equal(t, 1, s.Count("Pod"))
	assert.NotNil(t, s.Peek(other.Ref()))
}

func TestDependentCreatedForMissingOwnerIsCollected(t *testing.T) {
	s, _ := newTestServer(10)
	p := pod("late")
	p.OwnerReferences = []OwnerReference{{Kind: "ReplicaSet", Name: "gone", UID: "uid-404", Controller: true}}
	require.NoError(t, s.Create("test", p))
	require.True(t, s.GCPending())
	s.CollectGarbage()
	assert.Zero(t, s.Count("Pod"))
}

func TestWatchKeepsPerObjectOrder(t *testing.T) {
	s, _ := newTestServer(100)
	w, err := s.Watch("Pod", 0)
	require.NoError(t, err)
	a, b := pod("a"), pod("b")
	require.NoError(t, s.Create("test", a))
	require.NoError(t, s.Create("test", b))
	a.Spec.Set("image", "v2")
	require.NoError(t, s.Update("test", a))
	require.NoError(t, s.Delete("test", b.Ref(), DeleteOptions{}))
	require.NoError(t, s.Delete("test", a.Ref(), DeleteOptions{}))

	var got []string
	var last uint64
	for _, e := range w.pending {
		got = append(got, e.Type.String()+" "+e.Object.Name)
		assert.Greater(t, e.RV(), last, "events arrive in resourceVersion order")
		last = e.RV()
	}
	assert.Equal(t, []string{"Added a", "Added b", "Modified a", "Deleted b", "Deleted a"}, got)
}

func TestWatchFromCompactedHistoryExpires(t *testing.T) {
	s, _ := newTestServer(2)
	p := pod("a")
	require.NoError(t, s.Create("test", p))
	for i := range 5 {
		p.Spec.Set("n", int64(i))
		require.NoError(t, s.Update("test", p))
	}
	_, err := s.Watch("Pod", 1)
	assert.True(t, IsExpired(err), "got %v", err)
	w, err := s.Watch("Pod", s.Revision()-1)
	require.NoError(t, err)
	assert.Equal(t, 1, w.Pending())
}

// Compacting the history keeps its array: once it has grown to twice the
// window, writes append to it and compaction moves the kept window to its
// start, so the history stops allocating; the events kept are the last
// ones, in order, and a watch from the oldest kept version still opens.
func TestHistoryCompactsInPlace(t *testing.T) {
	const window = 4
	s, _ := newTestServer(window)
	p := pod("a")
	require.NoError(t, s.Create("test", p))
	for i := range 2 * window {
		p.Spec.Set("n", int64(i))
		require.NoError(t, s.Update("test", p))
	}
	start := &s.history[:1][0]
	for i := range 5 * window {
		p.Spec.Set("m", int64(i))
		require.NoError(t, s.Update("test", p))
		assert.Same(t, start, &s.history[:1][0], "write %d moved the history", i)
	}
	require.Len(t, s.history, window+(5*window+2*window+1)%window)
	for i, e := range s.history {
		assert.Equal(t, s.Revision()-uint64(len(s.history)-1-i), e.RV())
	}
	for _, e := range s.history[:cap(s.history)][len(s.history):] {
		assert.Nil(t, e.Object, "a dropped event is cleared, so its objects can be collected")
	}
	_, err := s.Watch("Pod", s.CompactedRV())
	require.NoError(t, err)
	_, err = s.Watch("Pod", s.CompactedRV()-1)
	assert.True(t, IsExpired(err), "got %v", err)
}

func TestInterceptAmbiguousTimeoutAppliesTheWrite(t *testing.T) {
	s, _ := newTestServer(10)
	timeout := &StatusError{Reason: ReasonTimeout, Message: "timed out"}
	applied := true
	s.AddIntercept(func(caller string, verb Verb, ref Ref) (error, bool) { return timeout, applied })
	err := s.Create("ctrl", pod("a"))
	assert.Equal(t, ReasonTimeout, ReasonOf(err))
	assert.Equal(t, 1, s.Count("Pod"), "the write landed although the caller saw an error")

	applied = false
	assert.Error(t, s.Create("ctrl", pod("b")))
	assert.Equal(t, 1, s.Count("Pod"))
}

func TestListUsesSelectorAndOwnerIndexes(t *testing.T) {
	s, _ := newTestServer(10)
	owner := &Object{Kind: "ReplicaSet", Namespace: "default", Name: "web"}
	require.NoError(t, s.Create("test", owner))
	for _, name := range []string{"c", "a", "b"} {
		p := pod(name)
		if name != "b" {
			p.OwnerReferences = []OwnerReference{NewOwnerReference(owner)}
		}
		require.NoError(t, s.Create("test", p))
	}
	other := pod("z")
	other.Labels = NewLabels(map[string]string{"app": "db"})
	require.NoError(t, s.Create("test", other))

	names := func(objs []*Object) []string {
		var out []string
		for _, o := range objs {
			out = append(out, o.Name)
		}
		return out
	}
	byLabel, _ := s.List("Pod", ListOptions{Selector: Selector{"app": "web"}})
	assert.Equal(t, []string{"a", "b", "c"}, names(byLabel))
	byOwner, _ := s.List("Pod", ListOptions{Owner: owner.UID})
	assert.Equal(t, []string{"a", "c"}, names(byOwner))
	none, _ := s.List("Pod", ListOptions{Selector: Selector{"app": "none"}})
	assert.Empty(t, none)
	otherNS, _ := s.List("Pod", ListOptions{Namespace: "kube-system"})
	assert.Empty(t, otherNS)
}

func TestWritesGiveTheCallerNormalizedFields(t *testing.T) {
	s, _ := newTestServer(10)
	p := pod("a")
	p.Spec.Set("replicas", 3) // an int, stored as int64
	require.NoError(t, s.Create("test", p))
	assert.Equal(t, int64(3), p.Spec.Int("replicas"), "the caller's copy reads back what was stored")
	p.Spec.Set("replicas", 4)
	require.NoError(t, s.Update("test", p))
	assert.Equal(t, int64(4), p.Spec.Int("replicas"))
	p.Status = NewFields(Values{"ready": 1})
	require.NoError(t, s.UpdateStatus("test", p))
	assert.Equal(t, int64(1), p.Status.Int("ready"))
}

// TestAFreshHistoryHasRoomForAShortRun checks that a new server's history
// takes a short run's events without growing: a search builds a server
// per run (BENCHMARKS.md, "Sixth round").
func TestAFreshHistoryHasRoomForAShortRun(t *testing.T) {
	s, _ := newTestServer(1000)
	p := pod("a")
	require.NoError(t, s.Create("test", p))
	start := &s.history[:1][0]
	for i := range initialHistory - 1 {
		p.Spec.Set("n", int64(i))
		require.NoError(t, s.Update("test", p))
	}
	require.Len(t, s.history, initialHistory)
	assert.Same(t, start, &s.history[:1][0], "the history did not grow")

	small, _ := newTestServer(4)
	assert.Equal(t, 8, cap(small.history), "no more room than two windows, where it compacts")
}

// TestSmallUIDsAreTheLongForm checks that a UID from the table made once
// is the "uid-N" a concatenation makes, at both ends of the table and past
// it, and that one from the table costs no allocation.
func TestSmallUIDsAreTheLongForm(t *testing.T) {
	for _, n := range []uint64{0, 1, 9, 10, 99, 100, 1022, 1023, 1024, 1025, 123456} {
		assert.Equal(t, UID("uid-"+strconv.FormatUint(n, 10)), uidOf(n), "n=%d", n)
	}
	assert.Equal(t, 0.0, testing.AllocsPerRun(100, func() { _ = uidOf(517) }))
}
