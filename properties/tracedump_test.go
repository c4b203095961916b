package properties_test

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/converge-sim/converge/properties"
	"github.com/converge-sim/converge/scenarios"
	"github.com/stretchr/testify/require"
)

var traceDump = flag.String("properties.tracedump", "", "write the trace hash, steps and verdict of seeds 0-59 of every catalog scenario under all its faults to this file (compare two builds' files to show a change keeps every trace)")

// TestTraceDump writes, for seeds 0–59 of every catalog scenario under all
// of its faults, one line of trace hash, step count and verdict. Two
// builds whose files are byte-identical ran the same traces: the check a
// change to the step loop is made under (BENCHMARKS.md, "Fifth round" and
// "Sixth round"). It runs only with -properties.tracedump=FILE.
func TestTraceDump(t *testing.T) {
	if *traceDump == "" {
		t.Skip("set -properties.tracedump=FILE to write the dump")
	}
	f, err := os.Create(*traceDump)
	require.NoError(t, err)
	defer func() { require.NoError(t, f.Close()) }()
	for _, sc := range scenarios.All() {
		mix := sc.EveryFault()
		plan, err := properties.PlanFor(sc, mix)
		require.NoError(t, err)
		for seed := range uint64(60) {
			r := rand.New(rand.NewPCG(seed, 7))
			sched := randomSchedule(int(seed), plan, mix)
			out, err := properties.Execute(sc, sched, prng{r}, properties.RunOptions{})
			require.NoError(t, err)
			verdict := ""
			if out.Failure != nil {
				verdict = out.Failure.Report(sched)
			}
			_, err = fmt.Fprintf(f, "%s %d %s %d %q\n", sc.Name, seed, out.Cluster.Trace().Hash(), out.Cluster.Steps(), verdict)
			require.NoError(t, err)
		}
	}
}
