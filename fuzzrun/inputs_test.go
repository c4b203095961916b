//go:build unix

package fuzzrun_test

import (
	"os"
	"testing"

	"github.com/converge-sim/converge/fuzzrun"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tierFinding is a finding of an input campaign: the Cache operator that
// keeps a removed optional tier, shrunk to two transitions.
const tierFinding = "testdata/finding-cache-stale-tier-history-dependent-3f19e569ca2c.json"

func TestAFindingWithTransitionsRoundTrips(t *testing.T) {
	data, err := os.ReadFile(tierFinding)
	require.NoError(t, err)
	f, err := fuzzrun.ParseFinding(data)
	require.NoError(t, err)
	require.Len(t, f.Transitions, 2)
	assert.Equal(t, `{image: "v1", replicas: 1, tier: "gold"}`, f.Transitions[0].String())
	out, err := f.Marshal()
	require.NoError(t, err)
	assert.Equal(t, string(data), string(out), "the file is what Marshal writes")
}

// An input campaign runs like a fault campaign, through the real
// program: rows, a finding file with its transitions, and a replay of that
// file that prints the same report and trace every time.
func TestAnInputCampaignFindsReplaysAndRoundTrips(t *testing.T) {
	dir := t.TempDir()
	code, out, stderr := cli(t, "-json", "-scenario", "cache-stale-tier,cache-fixed", "-runs", "60", "-workers", "1", "-out", dir)
	require.Equal(t, fuzzrun.ExitOK, code, "%s\n%s", out, stderr)
	ev := events(t, out)
	rows := map[string]map[string]any{}
	for _, r := range ev["row"] {
		rows[r["scenario"].(string)+"/"+r["faults"].(string)] = r
	}
	require.Len(t, rows, 3)
	assert.Equal(t, "history-dependent", rows["cache-stale-tier/none"]["first_verdict"])
	assert.EqualValues(t, 2, rows["cache-stale-tier/none"]["shrunk_transitions"])
	assert.EqualValues(t, 0, rows["cache-fixed/none"]["failures"])
	assert.EqualValues(t, 0, rows["cache-fixed/restart"]["failures"])
	// The campaign meets the bug from several seeds (3 in these 60 runs
	// since a run applies every transition it was given); each is the
	// same finding, in one file.
	found := ev["finding"]
	require.NotEmpty(t, found)
	path := found[0]["file"].(string)
	for _, f := range found {
		assert.Equal(t, path, f["file"], "one bug, one file")
	}

	f, err := fuzzrun.ReadFinding(path)
	require.NoError(t, err)
	assert.Len(t, f.Transitions, 2)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	again, err := f.Marshal()
	require.NoError(t, err)
	assert.Equal(t, string(data), string(again))

	code1, out1, stderr1 := cli(t, "-replay", path)
	require.Equal(t, fuzzrun.ExitOK, code1, stderr1)
	code2, out2, _ := cli(t, "-replay", path)
	assert.Equal(t, code1, code2)
	assert.Equal(t, out1, out2, "a replay with transitions is byte for byte the same")
	assert.Contains(t, out1, "history independence violated (history-dependent)")
	assert.Contains(t, out1, "inputs (2 transitions of Cache default/web):")
	assert.Contains(t, out1, "inputs act => update Cache default/web")
	assert.Contains(t, f.Report, "<- the history starts here")
}

func TestAFindingWithTransitionsFitsOnlyAScenarioWithInputs(t *testing.T) {
	path := editedFinding(t, map[string]any{"transitions": []any{map[string]any{"replicas": 1}}})
	code, _, stderr := cli(t, "-replay", path)
	assert.Equal(t, fuzzrun.ExitUsage, code)
	oneLine(t, stderr, "transitions: scenario replicaset-edge declares no inputs, yet the finding has 1 transitions")
}
