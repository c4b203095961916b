package scenarios

import (
	"math/rand/v2"
	"regexp"
	"testing"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/properties"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDatabaseBrokenIsFoundByARestartBetweenWrites: the broken database
// operator fails under restart, and its counterexample shrinks to one
// restart of the operator that strikes after a write, in the middle of a
// reconcile; the report names the small claims and the status that says
// they were resized.
func TestDatabaseBrokenIsFoundByARestartBetweenWrites(t *testing.T) {
	res, err := properties.Search(DatabaseBroken(), faults.Mix{faults.KindRestart}, properties.SearchOptions{Test: t, Checks: 200, Seed: 1})
	require.NoError(t, err)
	cx := res.Counterexample
	require.NotNil(t, cx, "the broken operator passed %d runs", res.Runs)
	t.Logf("found after %d runs:\n%s", res.Runs, cx.Report())
	assert.Equal(t, properties.GoalUnmet, cx.Failure.Verdict, cx.Report())
	require.Len(t, cx.Schedule, 1, cx.Report())
	r, ok := cx.Schedule[0].Fault.(faults.Restart)
	require.True(t, ok, "the one fault is %s", cx.Schedule[0].Fault)
	assert.Equal(t, "database", r.Controller)
	assert.Positive(t, r.AfterWrites, "the crash must strike between two writes")
	// The status records the wanted size; the claims stayed smaller.
	m := regexp.MustCompile(`wants storage (\d+)Gi, but claim data-pg-0 has capacity "(\d+)Gi".*status says storage "(\d+)Gi"`).FindStringSubmatch(cx.Report())
	require.NotNil(t, m, cx.Report())
	assert.Equal(t, m[1], m[3], "the status says the wanted size")
	assert.Less(t, m[2], m[1], "the claim is smaller than wanted")
}

// TestDatabaseFixedConvergesWhereTheBrokenOneFails: under restarts of the
// operator that strike right after each of its next one to three writes
// (the resize is in flight at t=0), over 20 interleavings each, the broken
// operator is left with small claims at least once and the fixed one
// converges every time.
func TestDatabaseFixedConvergesWhereTheBrokenOneFails(t *testing.T) {
	brokenFailed := 0
	for after := 1; after <= 3; after++ {
		sched := faults.Schedule{{Fault: faults.Restart{Controller: "database", Down: 1, AfterWrites: after}}}
		for seed := range uint64(20) {
			for _, sc := range []properties.Scenario{Database(), DatabaseBroken()} {
				out, err := properties.Execute(sc, sched, prng{rand.New(rand.NewPCG(seed, 1))}, properties.RunOptions{DiscardTrace: true})
				require.NoError(t, err)
				switch {
				case sc.Name == "database" && out.Failure != nil:
					t.Fatalf("the fixed operator failed after %d writes, seed %d: %s", after, seed, out.Failure.Report(sched))
				case sc.Name == "database-broken" && out.Failure != nil:
					brokenFailed++
				}
			}
		}
	}
	t.Logf("the broken operator failed %d of 60 runs", brokenFailed)
	assert.Positive(t, brokenFailed, "the broken operator survived every run: the schedule does not strike in the window")
}

// prng chooses from a seeded PRNG, outside rapid.
type prng struct{ r *rand.Rand }

func (p prng) Choose(n int, _ string) int { return p.r.IntN(n) }
