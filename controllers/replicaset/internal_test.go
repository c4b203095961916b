package replicaset

import (
	"cmp"
	"fmt"
	"slices"
	"testing"

	"github.com/converge-sim/converge/model"
	"github.com/stretchr/testify/assert"
)

// TestStatusFieldsAreNewFieldsOfTheCounts cross-checks the status the
// level controller builds pair by pair against NewFields of the same
// counts, and checks it costs one allocation (the pairs; counts under 256
// box without one), where NewFields of a map costs more.
func TestStatusFieldsAreNewFieldsOfTheCounts(t *testing.T) {
	for _, c := range [][3]int64{{0, 0, 0}, {3, 1, 2}, {5, 5, 1}, {1000, 999, 77}} {
		want := model.NewFields(model.Values{"replicas": c[0], "readyReplicas": c[1], "observedGeneration": c[2]})
		got := statusFields(c[0], c[1], c[2])
		assert.True(t, want.Equal(got), "%v: %v", c, got)
		assert.True(t, statusHolds(got, c[0], c[1], c[2]))
	}
	assert.Equal(t, 1.0, testing.AllocsPerRun(100, func() { statusFields(3, 2, 1) }))
}

// TestVictimsOfNoneRanksNothing checks that a reconcile that deletes no
// pod neither copies nor sorts its active pods.
func TestVictimsOfNoneRanksNothing(t *testing.T) {
	rs := New("default", "web", 2)
	active := []*model.Object{NewPod(rs), NewPod(rs)}
	assert.Empty(t, victims(active, 0))
	assert.Equal(t, 0.0, testing.AllocsPerRun(100, func() { victims(active, 0) }))
	assert.Len(t, victims(active, 1), 1)
}

// TestVictimsRankInPlaceAsACopyWould checks that victims, which ranks the
// reconcile's own slice of active pods in place, picks the pods a ranking
// of a copy picks, in the same order, and allocates nothing.
func TestVictimsRankInPlaceAsACopyWould(t *testing.T) {
	rs := New("default", "web", 9)
	var pods []*model.Object
	for i := range 9 {
		p := NewPod(rs)
		p.Name = fmt.Sprintf("web-%d", i)
		switch i % 3 { // unscheduled, scheduled and not ready, ready
		case 1:
			p.Spec.Set("nodeName", "node-1")
		case 2:
			p.Spec.Set("nodeName", "node-1")
			p.Status = RunningReady()
		}
		pods = append(pods, p)
	}
	reference := func(active []*model.Object, n int) []*model.Object {
		ranked := slices.Clone(active)
		slices.Reverse(ranked)
		slices.SortStableFunc(ranked, func(a, b *model.Object) int { return cmp.Compare(availability(a), availability(b)) })
		return ranked[:n]
	}
	for n := 1; n <= len(pods); n++ {
		want := reference(pods, n)
		active := slices.Clone(pods)
		got := victims(active, n)
		assert.Equal(t, want, got, "n=%d", n)
		assert.ElementsMatch(t, pods, active, "n=%d: the active pods are only reordered", n)
	}
	active := slices.Clone(pods)
	assert.Equal(t, 0.0, testing.AllocsPerRun(100, func() { victims(active, 3) }))
}

// TestNewPodIsOneAllocationWithItsOwner checks that a new pod and its
// owner reference are one allocation: NewPod makes the pod, its name's
// prefix and its labels (one label, one allocation), and nothing more.
func TestNewPodIsOneAllocationWithItsOwner(t *testing.T) {
	rs := New("default", "web", 2)
	p := NewPod(rs)
	assert.Equal(t, []model.OwnerReference{model.NewOwnerReference(rs)}, p.OwnerReferences)
	assert.True(t, p.IsControlledBy(rs))
	assert.Equal(t, 3.0, testing.AllocsPerRun(100, func() { NewPod(rs) }))
}
