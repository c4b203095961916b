package fuzzrun

import (
	"flag"
	"io"
	"testing"
	"time"

	"github.com/converge-sim/converge/scenarios"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAnExplorationHasTheDefaultBudget: -strategy exhaustive without
// -duration explores each row for DefaultDuration, so that a depth out of
// reach stops with what it showed instead of running on; -duration 0
// explores to -depth however long it takes.
func TestAnExplorationHasTheDefaultBudget(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want time.Duration
	}{
		{[]string{"-strategy", "exhaustive"}, DefaultDuration},
		{[]string{"-strategy", "exhaustive", "-duration", "90s"}, 90 * time.Second},
		{[]string{"-strategy", "exhaustive", "-duration", "0"}, 0},
	} {
		opts, err := parse(tc.args, io.Discard, scenarios.All(), func(string) string { return "" })
		require.NoError(t, err, "%v", tc.args)
		assert.Equal(t, modeExplore, opts.mode)
		assert.Equal(t, tc.want, opts.duration, "%v", tc.args)
	}
}

// TestEveryNumericFlagHasItsBounds: each numeric flag takes the two ends
// of its range and refuses the values just past them, with an error that
// names the flag (docs/ci.md: every number has a bound; issue 37, item 8:
// -max-states took 2^63-1).
func TestEveryNumericFlagHasItsBounds(t *testing.T) {
	// rapid's flags are the package's own: put them back afterwards.
	for _, name := range []string{"rapid.shrinktime", "rapid.steps"} {
		old := flag.CommandLine.Lookup(name).Value.String()
		t.Cleanup(func() { _ = flag.CommandLine.Set(name, old) })
	}
	ex := []string{"-strategy", "exhaustive"}
	for _, tc := range []struct {
		flag      string
		base      []string
		low, high string
		// below and above are just past the range; "" when the type
		// itself ends there.
		below, above string
	}{
		{"duration", nil, "1ns", "720h", "0s", "720h0m0.000000001s"},
		{"runs", nil, "0", "1099511627776", "-1", "1099511627777"},
		{"workers", []string{"-force-workers"}, "1", "1024", "0", "1025"},
		{"seed", nil, "1", "18446744073709551615", "0", ""},
		{"depth", ex, "1", "64", "0", "65"},
		{"deviations", append(ex, "-depth", "4"), "0", "4", "-1", "5"},
		{"inputs", ex, "0", "8", "-1", "9"},
		{"max-states", ex, "0", "268435456", "-1", "268435457"},
		{"max-faults", ex, "1", "4", "0", "5"},
		{"pct-depth", []string{"-strategy", "pct"}, "1", "64", "0", "65"},
		{"run-timeout", nil, "1ns", "24h", "0s", "24h0m0.000000001s"},
		{"worker-memory", nil, "64", "1048576", "63", "1048577"},
		{"rapid.shrinktime", nil, "0s", "24h", "-1ns", "24h0m0.000000001s"},
		{"rapid.steps", nil, "0", "1048576", "-1", "1048577"},
	} {
		parseWith := func(v string) error {
			args := append(append([]string{}, tc.base...), "-"+tc.flag, v)
			_, err := parse(args, io.Discard, scenarios.All(), func(string) string { return "" })
			return err
		}
		for _, v := range []string{tc.low, tc.high} {
			assert.NoError(t, parseWith(v), "-%s %s", tc.flag, v)
		}
		for _, v := range []string{tc.below, tc.above} {
			if v == "" {
				continue
			}
			err := parseWith(v)
			if assert.Error(t, err, "-%s %s", tc.flag, v) {
				assert.Contains(t, err.Error(), tc.flag, "-%s %s: the error names the flag", tc.flag, v)
			}
		}
	}
	// The shard count, by -shard and from the environment.
	_, err := parse([]string{"-shard", "0/1048576"}, io.Discard, scenarios.All(), func(string) string { return "" })
	assert.NoError(t, err)
	_, err = parse([]string{"-shard", "0/1048577"}, io.Discard, scenarios.All(), func(string) string { return "" })
	assert.ErrorContains(t, err, "-shard: shard 0/1048577: the count must be at most 1048576")
}
