package fuzzrun_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/converge-sim/converge/fuzzrun"
	"github.com/converge-sim/converge/properties"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// seedsRun is what a -runs campaign did, per row: how many runs, and which
// seeds failed.
type seedsRun struct {
	runs    map[string]int
	failing map[string][]uint64
}

func campaignOf(t *testing.T, args ...string) seedsRun {
	t.Helper()
	code, out, stderr := run(append([]string{"-json", "-scenario", "replicaset-edge,replicaset-level", "-faults", "drop"}, args...)...)
	require.NotEqual(t, fuzzrun.ExitUsage, code, stderr)
	evs := events(t, out)
	got := seedsRun{runs: map[string]int{}, failing: map[string][]uint64{}}
	for _, row := range evs["row"] {
		got.runs[row["scenario"].(string)] = int(row["runs"].(float64))
	}
	for _, f := range evs["finding"] {
		name := f["scenario"].(string)
		got.failing[name] = append(got.failing[name], uint64(f["seed"].(float64)))
	}
	for _, seeds := range got.failing {
		slices.Sort(seeds)
	}
	return got
}

// TestShardsTogetherRunWhatOneCampaignRuns: shards 0..2 of a campaign of
// 6 seeds per row run 6 seeds per row between them, and fail on exactly
// the seeds the unsharded campaign fails on, each in one shard only.
func TestShardsTogetherRunWhatOneCampaignRuns(t *testing.T) {
	whole := campaignOf(t, "-runs", "6", "-workers", "1")
	require.NotEmpty(t, whole.failing["replicaset-edge"], "the edge-triggered controller fails on some of 6 seeds")
	union := seedsRun{runs: map[string]int{}, failing: map[string][]uint64{}}
	for i := range 3 {
		part := campaignOf(t, "-runs", "6", "-workers", "1", "-shard", fmt.Sprintf("%d/3", i))
		for name, n := range part.runs {
			assert.Equal(t, 2, n, "shard %d/3 of %s", i, name)
			union.runs[name] += n
		}
		for name, seeds := range part.failing {
			for _, s := range seeds {
				assert.NotContains(t, union.failing[name], s, "seed %d ran in two shards", s)
				assert.Equal(t, uint64(i), (s-1)%3, "seed %d belongs to shard %d/3", s, (s-1)%3)
			}
			union.failing[name] = append(union.failing[name], seeds...)
		}
	}
	for _, seeds := range union.failing {
		slices.Sort(seeds)
	}
	assert.Equal(t, whole, union)
}

// TestWorkerProcessesRunWhatOneProcessRuns: with a fixed seed space, the
// number of worker processes changes how fast, not what.
func TestWorkerProcessesRunWhatOneProcessRuns(t *testing.T) {
	one := campaignOf(t, "-runs", "6", "-workers", "1")
	two := campaignOf(t, "-runs", "6", "-workers", "2")
	assert.Equal(t, one, two)
}

func TestIdenticalFindingsAreWrittenOnceWithACount(t *testing.T) {
	dir := t.TempDir()
	code, out, stderr := run("-json", "-scenario", "replicaset-edge", "-faults", "restart", "-runs", "8", "-workers", "1", "-out", dir)
	require.Equal(t, fuzzrun.ExitOK, code, stderr)
	evs := events(t, out)
	failures := len(evs["finding"])
	require.Greater(t, failures, 1)

	files, err := filepath.Glob(filepath.Join(dir, "*"))
	require.NoError(t, err)
	distinct, total := map[string]bool{}, 0
	for _, ev := range evs["finding"] {
		distinct[ev["file"].(string)] = true
	}
	assert.Len(t, files, 2*len(distinct)+1, "one file and its timeline page per distinct finding, the campaign's summary.json, and nothing else")
	assert.FileExists(t, filepath.Join(dir, "summary.json"))
	files, err = filepath.Glob(filepath.Join(dir, "finding-*.json"))
	require.NoError(t, err)
	for _, path := range files {
		assert.FileExists(t, strings.TrimSuffix(path, ".json")+".html")
		f, err := fuzzrun.ReadFinding(path)
		require.NoError(t, err)
		total += f.Count
		assert.Equal(t, "replicaset-edge", f.Scenario)
		assert.True(t, f.Expected)
		assert.Contains(t, f.Replay, "-replay "+path)
	}
	assert.Equal(t, failures, total, "the counts add up to the failing runs")
	assert.Less(t, len(files), failures, "some failures shrink to the same schedule")

	// A second campaign into the same directory counts on.
	code, _, stderr = run("-scenario", "replicaset-edge", "-faults", "restart", "-seed", edgeSeed, "-runs", "1", "-workers", "1", "-out", dir)
	require.Equal(t, fuzzrun.ExitOK, code, stderr)
	again := 0
	for _, path := range files {
		f, err := fuzzrun.ReadFinding(path)
		require.NoError(t, err)
		again += f.Count
	}
	assert.Equal(t, total+1, again, "seed 1 failed once more, as before")
}

// TestAHungRunIsKilledAndReported: a reconcile that never returns is a
// finding, written like any other, and the campaign goes on.
func TestAHungRunIsKilledAndReported(t *testing.T) {
	dir := t.TempDir()
	code, out, stderr := runWith([]properties.Scenario{hanging()}, "-runs", "1", "-workers", "2", "-run-timeout", "1s", "-out", dir)
	assert.Equal(t, fuzzrun.ExitUnexpected, code, "stdout:\n%s\nstderr:\n%s", out, stderr)
	assert.Contains(t, out, "hang")
	f, path := onlyFinding(t, dir)
	assert.Equal(t, fuzzrun.VerdictHang, f.Verdict)
	assert.Equal(t, "terminates", f.Property)
	assert.InDelta(t, 1, f.RunTimeout, 0)
	assert.Contains(t, f.ReplaySeed, "-scenario hanging -faults drop -seed 1 -run-timeout 1s")

	code, out, _ = runWith([]properties.Scenario{hanging()}, "-replay", path)
	assert.Equal(t, fuzzrun.ExitUnexpected, code)
	assert.Contains(t, out, "replays only by re-running its seed")
}

// TestACrashedWorkerIsReported: user code that exits the process kills the
// worker, not the campaign.
func TestACrashedWorkerIsReported(t *testing.T) {
	dir := t.TempDir()
	code, out, stderr := runWith([]properties.Scenario{crashing()}, "-runs", "2", "-workers", "2", "-out", dir)
	assert.Equal(t, fuzzrun.ExitUnexpected, code, "stdout:\n%s\nstderr:\n%s", out, stderr)
	f, _ := onlyFinding(t, dir)
	assert.Equal(t, fuzzrun.VerdictCrash, f.Verdict)
	assert.Contains(t, f.Summary, "exit status 3")
	assert.Equal(t, 2, f.Count, "both seeds crash the same way")
}

// onlyFinding reads the one finding file in dir (its timeline page may
// lie beside it).
func onlyFinding(t *testing.T, dir string) (*fuzzrun.Finding, string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "finding-*.json"))
	require.NoError(t, err)
	require.Len(t, files, 1)
	path := files[0]
	f, err := fuzzrun.ReadFinding(path)
	require.NoError(t, err)
	return f, path
}
