package model

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fireResync fires the next timer, which must be the informer's resync,
// and delivers its replay.
func fireResync(t *testing.T, c *Cluster) {
	t.Helper()
	next := c.NextTimer()
	require.NotNil(t, next)
	require.Equal(t, "resync rec/Pod", next.Name)
	c.Do(Action{Kind: ActTimer})
	deliverAll(c)
	require.False(t, c.Busy())
}

// TestIdleResyncsArePassedOverToAFarTimer: once a resync has replayed the
// cache with nothing written since, the resyncs up to the next timer of
// another kind are passed over, the timer set again in its period's
// phase; a write since, or work owed, keeps them; a held resync replays
// nothing and is passed over; before bounds how far.
func TestIdleResyncsArePassedOverToAFarTimer(t *testing.T) {
	c, rec := recordingCluster(t, Config{}, 10)
	require.NoError(t, c.Apply(pod("a")))
	require.NoError(t, c.Start())
	c.At(1005, "test", "far", func() {})

	assert.Zero(t, c.SkipIdleResyncs(0, 2000), "no resync has replayed yet")
	fireResync(t, c) // t=10
	assert.Contains(t, (*rec).calls, "update a uid-1→uid-1 1→1", "the resync replayed a")
	assert.Zero(t, c.SkipIdleResyncs(30, 2000), "the resync at 20 is not after 30")
	assert.Equal(t, 99, c.SkipIdleResyncs(10, 2000), "20, 30, …, 1000 passed over")
	next := c.NextTimer()
	require.NotNil(t, next)
	assert.Equal(t, "test far", next.Name)
	c.Do(Action{Kind: ActTimer})
	next = c.NextTimer()
	require.NotNil(t, next)
	assert.Equal(t, Time(1010), next.At, "in the resync's phase")
	assert.Equal(t, "resync rec/Pod", next.Name)

	// A write since the last replay: the next resync replays it.
	c.At(5000, "test", "far", func() {})
	require.NoError(t, c.Outside("user").Create(pod("b")))
	assert.Zero(t, c.SkipIdleResyncs(0, 10000), "work is owed")
	deliverAll(c)
	assert.Zero(t, c.SkipIdleResyncs(0, 10000), "a write since the last replay")
	fireResync(t, c) // t=1010
	assert.Equal(t, 10, c.SkipIdleResyncs(0, 1120), "bounded by before: 1020, …, 1110")
	assert.Equal(t, Time(1120), c.NextTimer().At)

	// Held, a resync replays nothing: it is passed over at once.
	c2, _ := recordingCluster(t, Config{}, 10)
	require.NoError(t, c2.Apply(pod("a")))
	require.NoError(t, c2.Start())
	c2.At(105, "test", "far", func() {})
	c2.HoldResync(true)
	assert.Equal(t, 10, c2.SkipIdleResyncs(0, 1000))
	c2.HoldResync(false)
	assert.Zero(t, c2.SkipIdleResyncs(0, 1000), "released, it has not replayed yet")
}
