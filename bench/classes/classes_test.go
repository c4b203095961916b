package classes_test

import (
	"flag"
	"fmt"
	"testing"

	"github.com/converge-sim/converge/bench/classes"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var regenerate = flag.Bool("converge.classes", false, "measure every class over 20 seeds and print the table for BENCHMARKS.md")

// TestClassTable measures every class over 20 seeds and prints the
// markdown table of BENCHMARKS.md; it fails when a class found its bug
// from fewer seeds than its floor. It runs only with -converge.classes:
// go test ./bench/classes -run TestClassTable -v -converge.classes -timeout 0
func TestClassTable(t *testing.T) {
	if !*regenerate {
		t.Skip("measures for minutes: run with -converge.classes")
	}
	var results []classes.Result
	for _, c := range classes.All() {
		r, err := classes.Measure(t, c, classes.Seeds(classes.TableSeeds))
		require.NoError(t, err)
		t.Logf("%s: found %d/%d, runs %v", c.Name, r.Found(), r.Seeds, r.Runs)
		results = append(results, r)
		assert.GreaterOrEqual(t, r.Found(), c.Floor, "%s fell below its floor", c.Name)
	}
	fmt.Print(classes.Table(results))
}
