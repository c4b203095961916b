package properties

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/converge-sim/converge/controllers/replicaset"
	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
)

// flipper is a stateless controller of the Flag "web" that writes its
// status.phase: with busy, the other phase at every reconcile, so that its
// own write wakes it again and the cluster never settles (a loop of a few
// steps, no-fixed-point); without, the parity of the resync period it is
// in, so that every quiet round writes once (a loop of two rounds,
// hot-loop).
func flipper(busy bool) model.Controller {
	return model.Controller{
		Name:         "flipper",
		For:          "Flag",
		ResyncPeriod: 20,
		NewReconciler: func(c model.Client) model.Reconciler {
			return model.StatelessFunc(func(req model.Request) (model.Result, error) {
				rs, err := c.Get("Flag", req.Namespace, req.Name)
				if err != nil {
					return model.Result{}, nil
				}
				want := []string{"even", "odd"}[c.Now()/20%2]
				if busy {
					want = "odd"
					if rs.Status.Str("phase") == "odd" {
						want = "even"
					}
				}
				if rs.Status.Str("phase") == want {
					return model.Result{}, nil
				}
				rs.Status.Set("phase", want)
				return model.Result{}, c.UpdateStatus(rs)
			})
		},
	}
}

// deadlineWorld is the loopWorld whose flipper, not busy, stops
// flipping at time deadline: it reads the clock, so a cut of its hot
// loop before the deadline is wrong.
func deadlineWorld(deadline model.Time) *loopWorld {
	return &loopWorld{flipper: func() model.Controller {
		f := flipper(false)
		newRec := f.NewReconciler
		f.NewReconciler = func(c model.Client) model.Reconciler {
			rec := newRec(c)
			return model.StatelessFunc(func(req model.Request) (model.Result, error) {
				if c.Now() >= deadline {
					return model.Result{}, nil
				}
				return rec.Reconcile(req)
			})
		}
		return f
	}}
}

// loopWorld is a ReplicaSet kept by the level-triggered controller, and
// the flipper with its Flag; built counts the clusters built and steps their steps.
type loopWorld struct {
	busy  bool
	built []*model.Cluster
	// flipper, when set, makes the flipper instead of flipper(busy).
	flipper func() model.Controller
	// replicas is the ReplicaSet's, 2 when zero.
	replicas int64
	// rounds is the scenario's SettleRounds.
	rounds int
}

func (w *loopWorld) scenario() Scenario {
	return Scenario{Name: "flipper", SettleRounds: w.rounds, Build: func(cfg model.Config) (*model.Cluster, error) {
		c := model.NewCluster(cfg)
		flip := flipper(w.busy)
		if w.flipper != nil {
			flip = w.flipper()
		}
		for _, ctl := range []model.Controller{replicaset.Level(replicaset.LevelOptions{Resync: 20, Expectations: true}), flip} {
			if err := c.AddController(ctl); err != nil {
				return nil, err
			}
		}
		w.built = append(w.built, c)
		if err := c.Apply(&model.Object{Kind: "Flag", Namespace: "default", Name: "web"}); err != nil {
			return nil, err
		}
		return c, c.Apply(replicaset.New("default", "web", max(w.replicas, 2)))
	}}
}

func (w *loopWorld) steps() int {
	n := 0
	for _, c := range w.built {
		n += c.Steps()
	}
	return n
}

// TestALoopThatRepeatsEndsTheRun: with RunOptions.stopLoops, a run whose
// quiescence repeats itself, busy for ever, ends there with the verdict
// the whole run reaches at its step bound (no-fixed-point), in fewer
// steps; a run whose quiet rounds come back to a state they were in, the
// clock aside, ends there as the hot loop the whole run reaches at its
// last quiet round.
func TestALoopThatRepeatsEndsTheRun(t *testing.T) {
	for _, tc := range []struct {
		busy bool
		want Verdict
		cut  bool
	}{{true, NoFixedPoint, true}, {false, HotLoop, true}} {
		w := &loopWorld{busy: tc.busy}
		whole, _, err := Replay(w.scenario(), nil, nil, RunOptions{})
		require.NoError(t, err)
		require.NotNil(t, whole.Failure)
		require.Equal(t, tc.want, whole.Failure.Verdict)
		assert.False(t, whole.loopCut)

		cut, _, err := Replay(w.scenario(), nil, nil, RunOptions{stopLoops: true})
		require.NoError(t, err)
		require.NotNil(t, cut.Failure)
		assert.Equal(t, tc.want, cut.Failure.Verdict)
		assert.Equal(t, tc.cut, cut.loopCut)
		assert.Equal(t, whole.Failure.Summary, cut.Failure.Summary)
		if tc.cut {
			assert.Less(t, cut.Cluster.Steps(), whole.Cluster.Steps())
		} else {
			assert.Equal(t, cut.Cluster.Trace().Hash(), whole.Cluster.Trace().Hash())
		}
		t.Logf("%s: %d steps whole, %d cut", tc.want, whole.Cluster.Steps(), cut.Cluster.Steps())
	}
}

