//go:build unix

package fuzzrun_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/converge-sim/converge/fuzzrun"
	"github.com/converge-sim/converge/scenarios"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNumericFlagsAreBoundedBeforeAnyWork: each bound is refused with exit
// 2 and one line naming the flag and its limit, before a worker starts or
// anything is allocated (issue 13, defects 1 and 3).
func TestNumericFlagsAreBoundedBeforeAnyWork(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-workers", "10000", "-runs", "1"}, "-workers 10000: at most "},
		{[]string{"-workers", "10000", "-force-workers", "-runs", "1"}, "-workers 10000: at most 1024"},
		{[]string{"-strategy", "pct", "-pct-depth", "1000000000", "-runs", "1"}, "-pct-depth 1000000000: must be in [1, 64] (default 3)"},
		{[]string{"-strategy", "exhaustive", "-max-states", "9223372036854775807"}, "-max-states 9223372036854775807: must be in [0, 268435456]"},
		{[]string{"-runs", "2000000000000"}, "-runs 2000000000000: at most 1099511627776"},
		{[]string{"-seed", "18446744073709551615", "-runs", "2"}, "the last seed would pass 18446744073709551615"},
		{[]string{"-run-timeout", "1000h", "-runs", "1"}, "-run-timeout 1000h0m0s: at most 24h0m0s"},
		{[]string{"-rapid.seed", "5", "-runs", "1"}, "-rapid.seed: fuzzrun sets rapid's seed of each run from -seed; use -seed"},
		{[]string{"-rapid.checks", "5", "-runs", "1"}, "-rapid.checks: fuzzrun runs one check per seed; use -runs"},
		{[]string{"-replay", ""}, "-replay needs a finding file"},
		{[]string{"-duration", "100000h"}, "-duration 100000h0m0s: at most 720h0m0s"},
		{[]string{"-shard", "0/9999999999", "-runs", "1"}, "the count must be at most 1048576"},
		{[]string{"-worker-memory", "1", "-runs", "1"}, "-worker-memory 1: must be in [64, 1048576] MiB"},
	} {
		code, stdout, stderr := cli(t, tc.args...)
		assert.Equal(t, fuzzrun.ExitUsage, code, "%v: %s", tc.args, stderr)
		oneLine(t, stderr, tc.want)
		assert.Empty(t, stdout, "%v: nothing ran", tc.args)
	}
}

