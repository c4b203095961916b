package fuzzrun

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/scenarios"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// edgeFinding reads the testdata finding of replicaset-edge under restart.
func edgeFinding(t *testing.T) *Finding {
	t.Helper()
	f, err := ReadFinding(filepath.Join("testdata", "finding-replicaset-edge-goal-unmet-6122bddfe348.json"))
	require.NoError(t, err)
	return f
}

// edgeRows are replicaset-edge's rows under the given mixes, in order.
func edgeRows(t *testing.T, mixes ...string) []Row {
	t.Helper()
	sc, ok := find(scenarios.All(), "replicaset-edge")
	require.True(t, ok)
	var rows []Row
	for _, m := range mixes {
		mix, err := faults.ParseMix(m)
		require.NoError(t, err)
		rows = append(rows, Row{Scenario: sc, Mix: mix})
	}
	return rows
}

// TestTheStoreKeepsTheSmallestSeedOfABug: whichever order workers report
// a bug's seeds in, its file ends up the same: the smallest seed, the
// total count (issue 13, defect 6).
func TestTheStoreKeepsTheSmallestSeedOfABug(t *testing.T) {
	base := edgeFinding(t)
	contents := map[string]bool{}
	for _, order := range [][]uint64{{5, 3, 4}, {3, 4, 5}, {4, 5, 3}} {
		dir := t.TempDir()
		st, _, err := openStore(dir, nil)
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
	assert.Equal(t, 1, len(contents), "the same file whatever the order")
}

// TestTheStoreBreaksASeedTieByRowOrder: two rows of one scenario find the
// same bug at the same seed; the file and its page hold the row listed
// first, whichever reports first (issue 37, item 5: the file held faults
// "none" or "drop,restart" as the workers' timing fell).
func TestTheStoreBreaksASeedTieByRowOrder(t *testing.T) {
	rows := edgeRows(t, "restart", "drop,restart")
	base := edgeFinding(t)
	of := func(mix string) *Finding {
		f := *base
		f.Faults, f.Count, f.Replay = mix, 1, ""
		return &f
	}
	files, pages := map[string]bool{}, map[string]bool{}
	for _, order := range [][]string{{"restart", "drop,restart"}, {"drop,restart", "restart"}} {
		dir := t.TempDir()
		st, _, err := openStore(dir, rows)
		require.NoError(t, err)
		var path string
		for _, mix := range order {
			stored, _, err := st.add(of(mix))
			require.NoError(t, err)
			path = stored.path
		}
		got, err := ReadFinding(path)
		require.NoError(t, err)
		assert.Equal(t, "restart", got.Faults, "order %v: the first row's finding", order)
		assert.Equal(t, 2, got.Count, "order %v", order)
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		files[strings.ReplaceAll(string(data), dir, "DIR")] = true
		page, err := os.ReadFile(timelinePath(path))
		require.NoError(t, err)
		pages[strings.ReplaceAll(string(page), dir, "DIR")] = true
	}
	assert.Equal(t, 1, len(files), "the same file whatever the order")
	assert.Equal(t, 1, len(pages), "the same page whatever the order")
}

// TestAFindingsPageIsReplacedWithItsFile: a smaller seed of a known bug
// replaces its page with its file; a page that cannot be written leaves
// the file without a page rather than beside the old one (issue 37, item
// 12: a seed-89 page beside a seed-0 finding).
func TestAFindingsPageIsReplacedWithItsFile(t *testing.T) {
	rows := edgeRows(t, "restart")
	base := edgeFinding(t)
	dir := t.TempDir()
	st, _, err := openStore(dir, rows)
	require.NoError(t, err)
	add := func(seed uint64) (*stored, error) {
		f := *base
		f.Seed, f.Count, f.Replay = seed, 1, ""
		stored, _, err := st.add(&f)
		return stored, err
	}
	stored, err := add(89)
	require.NoError(t, err)
	page, err := os.ReadFile(timelinePath(stored.path))
	require.NoError(t, err)
	assert.Contains(t, string(page), "seed 89")

	_, err = add(7)
	require.NoError(t, err)
	page, err = os.ReadFile(timelinePath(stored.path))
	require.NoError(t, err)
	assert.Contains(t, string(page), "seed 7")
	assert.NotContains(t, string(page), "seed 89")

	full := errors.New("no space left on device")
	st.write = func(path string, data []byte) error {
		if strings.HasSuffix(path, ".html") {
			return full
		}
		return writeAtomic(path, data)
	}
	_, err = add(2)
	require.ErrorIs(t, err, full)
	got, err := ReadFinding(stored.path)
	require.NoError(t, err)
	assert.Equal(t, uint64(2), got.Seed, "the file is written all the same")
	assert.NoFileExists(t, timelinePath(stored.path), "no page of seed 7 beside the file of seed 2")
}

// TestAnUnwritableOutIsFoundAtTheStart: a directory where no file can be
// written is refused before anything runs, even for root (issue 37, item
// 7).
func TestAnUnwritableOutIsFoundAtTheStart(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	_, _, err := openStore(filepath.Join(file, "findings"), nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "-out")

	dir := t.TempDir()
	_, _, err = openStore(dir, nil)
	require.NoError(t, err)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries, "the probe is removed")
}

// TestAFailedWriteStopsTheCampaign: on a full disk every finding's write
// fails; the campaign says so once, runs no more jobs, prints its summary
// and exits 2 (issue 37, item 7: 1,351 lines in 15 s). A page that cannot
// be written fails the same way.
func TestAFailedWriteStopsTheCampaign(t *testing.T) {
	for _, what := range []string{".json", ".html"} {
		t.Run(what, func(t *testing.T) {
			var stdout, stderr strings.Builder
			opts, err := parse([]string{"-scenario", "replicaset-edge", "-faults", "restart", "-runs", "50", "-workers", "1", "-out", t.TempDir()},
				&stderr, scenarios.All(), func(string) string { return "" })
			require.NoError(t, err)
			c, _, err := newCampaign(opts, &stdout, &stderr)
			require.NoError(t, err)
			full := errors.New("no space left on device")
			c.store.write = func(path string, data []byte) error {
				if strings.HasSuffix(path, what) {
					return full
				}
				return writeAtomic(path, data)
			}
			code := c.run()
			assert.Equal(t, ExitUsage, code)
			assert.Equal(t, 1, strings.Count(stderr.String(), "cannot write finding"), stderr.String())
			assert.Contains(t, stderr.String(), "no space left on device; stopping the campaign")
			assert.Less(t, c.runs, 50, "the campaign stopped")
			assert.Contains(t, stdout.String(), "writes to "+opts.out+" failed", "the summary")
		})
	}
}