// TestAShrinkOfALoopStopsItsRunsEarly: a search whose runs never settle
// (busy, no-fixed-point) or write in every quiet round (a hot loop) gives
// the same counterexample, report and trace with loops cut and without
// (its minimal run is made again in full), and its search and shrink make
// fewer steps with them cut.
func TestAShrinkOfALoopStopsItsRunsEarly(t *testing.T) {
	for _, tc := range []struct {
		busy bool
		seed uint64
		want Verdict
	}{{true, 3, NoFixedPoint}, {false, 1, HotLoop}} {
		var reports []string
		var traces []string
		var steps []int
		for _, whole := range []bool{true, false} {
			w := &loopWorld{busy: tc.busy}
			res, err := Search(w.scenario(), faults.Mix{faults.KindDrop, faults.KindRestart}, SearchOptions{Checks: 5, Seed: tc.seed, wholeLoops: whole, ReplayCommand: func(uint64) string { return "replay" }})
			require.NoError(t, err)
			cx := res.Counterexample
			require.NotNil(t, cx)
			assert.Equal(t, tc.want, cx.Failure.Verdict)
			reports = append(reports, cx.Report())
			traces = append(traces, cx.Trace.Hash())
			steps = append(steps, w.steps())
		}
		assert.Equal(t, reports[0], reports[1], "%s", tc.want)
		assert.Equal(t, traces[0], traces[1], "%s", tc.want)
		assert.Less(t, steps[1], steps[0], "%s", tc.want)
		t.Logf("%s, seed %d: the search and its shrink made %d steps whole, %d with loops cut", tc.want, tc.seed, steps[0], steps[1])
	}
}

// TestAWrongCutIsMadeAgainWhole: a controller that keeps memory its
// fingerprint does not show (it says it is stateless, and stops flipping
// after 1,500 reconciles) makes a cut wrong: the whole run converges. The
// minimal failing run, made again in full, passes, and the search is made
// again without cuts: its result is the whole search's.
func TestAWrongCutIsMadeAgainWhole(t *testing.T) {
	liar := flipper(true)
	newRec := liar.NewReconciler
	liar.NewReconciler = func(c model.Client) model.Reconciler {
		rec, n := newRec(c), 0
		return model.StatelessFunc(func(req model.Request) (model.Result, error) {
			if n++; n > 1500 {
				return model.Result{}, nil
			}
			return rec.Reconcile(req)
		})
	}
	sc := Scenario{Name: "liar", Build: func(cfg model.Config) (*model.Cluster, error) {
		c := model.NewCluster(cfg)
		if err := c.AddController(liar); err != nil {
			return nil, err
		}
		return c, c.Apply(&model.Object{Kind: "Flag", Namespace: "default", Name: "web"})
	}}
	cut, _, err := Replay(sc, nil, nil, RunOptions{stopLoops: true})
	require.NoError(t, err)
	require.NotNil(t, cut.Failure, "the cut is wrong")
	whole, _, err := Replay(sc, nil, nil, RunOptions{})
	require.NoError(t, err)
	require.Nil(t, whole.Failure, "%v", whole.Failure)

	res, err := Search(sc, nil, SearchOptions{Checks: 3, Seed: 1, ReplayCommand: func(uint64) string { return "replay" }})
	require.NoError(t, err)
	assert.Nil(t, res.Counterexample)
	assert.Equal(t, 3, res.Runs)
}

