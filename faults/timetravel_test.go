package faults_test

import (
	"encoding/json"
	"testing"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/internal/quiettb"
	"github.com/converge-sim/converge/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// TestTimeTravelShrinksTowardFewerVersionsAndEarlier: a failure that needs
// a time travel of at least 4 versions at t >= 7 shrinks to exactly that,
// one fault aimed at the first controller, 4 versions behind at t=7, down
// for the shortest time, as stale and restart shrink, from every one of 40
// fixed seeds. With rapid's own integer draws in place of package draw's,
// a few shrinks in a hundred kept 12 versions or t=50, the budget's maxima
// (seeds 34 and 35 here). The seeds are fixed, and fail files are off, so
// that the test is the same on every machine, a fresh clone included.
func TestTimeTravelShrinksTowardFewerVersionsAndEarlier(t *testing.T) {
	setSeed := quiettb.FixedSeeds(t)
	gen := faults.Schedules(faults.Mix{faults.KindExpire, faults.KindTimeTravel}, topo, budget)
	want := faults.Schedule{{At: 7, Fault: faults.TimeTravel{Controller: "a", Behind: 4, Down: 1}}}
	for seed := 1; seed <= 40; seed++ {
		setSeed(uint64(seed))
		var last faults.Schedule
		tb := &quiettb.TB{}
		rapid.Check(tb, func(t *rapid.T) {
			s := gen.Draw(t, "s")
			for _, f := range s {
				if tt, ok := f.Fault.(faults.TimeTravel); ok && tt.Behind >= 4 && f.At >= 7 {
					last = s
					t.Fatalf("found")
				}
			}
		})
		require.True(t, tb.Failed(), "seed %d: no schedule had a time travel", seed)
		assert.Equal(t, want, last, "seed %d", seed)
	}
}

func TestTimeTravelPrintsAndIsChecked(t *testing.T) {
	f := faults.TimeTravel{Controller: "a", Behind: 3, Down: 2}
	assert.Equal(t, "timetravel: restart a (down 2 ticks); it relists from a server 3 versions behind", f.String())
	assert.Equal(t, model.Time(2), faults.Lasts(f))
	mix := faults.Mix{faults.KindTimeTravel}
	assert.NoError(t, faults.Schedule{{At: 1, Fault: f}}.Fits(mix, topo, budget))
	for f, msg := range map[faults.TimeTravel]string{
		{Controller: "a", Behind: 13, Down: 1}: "behind 13: must be in [1, 12]",
		{Controller: "a", Down: 1}:             "behind 0: must be in [1, 12]",
		{Controller: "a", Behind: 1}:           "down 0: must be in [1, 7]",
		{Controller: "z", Behind: 1, Down: 1}:  `controller "z"`,
	} {
		err := faults.Schedule{{At: 1, Fault: f}}.Fits(mix, topo, budget)
		require.Error(t, err, "%+v", f)
		assert.Contains(t, err.Error(), msg)
	}
	for input, msg := range map[string]string{
		`[{"at":1,"kind":"timetravel","controller":"a","down":1}]`:   "needs behind >= 1",
		`[{"at":1,"kind":"timetravel","behind":2,"down":1}]`:         "needs a controller",
		`[{"at":1,"kind":"timetravel","controller":"a","behind":2}]`: "needs a positive down",
	} {
		var s faults.Schedule
		err := json.Unmarshal([]byte(input), &s)
		require.Error(t, err, input)
		assert.Contains(t, err.Error(), msg, input)
	}
}
