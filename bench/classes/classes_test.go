package classes_test

import (
	"flag"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/converge-sim/converge/bench/classes"
	"github.com/converge-sim/converge/properties"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	regenerate = flag.Bool("converge.classes", false, "measure every class over 20 seeds and print the table for BENCHMARKS.md")
	strategy   = flag.String("converge.strategy", "random", "the search strategy TestClassTable measures: random, pct or coverage")
	only       = flag.String("converge.only", "", "TestClassTable measures only the classes whose names contain this")
	firstSeed  = flag.Uint64("converge.firstseed", 1, "TestClassTable measures the 20 seeds from this one on")
)

// TestClassTable measures every class over 20 seeds, under its whole mix
// and its targeted mix (classes.MeasureTargeted), and prints the markdown
// table of BENCHMARKS.md; it fails when a class found its bug from fewer
// seeds than its floor (floors only: the ratio to the targeted mix is a
// figure, not an assertion). It runs only with -converge.classes:
// go test ./bench/classes -run TestClassTable -v -converge.classes -timeout 0
//
// -converge.firstseed 21 measures seeds 21–40, which no floor or pinned
// seed was chosen from.
//
// -converge.strategy coverage measures the coverage-guided strategy
// instead of random; the floors are random's, so only the random table
// checks them.
func TestClassTable(t *testing.T) {
	if !*regenerate {
		t.Skip("measures for minutes: run with -converge.classes")
	}
	s, err := properties.ParseStrategy(*strategy, 0)
	require.NoError(t, err)
	var results []classes.Result
	for _, c := range classes.All() {
		if !strings.Contains(c.Name, *only) {
			continue
		}
		start := time.Now()
		r, err := classes.MeasureTargeted(t, c, classes.Seeds(*firstSeed, classes.TableSeeds), s)
		require.NoError(t, err)
		t.Logf("%s: found %d/%d, runs %v, shrunk %v, %v", c.Name, r.Found(), r.Seeds, r.Runs, r.Shrunk, time.Since(start).Round(time.Millisecond))
		if r.Targeted != nil {
			t.Logf("%s under %s: found %d/%d, runs %v, ratio %s", c.Name, c.Targeted, r.Targeted.Found(), r.Targeted.Seeds, r.Targeted.Runs, r.Ratio())
		}
		results = append(results, r)
		if s.String() == properties.StrategyRandom {
			assert.GreaterOrEqual(t, r.Found(), c.Floor, "%s fell below its floor", c.Name)
		}
	}
	fmt.Print(classes.Table(results))
}

// TestClassFloors is the default run's guard of the table: for every
// class with a floor, its pinned seeds (each found the bug within 100
// runs when the floor was set, at few runs, so this test takes seconds)
// must still find it, with the class's verdict, within Budget runs. The
// whole floor, found from at least Floor of 20 seeds, is TestClassTable's
// to check.
func TestClassFloors(t *testing.T) {
	for _, c := range classes.All() {
		t.Run(c.Name, func(t *testing.T) {
			if c.Floor == 0 {
				assert.Empty(t, c.Pinned, "a class without a floor pins no seed")
				t.Skip("no floor: too rare to find within 100 runs")
			}
			require.NotEmpty(t, c.Pinned, "a class with a floor pins the seeds that check it")
			r, err := classes.Measure(t, c, c.Pinned)
			require.NoError(t, err)
			assert.Equal(t, len(c.Pinned), r.Found(), "%s fell below its floor: pinned seeds %v took %v runs (0: not found)", c.Name, c.Pinned, r.Runs)
		})
	}
}
