// Package suite is what every operator harness of this module shares: the
// faults it runs under, its short check, and the measurements
// scripts/operators.sh reports (runs and reconciles per second, and the
// depth a time-bounded exploration finishes).
//
//	func TestConverges(t *testing.T) { suite.Converges(t, kuberay.Scenario("raycluster", world(t)), 30) }
package suite

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	crt "github.com/converge-sim/converge/controllerruntime"
	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/internal/cputime"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
)

// Faithful is every faithful fault kind (faults.Faithful) but the rival,
// which is a fight by construction: duplicate, delay, expire, restart,
// stale, edit, API error, partition, time travel.
var Faithful = faults.Mix{faults.KindDuplicate, faults.KindDelay, faults.KindExpire, faults.KindRestart, faults.KindStale, faults.KindEdit, faults.KindAPIError, faults.KindPartition, faults.KindTimeTravel}

var (
	measure = flag.Bool("operators.measure", false, "measure runs and reconciles per second (TestMeasure)")
	explore = flag.Duration("operators.explore", 0, "explore under every faithful fault within this budget (TestExplore)")
)

// Without returns Faithful without the kinds given: an operator's real
// finding under one kind, held by a test of its own, leaves the others to
// be checked.
func Without(kinds ...faults.Kind) faults.Mix {
	var mix faults.Mix
	for _, k := range Faithful {
		if !slices.Contains(kinds, k) {
			mix = append(mix, k)
		}
	}
	return mix
}

// Converges searches runs of sc under mix, each in its own synctest
// bubble, and fails t with the shrunk counterexample and its replay line
// if one does not reach the goal.
func Converges(t *testing.T, sc properties.Scenario, mix faults.Mix, checks int) *properties.SearchResult {
	t.Helper()
	res, err := properties.Search(sc, mix, properties.SearchOptions{
		Checks: checks, Seed: 1, Wrap: properties.InBubble(t), Test: t,
	})
	if err != nil {
		t.Fatal(err)
	}
	if cx := res.Counterexample; cx != nil {
		t.Fatalf("%s must converge under %s, but:\n%s", sc.Name, mix, cx.Report())
	}
	if res.Runs != checks {
		t.Fatalf("%d runs of %d", res.Runs, checks)
	}
	return res
}

// Known is a real finding of an operator, held by a test of its own,
// that random runs under the operator's mix may meet: Measure counts the
// runs that meet it and does not fail on them. A measurement measures a
// mix; a true finding it stumbles on says nothing new, while one no Known
// matches is news, and fails it.
type Known struct {
	// Test names the test that holds the finding.
	Test string
	// Match reports whether a run's failure is this finding.
	Match func(*properties.Failure) bool
}

// Measure reports, with -operators.measure, the runs per second and the
// reconciles per second (of every controller) of whole runs of sc under
// random schedules of mix (every faithful fault, or those left once a real
// finding is set aside, as Converges checks), each in its own bubble, wall
// time of everything included, and the runs per CPU-second of the
// process (the figure a loaded machine distorts least). Run i draws its
// schedule and every choice from PCG(i, 7), so it is the same run in
// every round and in every process (-test.benchtime (i+1)x reaches it).
// A run that fails with one of the known findings is counted and logged;
// the first run of the last round that fails otherwise fails t, with its
// index and report, once the figures are logged.
func Measure(t *testing.T, sc properties.Scenario, mix faults.Mix, known ...Known) {
	t.Helper()
	if !*measure {
		t.Skip("a measurement: run with -operators.measure")
	}
	for _, k := range known {
		if k.Test == "" || k.Match == nil {
			t.Fatalf("a known finding needs the test that holds it and a Match: %+v", k)
		}
	}
	plan, err := properties.PlanFor(sc, mix)
	if err != nil {
		t.Fatal(err)
	}
	gen := faults.Schedules(mix, plan.Topology, plan.Budget)
	var runs *tally
	res := testing.Benchmark(func(b *testing.B) {
		// Each round runs 0, 1, …, b.N-1 again: the last one's tally
		// covers every run measured.
		runs = newTally(known)
		reconciles := 0
		cpu := cputime.Process()
		for i := 0; b.Loop(); i++ {
			r := rand.New(rand.NewPCG(uint64(i), 7))
			sched := gen.Example(int(r.Int32()))
			var out *properties.Outcome
			var err error
			synctest.Test(t, func(*testing.T) {
				out, err = properties.Execute(sc, sched, prng{r}, properties.RunOptions{})
			})
			if err != nil {
				b.Fatal(err)
			}
			runs.add(i, out.Failure, sched)
			for _, rec := range out.Cluster.Trace().Records {
				if rec.Kind == model.ActReconcile {
					reconciles++
				}
			}
		}
		if cpu = cputime.Process() - cpu; cpu > 0 {
			b.ReportMetric(float64(b.N)/cpu.Seconds(), "runs/CPU-s")
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "runs/s")
		b.ReportMetric(float64(reconciles)/b.Elapsed().Seconds(), "reconciles/s")
	})
	t.Logf("MEASURE %s under %s: %.1f runs/s, %.0f reconciles/s, %.1f runs per CPU-second (%d runs)", sc.Name, mix, res.Extra["runs/s"], res.Extra["reconciles/s"], res.Extra["runs/CPU-s"], res.N)
	for _, line := range runs.knownLines(res.N) {
		t.Log(line)
	}
	if runs.unknown != "" {
		t.Errorf("a run failed, and no known finding matches it: %s", runs.unknown)
	}
}

