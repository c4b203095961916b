package model

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNoLagWithoutAFault: while a watch event is in flight, a fault's
// timer due later must not be enabled: firing it would move the clock and
// leave the informer a whole period behind with no fault in the schedule.
// A fault due now may still strike in the middle of things.
func TestNoLagWithoutAFault(t *testing.T) {
	c := NewCluster(Config{})
	require.NoError(t, c.AddController(Controller{Name: "idle", For: "Pod", NewReconciler: func(Client) Reconciler {
		return ReconcilerFunc(func(Request) (Result, error) { return Result{}, nil })
	}}))
	require.NoError(t, c.Start())
	c.Faults().Interrupt(5, "fault", "later", func() {})
	require.NoError(t, c.Outside("user").Create(&Object{Kind: "Pod", Namespace: "default", Name: "p"}))

	timerEnabled := func() bool {
		for _, a := range c.Enabled(nil) {
			if a.Kind == ActTimer {
				return true
			}
		}
		return false
	}
	assert.False(t, timerEnabled(), "a fault due at t=5 must wait for the event in flight at t=0")

	now := c.Faults().Interrupt(0, "fault", "now", func() {})
	assert.True(t, timerEnabled(), "a fault due now strikes in the middle of things")
	now.Cancel()

	for _, a := range c.Enabled(nil) {
		if a.Kind == ActDeliver {
			c.Do(a)
		}
	}
	assert.True(t, timerEnabled(), "once the event is delivered the clock may move")
}
