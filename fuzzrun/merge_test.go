package fuzzrun_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/converge-sim/converge/fuzzrun"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// shardRun runs shard i of n of a campaign with -out dir and returns the
// directory.
func shardRun(t *testing.T, dir string, i, n int, args ...string) string {
	t.Helper()
	out := filepath.Join(dir, fmt.Sprintf("shard-%d", i))
	args = append(args, "-workers", "1", "-shard", fmt.Sprintf("%d/%d", i, n), "-out", out)
	code, stdout, stderr := run(args...)
	require.Contains(t, []int{fuzzrun.ExitOK, fuzzrun.ExitUnexpected, fuzzrun.ExitNotShown}, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
	return out
}

func findingFiles(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "finding-*.json"))
	require.NoError(t, err)
	return files
}

// TestMergeCountsABugOnceWithItsSmallestSeed: two shards of one campaign
// each find replicaset-edge's bug under restart; the merge keeps one
// finding, with the smallest seed either shard saw, the sum of their
// counts, its page beside it and a replay line naming the merged file,
// and the row's runs are the shards' together (issue 36, item 3).
func TestMergeCountsABugOnceWithItsSmallestSeed(t *testing.T) {
	dir := t.TempDir()
	// Rapid's seeds alone (-no-plan): a planned run finds the same bug
	// with another schedule, a second file.
	campaign := []string{"-scenario", "replicaset-edge", "-faults", "restart", "-runs", "12", "-no-plan"}
	a, b := shardRun(t, dir, 0, 2, campaign...), shardRun(t, dir, 1, 2, campaign...)
	fa, fb := findingFiles(t, a), findingFiles(t, b)
	require.Len(t, fa, 1)
	require.Len(t, fb, 1)
	require.Equal(t, filepath.Base(fa[0]), filepath.Base(fb[0]), "both shards found the same bug")
	shardA, err := fuzzrun.ReadFinding(fa[0])
	require.NoError(t, err)
	shardB, err := fuzzrun.ReadFinding(fb[0])
	require.NoError(t, err)

	out := filepath.Join(dir, "merged")
	code, stdout, stderr := run("-merge", "-out", out, a, b)
	require.Equal(t, fuzzrun.ExitOK, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
	merged := findingFiles(t, out)
	require.Len(t, merged, 1)
	f, err := fuzzrun.ReadFinding(merged[0])
	require.NoError(t, err)
	assert.Equal(t, min(shardA.Seed, shardB.Seed), f.Seed, "the smallest seed is kept")
	assert.Equal(t, shardA.Count+shardB.Count, f.Count, "counts add up")
	assert.True(t, strings.HasSuffix(f.Replay, " -replay "+merged[0]), "the replay line names the merged file: %s", f.Replay)
	assert.FileExists(t, strings.TrimSuffix(merged[0], ".json")+".html", "the page moves with its finding")
	assert.Contains(t, stdout, "found by 2 of 2 shards")
	assert.Contains(t, stdout, "merged 2 shards: 12 runs, 1 distinct findings")

	var sum fuzzrun.Summary
	data, err := os.ReadFile(filepath.Join(out, "summary.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &sum))
	require.Len(t, sum.Rows, 1)
	assert.Equal(t, 12, sum.Rows[0].Runs, "each shard ran its half of the 12 seeds")
	assert.Equal(t, min(shardA.Seed, shardB.Seed), sum.Rows[0].FirstFailingSeed)
	assert.True(t, sum.Rows[0].OK)
	assert.Equal(t, fuzzrun.ExitOK, sum.ExitCode)

	// The merged file replays.
	code, stdout, stderr = run("-replay", merged[0])
	assert.Equal(t, fuzzrun.ExitOK, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
}

// TestMergeExitCodes: a row that must fail and that no shard showed is
// NOT SHOWN (exit 3) in the merge, but shown when one shard showed it;
// an unexpected finding in any shard makes the merge exit 1.
func TestMergeExitCodes(t *testing.T) {
	dir := t.TempDir()
	// replicaset-noresync first fails under drop at a seed beyond the
	// first few: a shard of 2 runs shows nothing.
	quiet := shardRun(t, dir, 0, 2, "-scenario", "replicaset-noresync", "-faults", "drop", "-runs", "2", "-duration", "1h")
	code, stdout, stderr := run("-merge", "-out", filepath.Join(dir, "m1"), quiet)
	assert.Equal(t, fuzzrun.ExitNotShown, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
	assert.Contains(t, stdout, "NOT SHOWN")

	edge := []string{"-scenario", "replicaset-edge", "-faults", "restart", "-runs", "12", "-no-plan"}
	shown := shardRun(t, dir, 1, 2, edge...)
	code, stdout, stderr = run("-merge", "-out", filepath.Join(dir, "m2"), quiet, shown)
	assert.Equal(t, fuzzrun.ExitNotShown, code, "noresync is still shown by no shard:\n%s\n%s", stdout, stderr)

	// A finding a row does not expect: replicaset-level must converge
	// under every fault, so the unexpected finding is forged from an
	// expected one by marking it unexpected.
	files := findingFiles(t, shown)
	require.Len(t, files, 1)
	data, err := os.ReadFile(files[0])
	require.NoError(t, err)
	forged := filepath.Join(dir, "forged")
	require.NoError(t, os.MkdirAll(forged, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(forged, filepath.Base(files[0])), []byte(strings.Replace(string(data), `"expected": true`, `"expected": false`, 1)), 0o644))
	code, stdout, stderr = run("-merge", "-out", filepath.Join(dir, "m3"), forged)
	assert.Equal(t, fuzzrun.ExitUnexpected, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
	assert.Contains(t, stdout, "(UNEXPECTED)")
	assert.Contains(t, stderr, "has no summary.json", "a shard without a summary is said")
}

// TestMergeRefusesBadInput: a corrupt finding or summary, a directory
// given twice, -out among the shards or already holding findings, and
// flags of a campaign are usage errors naming the problem, and nothing is
// merged.
func TestMergeRefusesBadInput(t *testing.T) {
	dir := t.TempDir()
	good := shardRun(t, dir, 0, 1, "-scenario", "replicaset-edge", "-faults", "restart", "-runs", "4")
	corrupt := filepath.Join(dir, "corrupt")
	require.NoError(t, os.MkdirAll(corrupt, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(corrupt, "finding-x.json"), []byte("{"), 0o644))
	badSummary := filepath.Join(dir, "badsummary")
	require.NoError(t, os.MkdirAll(badSummary, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(badSummary, "summary.json"), []byte(`{"format":"converge-summary/1","rows":[],"exit_code":7}`), 0o644))
	empty := filepath.Join(dir, "empty")
	require.NoError(t, os.MkdirAll(empty, 0o755))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-merge", "-out", filepath.Join(dir, "o1"), good, corrupt}, "finding file " + filepath.Join(corrupt, "finding-x.json") + " is corrupt"},
		{[]string{"-merge", "-out", filepath.Join(dir, "o2"), badSummary}, "summary file " + filepath.Join(badSummary, "summary.json") + " is corrupt: exit code 7"},
		{[]string{"-merge", "-out", filepath.Join(dir, "o3"), good, good}, "is given twice"},
		{[]string{"-merge", "-out", good, good}, "is one of the shard directories"},
		{[]string{"-merge", "-out", good, corrupt}, "already holds"},
		{[]string{"-merge", "-out", filepath.Join(dir, "o4"), empty}, "holds neither findings nor a summary.json"},
		{[]string{"-merge", "-out", filepath.Join(dir, "o5"), filepath.Join(dir, "missing")}, "shard directory"},
		{[]string{"-merge", good}, "-merge needs -out"},
		{[]string{"-merge", "-out", filepath.Join(dir, "o6")}, "needs the shard directories"},
		{[]string{"-merge", "-out", filepath.Join(dir, "o7"), "-runs", "3", good}, "not -runs"},
		{[]string{"-out", filepath.Join(dir, "o8"), good}, "shard directories are for -merge"},
	} {
		code, stdout, stderr := run(tc.args...)
		assert.Equal(t, fuzzrun.ExitUsage, code, "%v\nstdout:\n%s", tc.args, stdout)
		assert.Contains(t, stderr, tc.want, "%v", tc.args)
	}
	for _, o := range []string{"o1", "o2", "o3"} {
		assert.Empty(t, findingFiles(t, filepath.Join(dir, o)), "%s: nothing merged", o)
	}
}

// TestMergeThroughTheBinary: the merge step of docs/ci.md's recipes,
// through a real subprocess, with -json events.
func TestMergeThroughTheBinary(t *testing.T) {
	dir := t.TempDir()
	campaign := []string{"-scenario", "replicaset-edge", "-faults", "restart", "-runs", "8"}
	a, b := shardRun(t, dir, 0, 2, campaign...), shardRun(t, dir, 1, 2, campaign...)
	code, stdout, stderr := cli(t, "-merge", "-json", "-out", filepath.Join(dir, "merged"), a, b)
	require.Equal(t, fuzzrun.ExitOK, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
	evs := events(t, stdout)
	require.Len(t, evs["row"], 1)
	require.Len(t, evs["merged-finding"], 1)
	require.Len(t, evs["merge-summary"], 1)
	assert.EqualValues(t, 2, evs["merged-finding"][0]["shards"])
	assert.EqualValues(t, 8, evs["merge-summary"][0]["runs"])
	assert.EqualValues(t, 0, evs["merge-summary"][0]["exit_code"])
}
