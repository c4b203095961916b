package properties

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestTheCorpusEvictsWhatOthersCover: past its bound, a corpus evicts the
// oldest entry whose every feature another entry also holds, not the
// oldest; when each entry holds a feature of its own, the oldest goes.
// The features seen stay seen.
func TestTheCorpusEvictsWhatOthersCover(t *testing.T) {
	m := &corpus{seen: map[uint64]bool{}, holders: map[uint64]int{}, limit: 2}
	for i, fs := range [][]uint64{{1}, {2}, {2, 3}} {
		assert.True(t, m.add(fs))
		m.keep(coverageRun{features: fs, choices: []int{i}})
	}
	assert.Equal(t, [][]uint64{{1}, {2, 3}}, featuresOf(m), "{2} is covered by {2, 3}: it goes, not the older {1}")
	assert.Equal(t, 1, m.evicted)

	assert.True(t, m.add([]uint64{4}))
	m.keep(coverageRun{features: []uint64{4}})
	assert.Equal(t, [][]uint64{{2, 3}, {4}}, featuresOf(m), "each holds a feature of its own: the oldest goes")
	assert.Equal(t, map[uint64]int{2: 1, 3: 1, 4: 1}, m.holders)
	assert.False(t, m.add([]uint64{1}), "an evicted entry's features stay seen")

	unbounded := &corpus{seen: map[uint64]bool{}, holders: map[uint64]int{}}
	for _, fs := range [][]uint64{{1}, {2}, {2, 3}} {
		unbounded.keep(coverageRun{features: fs})
	}
	assert.Len(t, unbounded.entries, 3, "no limit, no eviction")
}

func featuresOf(m *corpus) [][]uint64 {
	var out [][]uint64
	for _, e := range m.entries {
		out = append(out, e.features)
	}
	return out
}
