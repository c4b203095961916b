package fuzzrun

import (
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
