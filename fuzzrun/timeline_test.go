//go:build unix

package fuzzrun_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/fuzzrun"
	"github.com/converge-sim/converge/properties"
	"github.com/converge-sim/converge/scenarios"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTimelinePages runs the fuzzrun binary: -html writes the page of a
// replay, a campaign with -out writes one beside each finding file, and
// -html without a replay is a usage error.
func TestTimelinePages(t *testing.T) {
	bin := buildFuzzrun(t)
	dir := t.TempDir()

	t.Run("replay of a finding", func(t *testing.T) {
		page := filepath.Join(dir, "replay.html")
		out, err := exec.Command(bin, "-replay", edgeFinding, "-html", page).Output()
		require.NoError(t, err)
		assert.Contains(t, string(out), "timeline: "+page)
		data, err := os.ReadFile(page)
		require.NoError(t, err)
		assert.Contains(t, string(data), "scenario replicaset-edge, faults restart, seed 1")
		assert.Contains(t, string(data), `"Verdict":"goal-unmet"`)
	})

	t.Run("replay of a seed", func(t *testing.T) {
		page := filepath.Join(dir, "seed.html")
		out, err := exec.Command(bin, "-scenario", "replicaset-edge", "-faults", "drop", "-seed", "3", "-html", page).Output()
		require.NoError(t, err)
		assert.Contains(t, string(out), "timeline: "+page)
		_, err = os.Stat(page)
		assert.NoError(t, err)
	})

	t.Run("replay of a seed that passes", func(t *testing.T) {
		page := filepath.Join(dir, "passing-seed.html")
		out, err := exec.Command(bin, "-scenario", "replicaset-level", "-faults", "drop", "-seed", "1", "-html", page).Output()
		require.NoError(t, err, "a run that passes exits 0")
		assert.Contains(t, string(out), "scenario replicaset-level, faults drop, seed 1: converged")
		assert.Contains(t, string(out), "timeline: "+page+" (no property violated: the page draws the passing run)")
		assertPassingPage(t, page, "scenario replicaset-level, faults drop, seed 1")
	})

	t.Run("replay of a finding that no longer reproduces", func(t *testing.T) {
		finding := passingFinding(t, dir)
		page := filepath.Join(dir, "passing-replay.html")
		out, err := exec.Command(bin, "-replay", finding, "-html", page).Output()
		require.NoError(t, err, "a run that passes exits 0")
		assert.Contains(t, string(out), "the run passed: the finding no longer reproduces")
		assert.Contains(t, string(out), "timeline: "+page+" (no property violated: the page draws the passing run)")
		assertPassingPage(t, page, "scenario replicaset-level, faults drop, seed 1")
	})

	t.Run("campaign", func(t *testing.T) {
		findings := filepath.Join(dir, "findings")
		cmd := exec.Command(bin, "-scenario", "replicaset-edge", "-faults", "restart", "-seed", edgeSeed, "-runs", "1", "-workers", "1", "-out", findings)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		files, err := filepath.Glob(filepath.Join(findings, "finding-*.json"))
		require.NoError(t, err)
		require.Len(t, files, 1)
		page, err := os.ReadFile(strings.TrimSuffix(files[0], ".json") + ".html")
		require.NoError(t, err, "a page beside the finding file")
		assert.Contains(t, string(page), "-replay "+files[0], "the page names the command that replays its finding")
	})

	t.Run("not a replay", func(t *testing.T) {
		out, err := exec.Command(bin, "-runs", "1", "-html", filepath.Join(dir, "x.html")).CombinedOutput()
		var exit *exec.ExitError
		require.ErrorAs(t, err, &exit)
		assert.Equal(t, 2, exit.ExitCode())
		assert.Contains(t, string(out), "-html applies to a replay")
	})
}

// assertPassingPage checks the page a replay wrote for a run that passed:
// it has a title, no violation, and the run's records.
func assertPassingPage(t *testing.T, path, title string) {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err, "a page is written for a run that passed")
	page := string(data)
	assert.Contains(t, page, `"title":"`+title+`"`)
	assert.NotContains(t, page, `"violation":`, "the run violated nothing")
	assert.Contains(t, page, `"line":"#1 t=0 `, "the page holds the run's trace")
}

// settler takes the first choice at every step, and records it.
type settler struct{ log []int }

func (s *settler) Choose(int, string) int {
	s.log = append(s.log, 0)
	return 0
}

// passingFinding writes a finding file whose replay passes: a finding of
// replicaset-level under drop with no fault struck, as a campaign would
// have saved it before the controller was fixed. Its choices are recorded
// from a real run, so the replay follows them.
func passingFinding(t *testing.T, dir string) string {
	t.Helper()
	sc, ok := scenarios.ByName("replicaset-level")
	require.True(t, ok)
	ch := &settler{}
	out, err := properties.Execute(sc, faults.Schedule{}, ch, properties.RunOptions{})
	require.NoError(t, err)
	require.Nil(t, out.Failure, "the run passes")
	f, err := fuzzrun.ReadFinding(edgeFinding)
	require.NoError(t, err)
	f.Scenario, f.Faults, f.Seed = "replicaset-level", "drop", 1
	f.Schedule, f.Choices, f.Steps = faults.Schedule{}, ch.log, out.Cluster.Steps()
	f.TraceSHA256 = out.Cluster.Trace().Hash()
	data, err := json.Marshal(f)
	require.NoError(t, err)
	path := filepath.Join(dir, "finding-passing.json")
	require.NoError(t, os.WriteFile(path, data, 0o644))
	return path
}
