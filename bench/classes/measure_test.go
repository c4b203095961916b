package classes_test

import (
	"strings"
	"testing"

	"github.com/converge-sim/converge/bench/classes"
	"github.com/converge-sim/converge/properties"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPercentilesCountMissesAsLongest: a seed that found nothing ranks
// after every seed that did, and a percentile that falls among them is
// "not found"; found counts only seeds within the budget.
func TestPercentilesCountMissesAsLongest(t *testing.T) {
	r := classes.Result{Class: "c", Seeds: 5, Runs: []int{0, 40, 10, 120, 0}, Shrunk: []int{1, 2, 1}}
	p40, ok := r.Percentile(40)
	assert.True(t, ok)
	assert.Equal(t, 40, p40)
	median, ok := r.Percentile(50)
	assert.True(t, ok)
	assert.Equal(t, 120, median, "nearest rank 3 of 5; found after the budget still counts its runs")
	_, ok = r.Percentile(70)
	assert.False(t, ok, "rank 4 of 5 is a seed that found nothing")
	_, ok = r.Percentile(0)
	assert.False(t, ok)
	assert.Equal(t, 2, r.Found())

	table := classes.Table([]classes.Result{r})
	assert.Contains(t, table, "| c | none | 2/5 | 120 / not found | 1 / 2 | 0 | 0 |")
	assert.Equal(t, 3, strings.Count(table, "\n"))
}

func TestMeasureRejectsBadInput(t *testing.T) {
	c := classes.All()[0]
	_, err := classes.Measure(t, c, nil)
	assert.ErrorContains(t, err, "no seeds")
	c.Fails = ""
	_, err = classes.Measure(t, c, []uint64{1})
	assert.ErrorContains(t, err, "declares no verdict")
	bad := classes.Class{Name: "bad", Scenario: properties.Scenario{Name: "bad"}, Fails: properties.GoalUnmet}
	_, err = classes.Measure(t, bad, []uint64{1})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "class bad")
}
