package fuzzrun_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/converge-sim/converge/fuzzrun"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAnUnwritableOutExitsBeforeAnyRun: an -out no file can be written to
// is a usage error before the first run, for a campaign and an
// exploration alike (issue 37, item 7): a path under a regular file, and
// a directory that exists but takes no file (read-only for a user; /proc,
// which no one can write a file in, for root, whom a mode does not stop).
func TestAnUnwritableOutExitsBeforeAnyRun(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	outs := []string{filepath.Join(file, "findings")}
	if os.Geteuid() != 0 {
		dir := t.TempDir()
		require.NoError(t, os.Chmod(dir, 0o555))
		outs = append(outs, dir)
	} else if info, err := os.Stat("/proc"); err == nil && info.IsDir() {
		outs = append(outs, "/proc")
	}
	for _, out := range outs {
		for _, args := range [][]string{
			{"-scenario", "replicaset-edge", "-faults", "restart", "-runs", "1", "-workers", "1", "-out", out},
			{"-strategy", "exhaustive", "-scenario", "replicaset-edge", "-faults", "restart", "-depth", "1", "-out", out},
		} {
			code, stdout, stderr := run(args...)
			assert.Equal(t, fuzzrun.ExitUsage, code, "%v", args)
			assert.Contains(t, stderr, "fuzzrun: -out", "%v", args)
			assert.Empty(t, stdout, "%v: nothing ran", args)
		}
	}
}

// TestAnExplorationWritesThePageOfItsFinding: -strategy exhaustive -out
// writes a timeline page beside the finding, as a campaign does, and it
// is the page of that finding (issue 37, item 12).
func TestAnExplorationWritesThePageOfItsFinding(t *testing.T) {
	dir := t.TempDir()
	code, out, stderr := run("-strategy", "exhaustive", "-scenario", "replicaset-noresync", "-faults", "drop", "-depth", "5", "-workers", "1", "-out", dir)
	require.Equal(t, fuzzrun.ExitOK, code, "stdout:\n%s\nstderr:\n%s", out, stderr)
	files, err := filepath.Glob(filepath.Join(dir, "finding-*.json"))
	require.NoError(t, err)
	require.Len(t, files, 1)
	page, err := os.ReadFile(strings.TrimSuffix(files[0], ".json") + ".html")
	require.NoError(t, err, "the page beside the finding")
	assert.Contains(t, string(page), "<title>scenario replicaset-noresync, faults drop, seed 0</title>")
	assert.Contains(t, out, "finding written to "+files[0]+" (its timeline page beside it, .html)")
}

// TestTheReadmesReplayExampleRuns: the README's campaign writes the very
// file its -replay line names, and that line replays it (issue 37, item
// 14: the example named a file only fuzzrun/testdata has).
func TestTheReadmesReplayExampleRuns(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	require.NoError(t, err)
	const campaign = "go run ./cmd/fuzzrun -scenario replicaset-edge -faults restart -runs 20 -out findings\n"
	const replay = "go run ./cmd/fuzzrun -replay findings/finding-replicaset-edge-goal-unmet-02082e2a76ba.json\n"
	require.Contains(t, string(readme), campaign)
	require.Contains(t, string(readme), replay)

	dir := t.TempDir()
	args := strings.Fields(strings.TrimPrefix(campaign, "go run ./cmd/fuzzrun "))
	args[len(args)-1] = filepath.Join(dir, "findings")
	code, out, stderr := cli(t, args...)
	require.Equal(t, fuzzrun.ExitOK, code, "stdout:\n%s\nstderr:\n%s", out, stderr)
	file := filepath.Join(dir, "findings", "finding-replicaset-edge-goal-unmet-02082e2a76ba.json")
	assert.FileExists(t, strings.TrimSuffix(file, ".json")+".html")
	code, out, stderr = cli(t, "-replay", file)
	assert.Equal(t, fuzzrun.ExitOK, code, "stdout:\n%s\nstderr:\n%s", out, stderr)
	assert.Contains(t, out, "converges violated (goal-unmet)")
}