// TestAWrongHotLoopCutIsMadeAgainWhole: a flipper that reads the clock
// and stops flipping at t=140 makes the cut of its hot loop at t=120
// wrong (its quiet rounds came back to a state they were in, the clock
// aside): the whole run converges. The search with cuts gives the whole
// search's result, nothing found, since the minimal failing run, made
// again in full, passes and the search is made again without cuts.
func TestAWrongHotLoopCutIsMadeAgainWhole(t *testing.T) {
	w := deadlineWorld(140)
	cut, _, err := Replay(w.scenario(), nil, nil, RunOptions{stopLoops: true})
	require.NoError(t, err)
	require.NotNil(t, cut.Failure, "the cut is wrong")
	assert.Equal(t, HotLoop, cut.Failure.Verdict)
	assert.True(t, cut.loopCut)
	whole, _, err := Replay(w.scenario(), nil, nil, RunOptions{})
	require.NoError(t, err)
	require.Nil(t, whole.Failure, "%v", whole.Failure)

	for _, wholeLoops := range []bool{false, true} {
		res, err := Search(w.scenario(), nil, SearchOptions{Checks: 3, Seed: 1, wholeLoops: wholeLoops, ReplayCommand: func(uint64) string { return "replay" }})
		require.NoError(t, err)
		assert.Nil(t, res.Counterexample, "whole loops %v", wholeLoops)
		assert.Equal(t, 3, res.Runs, "whole loops %v", wholeLoops)
	}
}

// BenchmarkLoopingSearch is the search of TestAShrinkOfALoopStopsItsRunsEarly
// under drop, restart and delay from seed 1, its runs cut or whole.
//
//	go test ./properties -run '^$' -bench BenchmarkLoopingSearch -benchtime 10x
func BenchmarkLoopingSearch(b *testing.B) {
	for _, whole := range []bool{true, false} {
		name := "cut"
		if whole {
			name = "whole"
		}
		b.Run(name, func(b *testing.B) {
			for range b.N {
				w := &loopWorld{busy: true}
				res, err := Search(w.scenario(), faults.Mix{faults.KindDrop, faults.KindRestart, faults.KindDelay}, SearchOptions{Checks: 20, Seed: 1, wholeLoops: whole, ReplayCommand: func(uint64) string { return "replay" }})
				if err != nil || res.Counterexample == nil {
					b.Fatal(err, res)
				}
				b.ReportMetric(float64(w.steps()), "steps/op")
				b.ReportMetric(float64(len(w.built)), "runs/op")
			}
		})
	}
}

// BenchmarkHotLoopingSearch is BenchmarkLoopingSearch with the flipper
// writing once a quiet round (a hot loop) beside a ReplicaSet of 20
// pods, whose resyncs make each quiet round cost, its runs cut or whole,
// with the default 5 quiet rounds before a hot loop and with 20
// (Scenario.SettleRounds).
//
//	go test ./properties -run '^$' -bench BenchmarkHotLoopingSearch -benchtime 10x
func BenchmarkHotLoopingSearch(b *testing.B) {
	for _, rounds := range []int{5, 20} {
		for _, whole := range []bool{true, false} {
			name := "cut"
			if whole {
				name = "whole"
			}
			b.Run(fmt.Sprintf("rounds%d/%s", rounds, name), func(b *testing.B) {
				for range b.N {
					w := &loopWorld{replicas: 20, rounds: rounds}
					res, err := Search(w.scenario(), faults.Mix{faults.KindDrop, faults.KindRestart, faults.KindDelay}, SearchOptions{Checks: 20, Seed: 1, wholeLoops: whole, ReplayCommand: func(uint64) string { return "replay" }})
					if err != nil || res.Counterexample == nil {
						b.Fatal(err, res)
					}
					b.ReportMetric(float64(w.steps()), "steps/op")
					b.ReportMetric(float64(len(w.built)), "runs/op")
				}
			})
		}
	}
}

// TestAProposalThatRanShortEndsInTheMemo: rapid's proposals that run out
// of input midway are remembered to the draw where they ended
// (runMemo.recordOverrun), so that a later proposal as short ends in the
// memo's walk before a cluster is built: the hot loop's search under
// drop, restart and delay from seed 1 builds fewer clusters, with the
// same counterexample, report and trace.
func TestAProposalThatRanShortEndsInTheMemo(t *testing.T) {
	defer func() { memoOverruns = true }()
	var reports, traces []string
	var built []int
	for _, on := range []bool{false, true} {
		memoOverruns = on
		w := &loopWorld{replicas: 5}
		res, err := Search(w.scenario(), faults.Mix{faults.KindDrop, faults.KindRestart, faults.KindDelay}, SearchOptions{Checks: 20, Seed: 1, ReplayCommand: func(uint64) string { return "replay" }})
		require.NoError(t, err)
		require.NotNil(t, res.Counterexample)
		reports = append(reports, res.Counterexample.Report())
		traces = append(traces, res.Counterexample.Trace.Hash())
		built = append(built, len(w.built))
	}
	assert.Equal(t, reports[0], reports[1])
	assert.Equal(t, traces[0], traces[1])
	assert.Less(t, built[1], built[0])
	t.Logf("clusters built: %d without, %d with proposals that ran short remembered", built[0], built[1])
}
