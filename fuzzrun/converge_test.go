package fuzzrun_test

import (
	"testing"

	gallery "github.com/converge-sim/converge/examples/broken"
	"github.com/converge-sim/converge/fuzzrun"
	"github.com/converge-sim/converge/properties"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRowsReportTimeToConverge: each row gives p50, p99 and max of its
// passing runs' time to converge, in the table and in JSON; a controller
// that waits with errors backs off past the gate's opening, its fixed twin
// polls within its interval.
func TestRowsReportTimeToConverge(t *testing.T) {
	var scs []properties.Scenario
	for _, ctrl := range []string{"waits-with-errors", "waits-with-requeue-after"} {
		c := gallery.WaitsWithErrors()
		if ctrl == "waits-with-requeue-after" {
			c = gallery.WaitsWithRequeueAfter()
		}
		scs = append(scs, properties.Scenario{Name: ctrl, Build: gallery.GateWorld(c), Expect: []properties.Expectation{{}}})
	}
	code, out, errOut := runWith(scs, "-runs", "20", "-json", "-workers", "1")
	require.Equal(t, fuzzrun.ExitOK, code, "%s\n%s", out, errOut)
	stats := map[string]map[string]any{}
	for _, row := range events(t, out)["row"] {
		conv, ok := row["converge"].(map[string]any)
		require.True(t, ok, "row %v has no converge stats", row["scenario"])
		stats[row["scenario"].(string)] = conv
	}
	require.Len(t, stats, 2)
	assert.Equal(t, float64(20), stats["waits-with-errors"]["runs"])
	assert.Greater(t, stats["waits-with-errors"]["max"], float64(gallery.PollInterval))
	assert.LessOrEqual(t, stats["waits-with-requeue-after"]["max"], float64(gallery.PollInterval))
	assert.LessOrEqual(t, stats["waits-with-errors"]["p50"], stats["waits-with-errors"]["p99"])

	code, out, _ = runWith(scs, "-runs", "5", "-workers", "1")
	require.Equal(t, fuzzrun.ExitOK, code)
	assert.Contains(t, out, "CONVERGE p50/p99/max")
}
