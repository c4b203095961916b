package properties_test

import (
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/properties"
	"github.com/converge-sim/converge/scenarios"
)

// swarmRow is one row of the swarm measurement: a scenario that must fail
// under mix.
type swarmRow struct {
	class string
	sc    properties.Scenario
	mix   faults.Mix
}

// swarmRows are the broken controllers of examples/broken, each under
// every faithful healable kind its scenario can draw, and the catalog's
// rows that must fail, each under its own mix.
func swarmRows() (brokenRows, catalogRows []swarmRow) {
	faithful, _ := scenarios.Healable.Split()
	for _, tc := range faultKindCases() {
		var mix faults.Mix
		for _, k := range faithful {
			if k != faults.KindEdit || len(tc.broken.Edits) > 0 {
				mix = append(mix, k)
			}
		}
		brokenRows = append(brokenRows, swarmRow{string(tc.kind), tc.broken, mix})
	}
	for _, sc := range scenarios.All() {
		for _, e := range sc.Expect {
			if e.Fails != "" && len(e.Faults) > 0 {
				catalogRows = append(catalogRows, swarmRow{sc.Name + "/" + e.Faults.String(), sc, e.Faults})
			}
		}
	}
	return brokenRows, catalogRows
}

// TestMeasureSwarm is a measurement, not a check: with SWARM_MEASURE=N it
// searches every row from seeds 1 to N, at most SWARM_CHECKS runs each
// (default 100), with the uniform draw and with Budget.Swarm, and prints
// for each row and each draw how many searches found a failure, the runs
// they took and the wall time. Run it with -rapid.shrinktime=1ms, so
// that what it times is the search, not the shrinking (docs/design.md,
// "Faults", BENCHMARKS.md "Swarm testing").
func TestMeasureSwarm(t *testing.T) {
	seeds, err := strconv.Atoi(os.Getenv("SWARM_MEASURE"))
	if err != nil || seeds < 1 {
		t.Skip("set SWARM_MEASURE to a number of seeds")
	}
	checks := 100
	if s := os.Getenv("SWARM_CHECKS"); s != "" {
		checks, err = strconv.Atoi(s)
		require.NoError(t, err)
	}
	brokenRows, catalogRows := swarmRows()
	for _, set := range []struct {
		name string
		rows []swarmRow
	}{{"broken", brokenRows}, {"catalog", catalogRows}} {
		var total [2]struct {
			found, runs int
			took        time.Duration
		}
		for _, row := range set.rows {
			var line string
			for i, swarm := range []bool{false, true} {
				sc := row.sc
				sc.Budget.Swarm = swarm
				start := time.Now()
				found, runs := 0, 0
				for seed := 1; seed <= seeds; seed++ {
					res, err := properties.Search(sc, row.mix, properties.SearchOptions{Test: t, Checks: checks, Seed: uint64(seed)})
					require.NoError(t, err)
					runs += res.Runs
					if res.Counterexample != nil {
						found++
					}
				}
				took := time.Since(start)
				total[i].found += found
				total[i].runs += runs
				total[i].took += took
				line += " " + strconv.Itoa(found) + "/" + strconv.Itoa(seeds) + " in " + strconv.Itoa(runs) + " runs " + took.Round(time.Millisecond).String() + ";"
			}
			t.Logf("%s %s: uniform, swarm:%s", set.name, row.class, line)
		}
		for i, name := range []string{"uniform", "swarm"} {
			t.Logf("%s total %s: %d of %d found, %d runs, %v, %.2f found/s", set.name, name, total[i].found, seeds*len(set.rows), total[i].runs, total[i].took.Round(time.Millisecond), float64(total[i].found)/total[i].took.Seconds())
		}
	}
}
