package faults_test

import (
	"testing"

	"github.com/converge-sim/converge/faults"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEveryKindHasAClassAndAReason: the catalog classes every kind, says
// why, and only drop stands for a handler bug.
func TestEveryKindHasAClassAndAReason(t *testing.T) {
	for _, k := range faults.Kinds() {
		class, err := faults.ClassOf(k)
		require.NoError(t, err, k)
		want := faults.Faithful
		if k == faults.KindDrop {
			want = faults.Adversarial
		}
		assert.Equal(t, want, class, k)
		assert.NotEqual(t, "unknown fault kind", faults.Why(k), k)
		assert.NotEqual(t, "unknown fault kind", faults.Describe(k), k)
	}
	_, err := faults.ClassOf("bogus")
	assert.ErrorContains(t, err, `unknown fault kind "bogus"`)
}

func TestSplitAndScheduleClass(t *testing.T) {
	faithful, adversarial := faults.Mix{faults.KindRestart, faults.KindDrop, faults.KindAPIError}.Split()
	assert.Equal(t, faults.Mix{faults.KindRestart, faults.KindAPIError}, faithful)
	assert.Equal(t, faults.Mix{faults.KindDrop}, adversarial)

	restart := faults.Timed{At: 1, Fault: faults.Restart{Controller: "a", Down: 1}}
	drop := faults.Timed{At: 2, Fault: faults.Drop{Controller: "a", Resource: "Pod"}}
	assert.Equal(t, faults.Faithful, faults.Schedule{}.Class())
	assert.Equal(t, faults.Faithful, faults.Schedule{restart}.Class())
	assert.Equal(t, faults.Adversarial, faults.Schedule{restart, drop}.Class())
}
