package fuzzrun_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/converge-sim/converge/actors"
	"github.com/converge-sim/converge/controllers/replicaset"
	"github.com/converge-sim/converge/fuzzrun"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
	"github.com/converge-sim/converge/scenarios"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// findingFile runs a one-seed campaign on the edge-triggered controller
// under restart and returns the file of its finding.
func findingFile(t *testing.T, extra ...string) string {
	t.Helper()
	dir := t.TempDir()
	args := append([]string{"-json", "-scenario", "replicaset-edge", "-faults", "restart", "-seed", edgeSeed, "-runs", "1", "-workers", "1", "-out", dir}, extra...)
	code, out, stderr := run(args...)
	require.Equal(t, fuzzrun.ExitOK, code, stderr)
	found := events(t, out)["finding"]
	require.NotEmpty(t, found)
	return found[0]["file"].(string)
}

func TestReplayOfAFindingIsByteIdentical(t *testing.T) {
	path := edgeFinding
	code1, out1, stderr := run("-replay", path)
	require.Equal(t, fuzzrun.ExitOK, code1, "a failure the scenario must show: %s", stderr)
	code2, out2, _ := run("-replay", path)
	assert.Equal(t, code1, code2)
	assert.Equal(t, out1, out2)

	f, err := fuzzrun.ReadFinding(path)
	require.NoError(t, err)
	assert.Contains(t, out1, "replay of "+path+": scenario replicaset-edge, faults restart, seed 1")
	assert.Contains(t, out1, "ReplicaSet default/web wants 3 pods, has 6")
	assert.Contains(t, out1, "converges violated (goal-unmet)")
	assert.Contains(t, out1, "trace (")
	assert.NotContains(t, out1, "warning", "the replay follows the record and prints its trace")
	assert.Contains(t, f.Report, strings.Split(out1, "\n")[1], "the replay reports what the campaign found")
}

func TestReplayOfAPCTFindingIsExact(t *testing.T) {
	path := findingFile(t, "-strategy", "pct", "-seed", pctEdgeSeed)
	f, err := fuzzrun.ReadFinding(path)
	require.NoError(t, err)
	assert.Equal(t, "pct", f.Strategy)
	assert.Contains(t, f.ReplaySeed, "-strategy pct -seed "+pctEdgeSeed)
	code, out, _ := run("-replay", path)
	assert.Equal(t, fuzzrun.ExitOK, code)
	assert.NotContains(t, out, "warning")
}

func TestReplayPrintsTheTraceAsJSONLines(t *testing.T) {
	code, out, stderr := run("-replay", edgeFinding, "-trace-json")
	require.Equal(t, fuzzrun.ExitOK, code)
	assert.Contains(t, stderr, "converges violated", "the report goes to stderr")
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var rec map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &rec), line)
		assert.Contains(t, rec, "actor")
	}
}

// TestReplayOfAChangedScenarioSaysSo: the same file replayed against a
// controller that has changed (here: fixed) leaves the recorded path: the
// file no longer fits the scenario, exit 2, never a silent pass.
func TestReplayOfAChangedScenarioSaysSo(t *testing.T) {
	code, _, stderr := runWith(fixedEdge(), "-replay", edgeFinding)
	assert.Equal(t, fuzzrun.ExitUsage, code)
	assert.Contains(t, stderr, "the replay left the recorded path")
	assert.Contains(t, stderr, "search its seed again with")
}

