package fuzzrun

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTheStoreKeepsTheSmallestSeedOfABug: whichever order workers report
// a bug's seeds in, its file ends up the same: the smallest seed, the
// total count (issue 13, defect 6).
func TestTheStoreKeepsTheSmallestSeedOfABug(t *testing.T) {
	base, err := ReadFinding(filepath.Join("testdata", "finding-replicaset-edge-goal-unmet-6122bddfe348.json"))
	require.NoError(t, err)
	contents := map[string]bool{}
	for _, order := range [][]uint64{{5, 3, 4}, {3, 4, 5}, {4, 5, 3}} {
		dir := t.TempDir()
		st, _, err := openStore(dir)
		require.NoError(t, err)
		var path string
		for _, seed := range order {
			f := *base
			f.Seed, f.Count, f.Replay = seed, 1, ""
			stored, _, err := st.add(&f)
			require.NoError(t, err)
			path = stored.path
		}
		got, err := ReadFinding(path)
		require.NoError(t, err)
		assert.Equal(t, uint64(3), got.Seed, "order %v", order)
		assert.Equal(t, 3, got.Count, "order %v", order)
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		contents[strings.ReplaceAll(string(data), dir, "DIR")] = true
	}
	assert.Len(t, contents, 1, "the same file whatever the order")
}