// TestFindingFilesAreBoundedAndFitTheirScenario: a finding file whose
// numbers or targets the scenario could never have produced is refused
// before it runs, with exit 2 and one line naming the field and its limit
// (issue 13, defects 2 and 7).
func TestFindingFilesAreBoundedAndFitTheirScenario(t *testing.T) {
	fault := func(f map[string]any) json.RawMessage {
		data, err := json.Marshal([]map[string]any{f})
		require.NoError(t, err)
		return data
	}
	for _, tc := range []struct {
		name    string
		changes map[string]any
		want    string
	}{
		{"a huge apierror count", map[string]any{"faults": "apierror", "schedule": fault(map[string]any{"at": 0, "kind": "apierror", "controller": "replicaset-edge", "error": "conflict", "count": 1000000000000})},
			"schedule[0] (apierror): count 1000000000000: must be in [1, 3]"},
		{"an edit with a widened range", map[string]any{"faults": "edit", "schedule": fault(map[string]any{"at": 0, "kind": "edit", "resource": "ReplicaSet", "path": "spec.replicas", "max": 2000000, "value": 1000000})},
			`schedule[0] (edit): edit target ReplicaSet "spec.replicas" [0, 2000000]: not one the scenario declares`},
		{"an edit out of its range", map[string]any{"faults": "edit", "schedule": fault(map[string]any{"at": 0, "kind": "edit", "resource": "ReplicaSet", "path": "spec.replicas", "max": 5, "value": 1000000})},
			"schedule[0] (edit): value 1000000: must be in [0, 5]"},
		{"a rival on an undeclared field", map[string]any{"faults": "rival", "schedule": fault(map[string]any{"at": 0, "kind": "rival", "resource": "ReplicaSet", "path": "spec.replicas", "max": 9, "value": 1})},
			`rival target ReplicaSet "spec.replicas" [0, 9]: not one the scenario declares`},
		{"a controller that does not exist", map[string]any{"schedule": fault(map[string]any{"at": 0, "kind": "restart", "controller": "nobody", "down": 1})},
			`schedule[0] (restart): controller "nobody": the scenario has no such controller`},
		{"a restart down too long", map[string]any{"schedule": fault(map[string]any{"at": 0, "kind": "restart", "controller": "replicaset-edge", "down": 1000000000})},
			"schedule[0] (restart): down 1000000000: must be in [1, 10]"},
		{"a fault past the horizon", map[string]any{"schedule": fault(map[string]any{"at": 1000000000000, "kind": "restart", "controller": "replicaset-edge", "down": 1})},
			"schedule[0] (restart): at 1000000000000: must be in [0, "},
		{"a fault kind outside the mix", map[string]any{"schedule": fault(map[string]any{"at": 0, "kind": "partition", "controller": "replicaset-edge", "for": 1})},
			"kind partition is not in the mix restart"},
		{"a huge choice", map[string]any{"choices": []int{4, 2, 1 << 40}}, "choices[2] 1099511627776: must be in [0, 1048576]"},
		{"a huge count", map[string]any{"count": 1 << 50}, "count 1125899906842624: must be in [1, 1099511627776]"},
		{"a huge step count", map[string]any{"steps": 1 << 40}, "steps 1099511627776: must be in [0, 1073741824]"},
		{"a huge PCT depth", map[string]any{"strategy": "pct", "pct_depth": 1000000000}, "PCT depth 1000000000: must be in [1, 64]"},
		{"a deviation bound past the depth", map[string]any{"strategy": "exhaustive", "pct_depth": 4, "deviations": 9}, "strategy: exhaustive deviations 9: must be in [0, 4], the depth (0: no bound)"},
		{"a deviation bound on a random run", map[string]any{"deviations": 2}, "strategy: strategy random takes no deviation bound (got 2)"},
		{"a null schedule", map[string]any{"schedule": json.RawMessage("null")}, "no schedule"},
		{"null choices", map[string]any{"choices": json.RawMessage("null")}, "no choices"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := editedFinding(t, tc.changes)
			code, stdout, stderr := cli(t, "-replay", path)
			assert.Equal(t, fuzzrun.ExitUsage, code, stderr)
			oneLine(t, stderr, tc.want)
			assert.Empty(t, stdout, "nothing ran")
			assert.ErrorContains(t, fuzzrun.Fixed(path, scenarios.All()...), tc.want, "RequireFixed reads the same files")
		})
	}
}

// TestOnlyRegularFindingFilesAreRead: a FIFO, a link to /dev/zero or a
// directory given to -replay is refused at once, and the same named
// finding-*.json in -out is skipped with a warning (issue 13, defect 8).
func TestOnlyRegularFindingFilesAreRead(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "finding-fifo.json")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	zero := filepath.Join(dir, "finding-zero.json")
	require.NoError(t, os.Symlink("/dev/zero", zero))
	for path, kind := range map[string]string{fifo: "named pipe", zero: "device", dir: "directory"} {
		code, _, stderr := cli(t, "-replay", path)
		assert.Equal(t, fuzzrun.ExitUsage, code, stderr)
		oneLine(t, stderr, "is not a regular file")
		assert.Contains(t, stderr, kind)
	}
	big := filepath.Join(t.TempDir(), "finding-big.json")
	require.NoError(t, os.WriteFile(big, make([]byte, fuzzrun.MaxFindingSize+1), 0o644))
	code, _, stderr := cli(t, "-replay", big)
	assert.Equal(t, fuzzrun.ExitUsage, code)
	oneLine(t, stderr, "a finding file is at most 16777216")

	code, stdout, stderr := cli(t, "-scenario", "replicaset-level", "-faults", "drop", "-runs", "1", "-workers", "1", "-out", dir)
	assert.Equal(t, fuzzrun.ExitOK, code, stderr)
	assert.Contains(t, stderr, "finding-fifo.json is not a regular file")
	assert.Contains(t, stderr, "finding-zero.json is not a regular file")
	assert.Contains(t, stdout, "SCENARIO")
}
