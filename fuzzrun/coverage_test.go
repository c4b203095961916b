package fuzzrun_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/converge-sim/converge/fuzzrun"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// coverageCampaign runs a coverage-guided campaign of 40 seeds per row
// with one worker and returns its finding files, by name, with the
// directory they were written to replaced by DIR.
func coverageCampaign(t *testing.T) map[string]string {
	t.Helper()
	dir := t.TempDir()
	code, _, stderr := run("-scenario", "replicaset-edge,replicaset-level", "-faults", "restart", "-strategy", "coverage", "-runs", "40", "-workers", "1", "-out", dir)
	require.Equal(t, fuzzrun.ExitOK, code, stderr)
	paths, err := filepath.Glob(filepath.Join(dir, "finding-*.json"))
	require.NoError(t, err)
	files := map[string]string{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		files[filepath.Base(p)] = strings.ReplaceAll(string(b), dir, "DIR")
	}
	return files
}

// TestACoverageCampaignIsTheSameTwice: with one worker and one seed, a
// coverage-guided campaign, whose seeds share the row's corpus, finds the
// same findings, byte for byte; each replays from its file, following its
// record.
func TestACoverageCampaignIsTheSameTwice(t *testing.T) {
	a, b := coverageCampaign(t), coverageCampaign(t)
	require.NotEmpty(t, a, "the edge-triggered controller fails under restart")
	assert.Equal(t, a, b)

	dir := t.TempDir()
	for name, body := range a {
		assert.Contains(t, body, `"strategy": "coverage"`)
		var f struct {
			ReplaySeed string `json:"replay_seed"`
			Report     string `json:"report"`
		}
		require.NoError(t, json.Unmarshal([]byte(body), &f))
		// Each row's first seed passes, so every finding's run mutated the
		// corpus the seeds before it built: its report must not offer its
		// seed as a replay (the file replays it, below).
		assert.Empty(t, f.ReplaySeed, name)
		assert.Contains(t, f.Report, "its seed alone does not make it again", name)
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, []byte(body), 0o600))
		code, out, stderr := run("-replay", path)
		assert.Equal(t, fuzzrun.ExitOK, code, stderr)
		assert.NotContains(t, out, "warning", "the replay of %s follows its record", name)
	}
}
