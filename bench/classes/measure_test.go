package classes_test

import (
	"strings"
	"testing"

	"github.com/converge-sim/converge/bench/classes"
	"github.com/converge-sim/converge/faults"
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
	assert.Contains(t, table, "| c | none | 2/5 | 120 / not found | 1 / 2 | 0 | 0 | same | – | 1 |")
	assert.Equal(t, 3, strings.Count(table, "\n"))
}

// TestTheRatioComparesTheMediansToTheTargetedMix: the table's last column
// is the whole mix's median runs to the first failure over the targeted
// mix's; a whole-mix median among the misses is a lower bound, a
// targeted median among them gives no ratio, and a class whose mix is
// already targeted has ratio 1.
func TestTheRatioComparesTheMediansToTheTargetedMix(t *testing.T) {
	apierror := faults.Mix{faults.KindAPIError}
	targeted := &classes.Result{Seeds: 3, Runs: []int{4, 10, 0}}
	r := classes.Result{Class: "c", Faults: faults.Mix{faults.KindAPIError, faults.KindDelay}, TargetedFaults: apierror, Seeds: 3, Runs: []int{50, 30, 0}, Shrunk: []int{1, 1}, Targeted: targeted}
	assert.Equal(t, "5.0", r.Ratio(), "median 50 over median 10")
	assert.Contains(t, classes.Table([]classes.Result{r}), "| apierror | 2/3 / 10 | 5.0 |")

	r.Runs = []int{0, 30, 0}
	assert.Equal(t, "> 10.0", r.Ratio(), "the whole mix's median is a miss: more than 100 runs over 10")
	targeted.Runs = []int{0, 0, 4}
	assert.Equal(t, "–", r.Ratio(), "no targeted median")
	r.Targeted = nil
	assert.Equal(t, "–", r.Ratio(), "a targeted mix declared but not measured")
	r.TargetedFaults = nil
	assert.Equal(t, "1", r.Ratio(), "the mix is already targeted")
}

// TestMeasureTargetedSearchesTheTargetedMix: MeasureTargeted searches
// the same seeds under the class's targeted mix, and only when it
// declares one.
func TestMeasureTargetedSearchesTheTargetedMix(t *testing.T) {
	c := classNamed(t, "record-keeper")
	r, err := classes.MeasureTargeted(t, c, []uint64{17}, properties.Strategy{})
	require.NoError(t, err)
	require.NotNil(t, r.Targeted)
	assert.Equal(t, faults.Mix{faults.KindRestart}, r.Targeted.Faults)
	assert.Equal(t, 1, r.Targeted.Found(), "restart alone finds record-keeper from seed 17: runs %v", r.Targeted.Runs)
	c.Targeted = nil
	r, err = classes.MeasureTargeted(t, c, []uint64{17}, properties.Strategy{})
	require.NoError(t, err)
	assert.Nil(t, r.Targeted)
	assert.Equal(t, "1", r.Ratio())
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
