package suite

import (
	"strings"
	"testing"

	"github.com/converge-sim/converge/properties"
	"github.com/stretchr/testify/assert"
)

// TestMeasureCountsKnownFindingsAndReportsTheFirstOther: a failure a
// Known matches is counted, with its first run, and is no failure of the
// measurement; the first failure none matches is kept, with its run's
// index and report, and later ones do not replace it.
func TestMeasureCountsKnownFindingsAndReportsTheFirstOther(t *testing.T) {
	known := []Known{{Test: "TestHeld", Match: func(f *properties.Failure) bool { return strings.Contains(f.Summary, "held") }}}
	fail := func(summary string) *properties.Failure {
		return &properties.Failure{Property: "converges", Verdict: properties.GoalUnmet, Summary: summary}
	}
	runs := newTally(known)
	runs.add(0, nil, nil)
	runs.add(3, fail("the held one"), nil)
	runs.add(4, fail("the held one again"), nil)
	assert.Empty(t, runs.unknown, "a known finding fails no measurement")
	assert.Equal(t, []string{"2 of 10 runs met the known finding TestHeld, first run 3"}, runs.knownLines(10))

	runs.add(5, fail("something new"), nil)
	runs.add(6, fail("something newer"), nil)
	assert.Contains(t, runs.unknown, "run 5 (-test.benchtime 6x reaches it)")
	assert.Contains(t, runs.unknown, "something new")
	assert.NotContains(t, runs.unknown, "newer")

	none := newTally(nil)
	none.add(7, fail("the held one"), nil)
	assert.Contains(t, none.unknown, "run 7", "with no Known, every failure fails the measurement")
	assert.Empty(t, none.knownLines(10))
}
