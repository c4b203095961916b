//go:build unix

package fuzzrun_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

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

	t.Run("campaign", func(t *testing.T) {
		findings := filepath.Join(dir, "findings")
		cmd := exec.Command(bin, "-scenario", "replicaset-edge", "-faults", "restart", "-runs", "1", "-workers", "1", "-out", findings)
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
