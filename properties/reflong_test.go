package properties

import (
	"strconv"
	"testing"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// ticker is a time-driven controller, the PeriodicJob in small (see
// timeDriven): the Cache's spec.every is a period in ticks, counted from
// the last run (from t=0 before the first), and at each reconcile it
// records the latest run due in status.lastRun, then requeues for the
// next one. With sticky it keeps the first period it saw (status.every),
// a real history-dependent bug.
//
// With spec.loop set, a run it makes puts it in a hot loop, as the
// cronjob example's PeriodicJob loops once a run's Job is pruned at
// successfulJobsHistoryLimit 0: status.looping is set, and from then on
// every reconcile writes status.count once more.
func ticker(c *model.Cluster, sticky bool) model.Controller {
	return timeDriven(c, "ticker", sticky, nil, func(cl model.Client, obj *model.Object, now, every model.Time) (model.Result, error) {
		if obj.Status.Bool("looping") {
			obj.Status.Set("count", obj.Status.Int("count")+1)
			return model.Result{}, cl.UpdateStatus(obj)
		}
		last := model.Time(obj.Status.Int("lastRun"))
		if next := last + every; now < next {
			return model.Result{RequeueAfter: next - now}, nil
		}
		last += (now - last) / every * every
		obj.Status.Set("lastRun", int64(last))
		if obj.Spec.Bool("loop") {
			obj.Status.Set("looping", true)
		}
		if err := cl.UpdateStatus(obj); err != nil {
			return model.Result{}, err
		}
		return model.Result{RequeueAfter: last + every - now}, nil
	})
}

// tickerScenario runs ticker over the Cache default/web, every 10 ticks at
// first, with a fault phase of 25 ticks, and informers that resync every
// resync ticks (0: never). status.lastRun is a time, and compares as the
// adapter compares timestamps: by presence. built is set to each cluster
// it builds.
func tickerScenario(sticky bool, resync model.Time, built **model.Cluster) Scenario {
	return Scenario{
		Name: "ticker",
		Build: func(cfg model.Config) (*model.Cluster, error) {
			c := model.NewCluster(cfg)
			*built = c
			ctl := ticker(c, sticky)
			ctl.ResyncPeriod = resync
			if err := c.AddController(ctl); err != nil {
				return nil, err
			}
			return c, c.Apply(&model.Object{Kind: "Cache", Namespace: "default", Name: "web", Spec: model.NewFields(model.Values{"every": int64(10)})})
		},
		Budget: faults.Budget{Horizon: 25},
		Inputs: &Inputs{
			Target: cacheRef,
			Spec:   rapid.Just(model.NewFields(model.Values{"every": int64(10)})),
			Semantics: Semantics{Value: func(kind, path string, v any) any {
				if kind == "Cache" && path == "status.lastRun" {
					return "(a time)"
				}
				return v
			}},
		},
	}
}

// timerUntil takes the next timer at every step before time at, letting
// pending work settle first, and the first option from then on: the
// inputs actor moves once the cluster has reached at.
type timerUntil struct {
	c  **model.Cluster
	at model.Time
}

func (u timerUntil) Choose(n int, label string) int {
	if c := *u.c; label == "step" && c != nil && c.Now() < u.at && !c.Busy() {
		return n - 1
	}
	return 0
}

// TestTheReferenceRunIsDrivenAsLongAsTheHistoryRan: the ticker runs at
// t=10 every 10 ticks; then spec.every becomes 26 and the fault phase ends
// at t=25, before the next run is due at 36, so the history keeps the
// record of its run at t=10. A fresh cluster given every 26 has made no
// run at t=25, its first being due at 26: judged there alone, the oracle
// reported status.lastRun as history. Driven as long as the history ran
// (to the time it was judged), the fresh cluster has run too, and the
// oracle finds nothing.
func TestTheReferenceRunIsDrivenAsLongAsTheHistoryRan(t *testing.T) {
	var c *model.Cluster
	final := model.NewFields(model.Values{"every": int64(26)})
	out, err := Execute(tickerScenario(false, 0, &c), nil, timerUntil{c: &c, at: 10}, RunOptions{Inputs: Transitions{final}})
	require.NoError(t, err)
	require.Len(t, out.Transitions, 1)
	require.Equal(t, model.Time(10), out.Transitions[0].At, "the transition lands after the run at t=10")
	quiet, _ := out.Cluster.QuietSince()
	require.Equal(t, model.Time(25), quiet)
	web := out.Cluster.State().Get("Cache", "default", "web")
	require.NotNil(t, web)
	require.Equal(t, int64(10), web.Status.Int("lastRun"), "the history's run under the first spec")
	assert.Nil(t, out.Failure, "%v", out.Failure)

	// The reference run judged at the history's quiet time alone has no
	// run: the false finding.
	sc := tickerScenario(false, 0, &c)
	atQuiet, _, err := runReference(sc, sc.bounds(out.Cluster), referenceFor{spec: final, draws: draws{}, quiet: quiet}, &gate{})
	require.NoError(t, err)
	cm := newComparer(sc.Inputs)
	got, _ := captureState(out.Cluster.State(), cacheRef, cm)
	assert.Equal(t, []string{"Cache default/web status.lastRun: \"(a time)\" after the transitions, <none> in a fresh cluster"}, cm.diffStates(atQuiet.state, got))
}

// TestAStickyTickerIsStillFoundWhenDrivenLonger: a ticker that keeps the
// first period it saw differs from a fresh cluster at the history's quiet
// time and at the time it was judged; the finding says both.
func TestAStickyTickerIsStillFoundWhenDrivenLonger(t *testing.T) {
	var c *model.Cluster
	out, err := Execute(tickerScenario(true, 0, &c), nil, timerUntil{c: &c, at: 10}, RunOptions{Inputs: Transitions{model.NewFields(model.Values{"every": int64(26)})}})
	require.NoError(t, err)
	require.NotNil(t, out.Failure)
	assert.Equal(t, HistoryDependent, out.Failure.Verdict, out.Failure.Report(nil))
	assert.Contains(t, out.Failure.Details, "Cache default/web status.every: 10 after the transitions, 26 in a fresh cluster")
	assert.Contains(t, out.Failure.Diagnosis, "a fresh cluster driven to t="+strconv.FormatInt(int64(out.Cluster.Now()), 10)+", the time the history was judged, differs too")
}

// TestADrivenReferenceThatFailsIsTheVerdict: the final spec {every: 26,
// loop: true} puts the ticker in a hot loop from its first run. The
// history's last run was at t=10, under the first spec, and its clock
// stopped at t=25, before the next was due at 36: it converges. A fresh
// cluster given the final spec has made no run at t=25 either (its first
// is due at 26), so the two differ in status.lastRun; driven to the time
// the history was judged, the fresh cluster runs at 26 and loops. That
// is the run's verdict, the reference run's own, not history-dependent:
// the final spec alone fails (the cronjob example's hot loop at
// successfulJobsHistoryLimit 0, once reported as history-dependent
// status.lastSuccessfulTime, issue 35).
func TestADrivenReferenceThatFailsIsTheVerdict(t *testing.T) {
	var c *model.Cluster
	final := model.NewFields(model.Values{"every": int64(26), "loop": true})
	out, err := Execute(tickerScenario(false, 0, &c), nil, timerUntil{c: &c, at: 10}, RunOptions{Inputs: Transitions{final}})
	require.NoError(t, err)
	require.Len(t, out.Transitions, 1)
	quiet, _ := out.Cluster.QuietSince()
	require.Equal(t, model.Time(25), quiet)
	web := out.Cluster.State().Get("Cache", "default", "web")
	require.NotNil(t, web)
	require.False(t, web.Status.Bool("looping"), "the history made no run under the final spec")
	require.NotNil(t, out.Failure)
	judged := strconv.FormatInt(int64(out.Cluster.Now()), 10)
	assert.Equal(t, NoFixedPoint, out.Failure.Verdict, out.Failure.Report(nil))
	assert.Contains(t, out.Failure.Summary, "a fresh cluster whose Cache default/web has the final spec from the start, driven to t="+judged+" (the time the history was judged), fails: ")
	assert.NotEmpty(t, out.Failure.Inputs, "the history's inputs")
	assert.Contains(t, out.Failure.Diagnosis, "at t=25, where the history's fault phase ended, a fresh cluster given the final spec differed from the history (1 difference: Cache default/web status.lastRun: \"(a time)\" after the transitions, <none> in a fresh cluster)")
	assert.False(t, out.Converged)
}

// TestAFarRequeueIsReachedWithoutAStepPerResync: the ticker resyncs
// every 10 ticks and is given a period of 50,000 after its run at t=10.
// Its clock stopped at t=25, it requeues 49,985 ticks ahead at every
// reconcile: a quiet round waits for that requeue. Before the round
// passed over idle resyncs, it fired the resync every 10 ticks on the
// way (held while the run checks for prompt convergence: one step each),
// and the run ended as "no fixed point within 5000 steps" at t=49,800
// (the cronjob example at an interval of 12,478 s, 5 informers, issue
// 35). Now the history is judged after a few
// dozen steps, every round's first period still replays the cache, and
// the reference run driven to the time the history was judged reaches
// it in its fault phase, with the run at 50,000 made: no finding.
func TestAFarRequeueIsReachedWithoutAStepPerResync(t *testing.T) {
	var c *model.Cluster
	final := model.NewFields(model.Values{"every": int64(50_000)})
	sc := tickerScenario(false, 10, &c)
	out, err := Execute(sc, nil, timerUntil{c: &c, at: 10}, RunOptions{Inputs: Transitions{final}})
	require.NoError(t, err)
	require.Len(t, out.Transitions, 1)
	assert.Nil(t, out.Failure, "%v", out.Failure)
	judged := out.Cluster.Now()
	assert.Greater(t, judged, model.Time(50_000), "the history waited for its requeue")
	assert.Less(t, out.Cluster.Steps(), 100, "a few steps, not one per resync period")
	quiet, _ := out.Cluster.QuietSince()
	replays := 0
	for _, rec := range out.Cluster.Trace().Records {
		if rec.Kind == model.ActDeliver && rec.Replay && rec.Time > quiet {
			replays++
		}
	}
	assert.Positive(t, replays, "the first quiet round after the held ones replays the cache")

	// The reference driven to the time the history was judged: its fault
	// phase, no longer than FaultSteps, runs to that time.
	ref, rc, err := runReference(sc, sc.bounds(out.Cluster), referenceFor{spec: final, draws: draws{}, quiet: judged}, &gate{})
	require.NoError(t, err)
	require.Nil(t, ref.failure)
	assert.Less(t, rc.Steps(), 100)
	web := rc.State().Get("Cache", "default", "web")
	require.NotNil(t, web)
	assert.Equal(t, int64(50_000), web.Status.Int("lastRun"), "the fresh cluster's run at 50,000")
}
