package fuzzrun_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/converge-sim/converge/fuzzrun"
	"github.com/converge-sim/converge/properties"
	"github.com/converge-sim/converge/scenarios"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestUsageErrorsExitTwoWithAMessage(t *testing.T) {
	notADir := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(notADir, nil, 0o644))
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"-nope"}, "flag provided but not defined: -nope"},
		{[]string{"extra"}, `unexpected argument "extra"`},
		{[]string{"-scenario", "missing"}, `unknown scenario "missing"`},
		{[]string{"-faults", "drop,flood"}, `unknown fault kind "flood"`},
		{[]string{"-duration", "-1s"}, "-duration must be positive"},
		{[]string{"-duration", "0"}, "-duration must be positive, got 0s (0, no budget, applies to -strategy exhaustive)"},
		{[]string{"-strategy", "exhaustive", "-duration", "-1s"}, "-duration must be positive"},
		{[]string{"-strategy", "exhaustive", "-max-states", "-1"}, "-max-states -1: must be in [0, 268435456] (0: 16777216)"},
		{[]string{"-strategy", "exhaustive", "-max-states", "9223372036854775807"}, "-max-states 9223372036854775807: must be in [0, 268435456] (0: 16777216)"},
		{[]string{"-strategy", "pct", "-pct-depth", "0"}, "-pct-depth 0: must be in [1, 64] (default 3)"},
		{[]string{"-scenario", "replicaset-edge,replicaset-level, replicaset-edge"}, "-scenario: replicaset-edge is given twice"},
		{[]string{"-runs", "3", "-shard", "5/8"}, "shard 5/8 is empty: shard i of n runs seeds -seed+i, -seed+i+n, … among the -runs 3, and 5 is not below 3; use at most 3 shards, or more -runs"},
		{[]string{"-seed", "18446744073709551615", "-shard", "1/2"}, "shard 1/2 is empty: -seed 18446744073709551615 leaves fewer than 2 seeds before the largest"},
		{[]string{"-max-states", "100"}, "-depth, -max-faults, -deviations, -inputs and -max-states apply to -strategy exhaustive"},
		{[]string{"-duration", "soon"}, `invalid value "soon" for flag -duration`},
		{[]string{"-seed", "0"}, "-seed must be at least 1"},
		{[]string{"-runs", "-1"}, "-runs must not be negative"},
		{[]string{"-workers", "0"}, "-workers must be at least 1"},
		{[]string{"-run-timeout", "0s"}, "-run-timeout must be positive"},
		{[]string{"-strategy", "dfs"}, `unknown strategy "dfs" (known: random, pct, exhaustive, coverage)`},
		{[]string{"-strategy", "coverage", "-pct-depth", "2"}, "-strategy: strategy coverage takes no depth (got 2)"},
		{[]string{"-strategy", "exhaustive", "-depth", "0"}, "-depth: exhaustive depth 0: must be in [1, 64]"},
		{[]string{"-strategy", "exhaustive", "-depth", "65"}, "-depth: exhaustive depth 65: must be in [1, 64]"},
		{[]string{"-strategy", "exhaustive", "-max-faults", "-1"}, "-max-faults -1: must be in [1, 4]"},
		{[]string{"-strategy", "exhaustive", "-max-faults", "0"}, "-max-faults 0: must be in [1, 4] (-faults none explores without faults)"},
		{[]string{"-strategy", "exhaustive", "-max-faults", "5"}, "-max-faults 5: must be in [1, 4]"},
		{[]string{"-strategy", "exhaustive", "-pct-depth", "2"}, "-pct-depth applies to -strategy pct; -strategy exhaustive takes -depth"},
		{[]string{"-depth", "3"}, "-depth, -max-faults, -deviations, -inputs and -max-states apply to -strategy exhaustive"},
		{[]string{"-strategy", "pct", "-max-faults", "2"}, "-depth, -max-faults, -deviations, -inputs and -max-states apply to -strategy exhaustive"},
		{[]string{"-deviations", "2"}, "-depth, -max-faults, -deviations, -inputs and -max-states apply to -strategy exhaustive"},
		{[]string{"-strategy", "exhaustive", "-deviations", "-1"}, "-deviations: exhaustive deviations -1: must be in [0, 8], the depth (0: no bound)"},
		{[]string{"-strategy", "exhaustive", "-depth", "4", "-deviations", "5"}, "-deviations: exhaustive deviations 5: must be in [0, 4], the depth (0: no bound)"},
		{[]string{"-strategy", "exhaustive", "-seed", "3"}, "-strategy exhaustive explores in this process, without seeds: it takes no -seed"},
		{[]string{"-strategy", "exhaustive", "-worker-memory", "256"}, "it takes no -worker-memory"},
		{[]string{"-pct-depth", "2"}, "strategy random takes no depth"},
		{[]string{"-strategy", "pct", "-pct-depth", "-1"}, "-pct-depth -1: must be in [1, 64] (default 3)"},
		{[]string{"-shard", "5/3"}, "-shard: shard 5/3: the index must be in 0..2"},
		{[]string{"-shard", "3/3"}, "the index must be in 0..2"},
		{[]string{"-shard", "-1/3"}, "the index must be in 0..2"},
		{[]string{"-shard", "0/0"}, "the count must be at least 1"},
		{[]string{"-shard", "2"}, `shard "2": want i/n`},
		{[]string{"-shard", "a/3"}, `index "a" is not a number`},
		{[]string{"-shard", "1/x"}, `count "x" is not a number`},
		{[]string{"-replay", "f.json", "-scenario", "replicaset-edge"}, "-replay replays the file as recorded: it takes no -scenario"},
		{[]string{"-replay", "f.json", "-json"}, "it takes no -json"},
		{[]string{"-replay", "f.json", "-strategy", "pct"}, "it takes no -strategy"},
		{[]string{"-scenario", "replicaset-edge", "-seed", "3", "-json"}, "a seed replay (-scenario and -seed alone) takes no -json"},
		{[]string{"-scenario", "replicaset-edge", "-seed", "3", "-workers", "2"}, "takes no -workers"},
		{[]string{"-trace-json"}, "-trace-json applies to a replay"},
		{[]string{"-out", notADir, "-runs", "1"}, "-out:"},
	} {
		code, _, stderr := run(tc.args...)
		assert.Equal(t, fuzzrun.ExitUsage, code, "%v", tc.args)
		assert.Contains(t, stderr, tc.msg, "%v", tc.args)
	}
}

