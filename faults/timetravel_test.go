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
	far := faults.TimeTravel{Controller: "a", Behind: 1000, Down: 1}
	assert.NoError(t, faults.Schedule{{At: 1, Fault: far}}.Fits(mix, topo, budget))
	landmark := faults.TimeTravel{Controller: "b", Landmark: 2, Down: 1}
	assert.Equal(t, "timetravel: restart b (down 1 ticks); it relists from a server at landmark 2 (the 2nd version back where a watched object was deleting, deleted or recreated)", landmark.String())
	assert.NoError(t, faults.Schedule{{At: 1, Fault: landmark}}.Fits(mix, topo, budget))
	data, err := json.Marshal(faults.Schedule{{At: 1, Fault: landmark}})
	require.NoError(t, err)
	assert.JSONEq(t, `[{"at":1,"kind":"timetravel","controller":"b","landmark":2,"down":1}]`, string(data))
	var back faults.Schedule
	require.NoError(t, json.Unmarshal(data, &back))
	assert.Equal(t, faults.Schedule{{At: 1, Fault: landmark}}, back)
	for f, msg := range map[faults.TimeTravel]string{
		{Controller: "a", Behind: 1001, Down: 1}:           "behind 1001: must be in [1, 1000]",
		{Controller: "a", Down: 1}:                         "behind 0: must be in [1, 1000]",
		{Controller: "a", Behind: 1}:                       "down 0: must be in [1, 7]",
		{Controller: "z", Behind: 1, Down: 1}:              `controller "z"`,
		{Controller: "a", Landmark: 11, Down: 1}:           "landmark 11: must be in [1, 10]",
		{Controller: "a", Landmark: -1, Down: 1}:           "landmark -1: must be in [1, 10]",
		{Controller: "a", Behind: 2, Landmark: 1, Down: 1}: "a time travel takes one of them",
	} {
		err := faults.Schedule{{At: 1, Fault: f}}.Fits(mix, topo, budget)
		require.Error(t, err, "%+v", f)
		assert.Contains(t, err.Error(), msg)
	}
	for input, msg := range map[string]string{
		`[{"at":1,"kind":"timetravel","controller":"a","down":1}]`:                         "needs behind >= 1 or landmark >= 1",
		`[{"at":1,"kind":"timetravel","controller":"a","behind":2,"landmark":1,"down":1}]`: "takes behind or landmark, not both",
		`[{"at":1,"kind":"timetravel","controller":"a","landmark":-2,"down":1}]`:           "needs landmark >= 1",
		`[{"at":1,"kind":"timetravel","behind":2,"down":1}]`:                               "needs a controller",
		`[{"at":1,"kind":"timetravel","controller":"a","behind":2}]`:                       "needs a positive down",
	} {
		var s faults.Schedule
		err := json.Unmarshal([]byte(input), &s)
		require.Error(t, err, input)
		assert.Contains(t, err.Error(), msg, input)
	}
}

// TestTimeTravelDrawsFarAndToLandmarks: the time travels drawn reach
// beyond the 12 versions of the earlier draw, up to 1000, and to
// landmarks, within the budget.
func TestTimeTravelDrawsFarAndToLandmarks(t *testing.T) {
	mix := faults.Mix{faults.KindTimeTravel}
	gen := faults.Schedules(mix, topo, budget)
	var far, landmarks, near int
	for seed := range 1000 {
		s := gen.Example(seed)
		require.NoError(t, s.Fits(mix, topo, budget))
		for _, f := range s {
			tt := f.Fault.(faults.TimeTravel)
			switch {
			case tt.Landmark > 0:
				landmarks++
			case tt.Behind > 48:
				far++
			default:
				near++
			}
		}
	}
	t.Logf("%d near, %d more than 48 behind, %d to a landmark", near, far, landmarks)
	assert.Greater(t, far, 50)
	assert.Greater(t, landmarks, 100)
	assert.Greater(t, near, 100)
}

// TestTimeTravelKeepsShortDistances: beside the far distances and the
// landmarks, the draw keeps a short distance (at most 12 versions, the
// earlier draw's range) for more than 40% of the time travels (53% of
// seeds 0-999), the weight a stale read right behind the newest state
// needs; with a distance drawn over the whole history or a landmark, 21%
// (docs/design.md, "Time travel").
func TestTimeTravelKeepsShortDistances(t *testing.T) {
	mix := faults.Mix{faults.KindTimeTravel}
	gen := faults.Schedules(mix, topo, budget)
	var short, all int
	for seed := range 1000 {
		for _, f := range gen.Example(seed) {
			tt := f.Fault.(faults.TimeTravel)
			all++
			if tt.Landmark == 0 && tt.Behind <= 12 {
				short++
			}
		}
	}
	t.Logf("%d of %d time travels at most 12 versions behind", short, all)
	assert.Greater(t, short*100, all*40)
}
