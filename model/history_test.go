package model

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// snapshotOf renders every stored Pod, in key order, with what a past view
// must reproduce exactly: UID, resourceVersion, deletion timestamp,
// finalizers and spec.
func snapshotOf(objs []*Object) []string {
	var out []string
	for _, o := range objs {
		del := "-"
		if o.DeletionTimestamp != nil {
			del = fmt.Sprint(*o.DeletionTimestamp)
		}
		out = append(out, fmt.Sprintf("%s uid=%s rv=%d deleting=%s finalizers=%v spec=%s", o.Ref(), o.UID, o.ResourceVersion, del, o.Finalizers, o.Spec))
	}
	return out
}

// TestViewAtIsTheExactPastState: after random creates, updates, deletes
// held by finalizers, finalizer removals and re-creations under the same
// name, deletes with every propagation policy among pods that own each
// other, and the garbage collector's writes, the view at every retained
// resourceVersion equals what the store held right after that write; a
// resourceVersion compacted away is Expired.
func TestViewAtIsTheExactPastState(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		clock := &Clock{}
		s := NewServer(clock.Now, rapid.IntRange(1, 8).Draw(t, "window"))
		snapshots := map[uint64][]string{0: nil}
		s.OnWrite(func(w Write) {
			objs, _ := s.List("Pod", ListOptions{})
			snapshots[w.Rev] = snapshotOf(objs)
		})
		names := []string{"a", "b", "c"}
		policies := []Propagation{"", PropagationBackground, PropagationOrphan, PropagationForeground}
		for range rapid.IntRange(0, 30).Draw(t, "writes") {
			name := rapid.SampledFrom(names).Draw(t, "name")
			clock.now++
			if s.GCPending() && rapid.Bool().Draw(t, "collect") {
				s.CollectGarbage()
				continue
			}
			stored, err := s.Get("Pod", "default", name)
			switch {
			case err != nil:
				p := pod(name)
				if rapid.Bool().Draw(t, "finalizer") {
					p.Finalizers = []string{"keep"}
				}
				if owner, err := s.Get("Pod", "default", rapid.SampledFrom(names).Draw(t, "owner")); err == nil && rapid.Bool().Draw(t, "owned") {
					p.OwnerReferences = []OwnerReference{NewOwnerReference(owner)}
				}
				require.NoError(t, s.Create("test", p))
			case stored.Deleting() && len(stored.Finalizers) > 0 && stored.Finalizers[0] == "keep":
				stored.Finalizers = stored.Finalizers[1:]
				require.NoError(t, s.Update("test", stored))
			case rapid.Bool().Draw(t, "delete"):
				policy := rapid.SampledFrom(policies).Draw(t, "policy")
				require.NoError(t, s.Delete("test", stored.Ref(), DeleteOptions{Propagation: policy}))
			default:
				stored.Spec.Set("image", fmt.Sprintf("v%d", clock.now))
				require.NoError(t, s.Update("test", stored))
			}
		}
		for rv := uint64(0); rv <= s.Revision(); rv++ {
			view, err := s.ViewAt("Pod", rv)
			if rv < s.CompactedRV() {
				require.True(t, IsExpired(err), "rv %d below the compacted %d: %v", rv, s.CompactedRV(), err)
				continue
			}
			require.NoError(t, err)
			assert.Equal(t, snapshots[rv], snapshotOf(view), "view at resourceVersion %d", rv)
		}
		_, err := s.ViewAt("Pod", s.Revision()+1)
		assert.True(t, IsInvalid(err), "a view in the future: %v", err)
	})
}

// TestLandmarksAreDeletingDeletedAndRecreated: the landmarks of a time
// travel are the versions, before the one the controller had seen, at
// which an object of a watched kind became deleting, was deleted, or was
// created under a name deleted before; not a plain create or update, not
// an update of an object already deleting, and nothing of other kinds.
func TestLandmarksAreDeletingDeletedAndRecreated(t *testing.T) {
	clock := &Clock{}
	s := NewServer(clock.Now, 100)
	p := pod("a")
	p.Finalizers = []string{"keep"}
	require.NoError(t, s.Create("test", p))                                                                  // 1: created
	require.NoError(t, s.Create("test", pod("b")))                                                           // 2: created
	require.NoError(t, s.Create("test", &Object{Kind: "Set", Namespace: "default", Name: "x"}))              // 3: other kind
	require.NoError(t, s.Delete("test", Ref{Kind: "Pod", Namespace: "default", Name: "a"}, DeleteOptions{})) // 4: deleting
	stored, err := s.Get("Pod", "default", "a")
	require.NoError(t, err)
	stored.Spec.Set("image", "v2")
	require.NoError(t, s.Update("test", stored)) // 5: still deleting
	stored, err = s.Get("Pod", "default", "a")
	require.NoError(t, err)
	stored.Finalizers = nil
	require.NoError(t, s.Update("test", stored))                                                             // 6: deleted
	require.NoError(t, s.Delete("test", Ref{Kind: "Set", Namespace: "default", Name: "x"}, DeleteOptions{})) // 7: other kind
	require.NoError(t, s.Create("test", pod("a")))                                                           // 8: recreated
	require.NoError(t, s.Delete("test", Ref{Kind: "Pod", Namespace: "default", Name: "b"}, DeleteOptions{})) // 9: deleted
	require.Equal(t, uint64(9), s.Revision())
	pods := map[string]bool{"Pod": true}
	assert.Equal(t, []uint64{4, 6, 8, 9}, s.landmarks(pods, 10))
	assert.Equal(t, []uint64{4, 6}, s.landmarks(pods, 8), "only versions before the one seen")
	assert.Equal(t, []uint64{7}, s.landmarks(map[string]bool{"Set": true}, 10))
	assert.Empty(t, s.landmarks(pods, 4))
}