func TestShardFromTheEnvironment(t *testing.T) {
	for _, tc := range []struct {
		index, count string
		msg          string
	}{
		{"1", "", "JOB_COMPLETION_INDEX=1 is set but JOB_COMPLETIONS is not"},
		{"", "4", "JOB_COMPLETIONS=4 is set but JOB_COMPLETION_INDEX is not"},
		{"x", "4", `JOB_COMPLETION_INDEX="x" is not a number`},
		{"1", "four", `JOB_COMPLETIONS="four" is not a number`},
		{"4", "4", "the index must be in 0..3"},
	} {
		t.Run(tc.index+"/"+tc.count, func(t *testing.T) {
			setenv(t, fuzzrun.EnvShardIndex, tc.index)
			setenv(t, fuzzrun.EnvShardCount, tc.count)
			code, _, stderr := run("-runs", "1")
			assert.Equal(t, fuzzrun.ExitUsage, code)
			assert.Contains(t, stderr, tc.msg)
		})
	}
	t.Run("the flag wins", func(t *testing.T) {
		setenv(t, fuzzrun.EnvShardIndex, "9")
		setenv(t, fuzzrun.EnvShardCount, "2")
		code, out, stderr := run("-shard", "1/2", "-scenario", "replicaset-level", "-faults", "drop", "-runs", "4", "-workers", "1", "-json")
		require.Equal(t, fuzzrun.ExitOK, code, stderr)
		assert.Equal(t, "1/2", events(t, out)["start"][0]["shard"])
	})
	t.Run("an indexed job", func(t *testing.T) {
		setenv(t, fuzzrun.EnvShardIndex, "2")
		setenv(t, fuzzrun.EnvShardCount, "3")
		code, out, stderr := run("-scenario", "replicaset-level", "-faults", "drop", "-runs", "6", "-workers", "1", "-json")
		require.Equal(t, fuzzrun.ExitOK, code, stderr)
		evs := events(t, out)
		assert.Equal(t, "2/3", evs["start"][0]["shard"])
		assert.InDelta(t, 2, evs["row"][0]["runs"], 0, "seeds 3 and 6 of 1..6")
	})
}

// setenv sets or, for "", unsets an environment variable for the test.
func setenv(t *testing.T, key, value string) {
	t.Setenv(key, value)
	if value == "" {
		require.NoError(t, os.Unsetenv(key))
	}
}

func TestHelpExitsZero(t *testing.T) {
	code, _, stderr := run("-h")
	assert.Equal(t, fuzzrun.ExitOK, code)
	assert.Contains(t, stderr, "-shard i/n")
	assert.Contains(t, stderr, "-rapid.shrinktime", "rapid's flags pass through")
}

func TestNoRowsIsAUsageError(t *testing.T) {
	bare := scenarios.ReplicaSetLevel()
	bare.Expect = nil
	code, _, stderr := runWith([]properties.Scenario{bare}, "-runs", "1")
	assert.Equal(t, fuzzrun.ExitUsage, code)
	assert.Contains(t, stderr, "no rows")
	code, _, stderr = runWith(nil, "-runs", "1")
	assert.Equal(t, fuzzrun.ExitUsage, code)
	assert.Contains(t, stderr, "no scenarios to run")
}