// tally is what Measure keeps of one round's failures: how many runs met
// each known finding and the first of them, and the first failure no
// known finding matches, with its run's index.
type tally struct {
	known   []Known
	met     []int
	first   []int
	unknown string
}

func newTally(known []Known) *tally {
	return &tally{known: known, met: make([]int, len(known)), first: make([]int, len(known))}
}

// add records run i's failure f (nil for a run that passed) under sched.
func (t *tally) add(i int, f *properties.Failure, sched faults.Schedule) {
	if f == nil {
		return
	}
	for k, kn := range t.known {
		if kn.Match(f) {
			if t.met[k] == 0 {
				t.first[k] = i
			}
			t.met[k]++
			return
		}
	}
	if t.unknown == "" {
		t.unknown = fmt.Sprintf("run %d (-test.benchtime %dx reaches it): %s", i, i+1, f.Report(sched))
	}
}

// knownLines says, for each known finding some of the n runs met, how
// many and the first.
func (t *tally) knownLines(n int) []string {
	var out []string
	for k, kn := range t.known {
		if t.met[k] > 0 {
			out = append(out, fmt.Sprintf("%d of %d runs met the known finding %s, first run %d", t.met[k], n, kn.Test, t.first[k]))
		}
	}
	return out
}

// Explore explores sc, with -operators.explore=BUDGET, under mix (every
// faithful fault, or those left once a real finding is set aside) with
// two deviations, deepening until the budget ends, reports the depth it
// finished and its guarantee, and fails on a counterexample. Each depth
// finished is logged with its wall and CPU time since the start, so the
// target "depth 3 within 60 s" reads off one line.
func Explore(t *testing.T, sc properties.Scenario, mix faults.Mix) {
	t.Helper()
	if *explore <= 0 {
		t.Skip("an exploration: run with -operators.explore=60s")
	}
	start, cpu := time.Now(), cputime.Process()
	progress := func(r properties.ExploreResult) {
		t.Logf("%s: depth %d explored (%d states, %d executions), %.1f s wall, %.1f s CPU", r.Scenario, r.Depth, r.States, r.Executions, time.Since(start).Seconds(), (cputime.Process() - cpu).Seconds())
	}
	res, err := crt.Explore(t, sc, mix, properties.ExploreOptions{Depth: 64, Deviations: 2, Budget: *explore, Progress: progress})
	if err != nil {
		t.Fatal(err)
	}
	if cx := res.Counterexample; cx != nil {
		t.Fatalf("%s", cx.Report())
	}
	t.Logf("EXPLORE %s under %s: depth %d finished in %v (budget %v)\n%s", sc.Name, mix, res.Depth, time.Since(start).Round(time.Second), *explore, res.Guarantee())
}

// prng chooses uniformly with a seeded generator.
type prng struct{ r *rand.Rand }

func (p prng) Choose(n int, _ string) int { return p.r.IntN(n) }
