package classes_test

import (
	"flag"
	"fmt"
	"testing"

	"github.com/converge-sim/converge/bench/classes"
	crtclasses "github.com/converge-sim/converge/controllerruntime/examples/classes"
	"github.com/converge-sim/converge/properties"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	regenerate = flag.Bool("converge.classes", false, "measure every class over 20 seeds and print the table for BENCHMARKS.md")
	firstSeed  = flag.Uint64("converge.firstseed", 1, "TestClassTable measures the 20 seeds from this one on")
)

// TestClassTable measures every class over 20 seeds, under its whole mix
// and its targeted mix (classes.MeasureTargeted), and prints the markdown
// table of BENCHMARKS.md; it fails on floors only. It runs only with
// -converge.classes; -converge.firstseed 21 measures seeds 21–40, which
// no floor or pinned seed was chosen from.
func TestClassTable(t *testing.T) {
	if !*regenerate {
		t.Skip("measures for minutes: run with -converge.classes")
	}
	all, err := crtclasses.All()
	require.NoError(t, err)
	var results []classes.Result
	for _, c := range all {
		r, err := classes.MeasureTargeted(t, c, classes.Seeds(*firstSeed, classes.TableSeeds), properties.Strategy{})
		require.NoError(t, err)
		t.Logf("%s: found %d/%d, runs %v, shrunk %v", c.Name, r.Found(), r.Seeds, r.Runs, r.Shrunk)
		if r.Targeted != nil {
			t.Logf("%s under %s: found %d/%d, runs %v, ratio %s", c.Name, c.Targeted, r.Targeted.Found(), r.Targeted.Seeds, r.Targeted.Runs, r.Ratio())
		}
		results = append(results, r)
		assert.GreaterOrEqual(t, r.Found(), c.Floor, "%s fell below its floor", c.Name)
	}
	fmt.Print(classes.Table(results))
}

// TestClassFloors is the default run's guard of the table: every class
// has a floor entry, and for every class with a floor its pinned seed
// (which found the bug within 100 runs when the floor was set) must still
// find it, with the class's verdict, within 100 runs. The whole floor,
// over 20 seeds, is TestClassTable's to check.
func TestClassFloors(t *testing.T) {
	all, err := crtclasses.All()
	require.NoError(t, err)
	for _, c := range all {
		t.Run(c.Name, func(t *testing.T) {
			if c.Floor == 0 {
				t.Skip("no floor: not found within 100 runs")
			}
			require.NotEmpty(t, c.Pinned, "a class with a floor pins the seeds that check it")
			r, err := classes.Measure(t, c, c.Pinned)
			require.NoError(t, err)
			assert.Equal(t, len(c.Pinned), r.Found(), "%s fell below its floor: pinned seeds %v took %v runs (0: not found)", c.Name, c.Pinned, r.Runs)
		})
	}
}
