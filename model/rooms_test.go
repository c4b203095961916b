package model

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestListsStartInTheirRooms checks that the lists a run fills from its
// first steps (the detector's lent objects, a controller's reads this
// step, a stream's undelivered events) start in room their owner's own
// allocation holds, rather than growing from nothing every run.
func TestListsStartInTheirRooms(t *testing.T) {
	var readOnly func(*Object)
	c := peekingCluster(t, &readOnly)
	require.NotZero(t, cap(c.lent))
	assert.Same(t, &c.lentRoom[0], &c.lent[:1][0], "the detector's lent objects")
	cl := c.ctrls[0].client
	require.NotEmpty(t, cl.reads, "the controller listed its pods")
	assert.Same(t, &cl.readRoom[0], &cl.reads[0], "a controller's reads")

	var clock Clock
	s := NewServer(clock.Now, 100)
	w, err := s.Watch("Pod", 0)
	require.NoError(t, err)
	for i := range len(w.room) {
		require.NoError(t, s.Create("test", &Object{Kind: "Pod", Namespace: "default", Name: fmt.Sprint("p", i)}))
	}
	require.Len(t, w.pending, len(w.room))
	assert.Same(t, &w.room[0], &w.pending[0], "a stream's events")
	require.NoError(t, s.Create("test", &Object{Kind: "Pod", Namespace: "default", Name: "one-more"}))
	assert.Len(t, w.pending, len(w.room)+1, "past its room a stream grows")
}

// TestTimersShareTheirRoom checks that the clock makes room for timers
// timerRoom at a time, and that timers from one room stay apart: each
// keeps its own time, name and state.
func TestTimersShareTheirRoom(t *testing.T) {
	var clock Clock
	var fired []string
	var timers []*Timer
	for i := range timerRoom + 1 {
		name := fmt.Sprint("t", i)
		timers = append(timers, clock.After(Time(timerRoom+1-i), name, func() { fired = append(fired, name) }))
	}
	assert.Equal(t, 0.0, testing.AllocsPerRun(timerRoom-2, func() { clock.After(100, "more", func() {}) }), "a room holds the next timers")
	timers[3].Cancel()
	for clock.Fire() != nil {
	}
	assert.Len(t, fired, timerRoom)
	assert.Equal(t, "t16", fired[0], "the earliest first")
	assert.NotContains(t, fired, "t3", "a cancelled timer never fires")
	assert.True(t, timers[0].Fired())
	assert.False(t, timers[3].Fired())
	assert.Equal(t, Time(timerRoom+1), timers[0].At)
}
