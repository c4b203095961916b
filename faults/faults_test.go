package faults_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

var topo = faults.Topology{
	Targets: []faults.Target{{Controller: "a", Kinds: []string{"Pod", "ReplicaSet"}}, {Controller: "b", Kinds: []string{"Pod"}}},
	Edits:   []faults.EditTarget{{Resource: "Pod"}, {Resource: "ReplicaSet", Path: "spec.replicas", Min: 0, Max: 5}},
	Rivals:  []faults.EditTarget{{Resource: "ReplicaSet", Path: "status.replicas", Min: 0, Max: 9}},
}

var budget = faults.Budget{MaxFaults: 4, Horizon: 50, MaxDown: 7}

func TestSchedulesStayWithinTheBudget(t *testing.T) {
	gen := faults.Schedules(faults.Mix(faults.Kinds()), topo, budget)
	rapid.Check(t, func(t *rapid.T) {
		s := gen.Draw(t, "s")
		if len(s) > budget.MaxFaults {
			t.Fatalf("%d faults > %d", len(s), budget.MaxFaults)
		}
		for _, f := range s {
			if f.At < 0 || f.At > budget.Horizon {
				t.Fatalf("fault at %d outside [0, %d]", f.At, budget.Horizon)
			}
			if r, ok := f.Fault.(faults.Restart); ok && (r.Down < 1 || r.Down > budget.MaxDown) {
				t.Fatalf("restart down %d outside [1, %d]", r.Down, budget.MaxDown)
			}
		}
	})
}

func TestScheduleJSONRoundTrips(t *testing.T) {
	gen := faults.Schedules(faults.Mix(faults.Kinds()), topo, budget)
	rapid.Check(t, func(t *rapid.T) {
		s := gen.Draw(t, "s")
		data, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		var back faults.Schedule
		if err := json.Unmarshal(data, &back); err != nil {
			t.Fatal(err)
		}
		if s.String() != back.String() || len(s) != len(back) {
			t.Fatalf("round trip changed %v into %v", s, back)
		}
	})
}

func TestScheduleJSONRejectsBadEntries(t *testing.T) {
	for input, msg := range map[string]string{
		`[{"at":1,"kind":"flood"}]`:                                                `unknown kind "flood"`,
		`[{"at":-1,"kind":"drop","controller":"a","resource":"Pod"}]`:              "negative time",
		`[{"at":1,"kind":"drop","controller":"a"}]`:                                "needs controller and resource",
		`[{"at":1,"kind":"edit","resource":"RS","path":"spec.r","min":3,"max":1}]`: "Max 1 < Min 3",
		`[{"at":1,"kind":"edit","resource":"RS","path":"r"}]`:                      "does not start with spec.",
		`[{"at":1,"kind":"apierror","controller":"a","error":"boom","count":1}]`:   `unknown API error kind "boom"`,
		`[{"at":1,"kind":"delay","controller":"a","resource":"Pod"}]`:              "needs a positive for",
		`[{"at":1,"kind":"rival","resource":"RS","pick":0}]`:                       "needs a field path",
		`{"at":1}`: "cannot unmarshal",
		// Strict all the way down (issue 37, item 9): a field no fault
		// has, one another kind takes, one of the wrong type, a wrong
		// case, a null entry, an entry without a kind.
		`[{"at":1,"kind":"drop","controller":"a","resource":"Pod","colour":"red"}]`: `fault 0: (drop): unknown field "colour"`,
		`[{"at":1,"kind":"drop","controller":"a","resource":"Pod","down":5}]`:       `fault 0: (drop): field "down" does not apply to a drop fault (it takes controller, resource)`,
		`[{"at":1,"kind":"restart","controller":"a","down":"5"}]`:                   "fault 0: (restart): json: cannot unmarshal string",
		`[{"at":1,"kind":"drop","Controller":"a","resource":"Pod"}]`:                `unknown field "Controller"`,
		`[null]`:                               "fault 0: null: want a fault object",
		`[{"at":1,"controller":"a"}]`:          "fault 0: no kind",
		`[{"at":1,"kind":7,"controller":"a"}]`: "fault 0: no kind",
		`[{"at":"1","kind":"restart","controller":"a","down":1}]`: "cannot unmarshal string",
	} {
		var s faults.Schedule
		err := json.Unmarshal([]byte(input), &s)
		require.Error(t, err, input)
		assert.Contains(t, err.Error(), msg, input)
	}
}

