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
