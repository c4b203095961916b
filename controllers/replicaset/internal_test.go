package replicaset

import (
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