func TestParseMix(t *testing.T) {
	m, err := faults.ParseMix("drop, restart,drop")
	require.NoError(t, err)
	assert.Equal(t, faults.Mix{faults.KindDrop, faults.KindRestart}, m)
	_, err = faults.ParseMix("drop,flood")
	assert.ErrorContains(t, err, `unknown fault kind "flood"`)
	_, err = faults.ParseMix(" , ")
	assert.ErrorContains(t, err, "empty fault list")
}

func TestCheckSaysWhatIsImpossible(t *testing.T) {
	err := faults.Check(faults.Mix{faults.KindEdit}, faults.Topology{Targets: topo.Targets}, budget)
	assert.ErrorContains(t, err, "edit needs edit targets")
	err = faults.Check(faults.Mix{faults.KindDrop}, faults.Topology{}, faults.Budget{})
	assert.ErrorContains(t, err, "no controllers")
	assert.ErrorContains(t, err, "budget needs")
}

func TestScheduleSortsAndSigns(t *testing.T) {
	s := faults.Schedule{
		{At: 9, Fault: faults.Restart{Controller: "a", Down: 2}},
		{At: 3, Fault: faults.Drop{Controller: "a", Resource: "Pod"}},
	}
	assert.Equal(t, []string{"t=3 drop the next Pod notification to a", "t=9 restart a (down 2 ticks)"}, s.Lines())
	moved := faults.Schedule{
		{At: 4, Fault: faults.Drop{Controller: "a", Resource: "Pod"}},
		{At: 8, Fault: faults.Restart{Controller: "a", Down: 2}},
	}
	assert.Equal(t, s.Signature(), moved.Signature(), "the signature ignores exact times")
	assert.Equal(t, 1, s.Count(faults.KindDrop))
}

// TestScheduleErrorsClipWhatTheyEcho: a megabyte of a field name or a
// kind comes back as its first bytes and its length, not whole (issue 37,
// item 9).
func TestScheduleErrorsClipWhatTheyEcho(t *testing.T) {
	long := strings.Repeat("x", 1<<20)
	for _, input := range []string{
		`[{"at":1,"kind":"drop","controller":"a","resource":"Pod","` + long + `":1}]`,
		`[{"at":1,"kind":"` + long + `"}]`,
		`[{"at":1,"kind":"apierror","controller":"a","error":"` + long + `","count":1}]`,
	} {
		var s faults.Schedule
		err := json.Unmarshal([]byte(input), &s)
		require.Error(t, err)
		assert.Less(t, len(err.Error()), 300, "the error is short")
		assert.Contains(t, err.Error(), `…" (1048576 bytes)`)
	}
	_, err := faults.ParseMix(long)
	require.Error(t, err)
	assert.Less(t, len(err.Error()), 300)
}

// TestLastingIsWhatLastsReads: a fault made Lasting d lasts d, for every
// kind that holds, and a fault over when it strikes is not made to last.
func TestLastingIsWhatLastsReads(t *testing.T) {
	for _, f := range []faults.Fault{faults.Delay{For: 1}, faults.Stale{For: 1}, faults.Restart{Down: 1}, faults.Partition{For: 1}, faults.TimeTravel{Down: 1}} {
		g, ok := faults.Lasting(f, 7)
		require.True(t, ok, "%T", f)
		assert.Equal(t, model.Time(7), faults.Lasts(g), "%T", f)
	}
	_, ok := faults.Lasting(faults.Drop{}, 7)
	assert.False(t, ok)
}
