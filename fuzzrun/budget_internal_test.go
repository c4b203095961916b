package fuzzrun

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/converge-sim/converge/scenarios"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// overtimeCampaign is a campaign over replicaset-noresync under drop,
// whose first failing seed is 29, with a shared budget of 1 ns, spent
// before the first job (the one run every row gets is all the row has
// within it), and the given cap past it.
func overtimeCampaign(t *testing.T, limit overtimeCap) (*campaign, *strings.Builder) {
	t.Helper()
	opts, err := parse([]string{"-scenario", "replicaset-noresync", "-faults", "drop", "-duration", "1ns", "-workers", "1"},
		io.Discard, scenarios.All(), func(string) string { return "" })
	require.NoError(t, err)
	var out strings.Builder
	c, _, err := newCampaign(opts, &out, io.Discard)
	require.NoError(t, err)
	c.overtime = limit
	return c, &out
}

// TestARowThatMustFailRunsPastTheSharedBudgetUntilItFails: the row's
// share of a 1 ns budget is one run; it runs on in overtime until seed
// 29 fails, and the campaign exits 0 (issue 37, item 2). Without overtime
// it stopped after one run, UNEXPECTED.
func TestARowThatMustFailRunsPastTheSharedBudgetUntilItFails(t *testing.T) {
	c, out := overtimeCampaign(t, overtimeCap{runs: 1000, time: time.Hour})
	require.Equal(t, ExitOK, c.run(), out.String())
	res := c.rows[0].res
	assert.Equal(t, uint64(29), res.FirstFailingSeed)
	assert.GreaterOrEqual(t, res.Runs, 29)
	assert.True(t, res.OK)
}

// TestARowStopsAtItsOwnCap: with a cap of 5 runs the row stops after exactly 5 runs, before its first
// failing seed, and is not shown within its budget: exit 3.
func TestARowStopsAtItsOwnCap(t *testing.T) {
	c, out := overtimeCampaign(t, overtimeCap{runs: 5, time: time.Hour})
	require.Equal(t, ExitNotShown, c.run(), out.String())
	res := c.rows[0].res
	assert.Equal(t, 5, res.Runs)
	assert.True(t, res.NotShown)
	assert.Contains(t, out.String(), "NOT SHOWN")
}