func TestACorruptFindingFileExitsTwoSayingWhatIsWrong(t *testing.T) {
	valid, err := os.ReadFile(edgeFinding)
	require.NoError(t, err)
	var obj map[string]any
	require.NoError(t, json.Unmarshal(valid, &obj))
	without := func(key string) string {
		m := map[string]any{}
		for k, v := range obj {
			if k != key {
				m[k] = v
			}
		}
		data, err := json.Marshal(m)
		require.NoError(t, err)
		return string(data)
	}
	with := func(key string, value any) string {
		m := map[string]any{key: value}
		for k, v := range obj {
			if k != key {
				m[k] = v
			}
		}
		data, err := json.Marshal(m)
		require.NoError(t, err)
		return string(data)
	}
	dir := t.TempDir()
	for _, tc := range []struct {
		name, content, msg string
	}{
		{"empty", "", "empty file"},
		{"truncated", string(valid[:len(valid)/2]), "the file ends early (truncated?)"},
		{"not json", "schedule: drop", "not valid JSON"},
		{"two objects", string(valid) + string(valid), "data after the finding object"},
		{"unknown field", with("colour", "red"), `unknown field "colour"`},
		{"other format", with("format", "converge-finding/0"), `format "converge-finding/0"`},
		{"no schedule", without("schedule"), "no schedule"},
		{"no choices", without("choices"), "no choices"},
		{"negative choice", with("choices", []int{0, -1}), "choices[1] -1: must be in [0, 1048576]"},
		{"bad fault", with("schedule", []map[string]any{{"at": 1, "kind": "flood"}}), `unknown kind "flood"`},
		{"bad mix", with("faults", "drop,flood"), `faults: unknown fault kind "flood"`},
		{"no seed", without("seed"), "seed must be at least 1"},
		{"bad strategy", with("strategy", "dfs"), `strategy: unknown strategy "dfs"`},
		{"zero count", with("count", 0), "count 0"},
		{"hang without timeout", strings.Replace(without("choices"), `"verdict":"goal-unmet"`, `"verdict":"hang"`, 1), "a hang needs its run_timeout_s"},
		{"unknown scenario", with("scenario", "gone"), `is for scenario "gone", which this program does not have`},
		// Strict all the way down (issue 37, item 9): inside schedule
		// entries and transitions too.
		{"unknown field in a fault", with("schedule", []map[string]any{{"at": 0, "kind": "restart", "controller": "replicaset-edge", "down": 1, "colour": "red"}}), `fault 0: (restart): unknown field "colour"`},
		{"another kind's field in a fault", with("schedule", []map[string]any{{"at": 0, "kind": "restart", "controller": "replicaset-edge", "down": 1, "resource": "Pod"}}), `field "resource" does not apply to a restart fault`},
		{"mistyped field in a fault", with("schedule", []map[string]any{{"at": 0, "kind": "restart", "controller": "replicaset-edge", "down": "1"}}), "fault 0: (restart): json: cannot unmarshal string"},
		{"a transition's object value", with("transitions", []map[string]any{{"spec.replicas": map[string]any{"a": 1}}}), "transition 0: \"spec.replicas\": unsupported value"},
	} {
		path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".json")
		require.NoError(t, os.WriteFile(path, []byte(tc.content), 0o644))
		code, out, stderr := run("-replay", path)
		assert.Equal(t, fuzzrun.ExitUsage, code, tc.name)
		assert.Empty(t, out, tc.name)
		assert.Contains(t, stderr, path, tc.name)
		assert.Contains(t, stderr, tc.msg, tc.name)
	}
	code, _, stderr := run("-replay", filepath.Join(dir, "missing.json"))
	assert.Equal(t, fuzzrun.ExitUsage, code)
	assert.Contains(t, stderr, "cannot read finding")
	assert.Contains(t, stderr, "missing.json")

	// A megabyte of a value an error names is echoed clipped: its first
	// 80 bytes and its length (issue 37, item 9).
	long := strings.Repeat("x", 1<<20)
	for _, tc := range []struct{ name, content string }{
		{"long scenario", with("scenario", long)},
		{"long field", with(long, 1)},
		{"long format", with("format", long)},
		{"long strategy", with("strategy", long)},
		{"long mix", with("faults", long)},
		{"long kind", with("schedule", []map[string]any{{"at": 0, "kind": long}})},
		{"long controller", with("schedule", []map[string]any{{"at": 0, "kind": "restart", "controller": long, "down": 1}})},
		{"long number", strings.Replace(string(valid), `"steps": 9`, `"steps": 1`+strings.Repeat("0", 1<<20), 1)},
	} {
		path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".json")
		require.NoError(t, os.WriteFile(path, []byte(tc.content), 0o644))
		code, _, stderr := run("-replay", path)
		assert.Equal(t, fuzzrun.ExitUsage, code, tc.name)
		assert.Less(t, len(stderr), 1000, "%s: %.300s", tc.name, stderr)
		assert.Contains(t, stderr, "(1048", tc.name+": the length is given")
	}
}

// fixedEdge is replicaset-edge with its bug fixed: the same scenario and
// controller names and the same world, with the controller now
// level-triggered and resyncing.
func fixedEdge() []properties.Scenario {
	fixed := scenarios.ReplicaSetEdge()
	fixed.Build = func(cfg model.Config) (*model.Cluster, error) {
		c := model.NewCluster(cfg)
		if err := c.AddController(replicaset.Level(replicaset.LevelOptions{Name: "replicaset-edge", Resync: 20})); err != nil {
			return nil, err
		}
		if err := c.AddActor(actors.Scaler{Kind: replicaset.Kind, Field: "replicas", Min: 0, Max: 5}, 2); err != nil {
			return nil, err
		}
		if err := c.AddActor(actors.Killer{Kind: replicaset.PodKind}, 2); err != nil {
			return nil, err
		}
		return c, c.Apply(replicaset.New("default", "web", 3))
	}
	return []properties.Scenario{fixed}
}
