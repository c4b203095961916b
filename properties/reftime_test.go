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

// periodic is a time-driven controller, a CronJob in small: the Cache's
// spec.every is a period in ticks, and at each reconcile it makes sure the
// latest run due has its Run (named web-<time>), deletes the older ones
// and records the latest run's time in status.lastRun; it requeues for the
// next run; status.every reports the period it runs by. Like the adapter's StopClockWhenFaultsEnd, the clock it reads
// stops where the fault phase ended (model.Cluster.QuietSince), so it
// reaches a fixed point. Which Run exists at that point depends on when
// the fault phase ended, not on the spec alone.
//
// With sticky, it has a real history-dependent bug: it keeps the period it
// first saw in status.every and schedules by it, so a change of spec.every
// never takes effect.
func periodic(c *model.Cluster, sticky bool) model.Controller {
	return periodicReading(c, sticky, nil)
}

// periodicReading is periodic whose time is read by now when it is set
// (bubbleNow: from a testing/synctest bubble's clock, as user code under
// the controllerruntime adapter reads it).
func periodicReading(c *model.Cluster, sticky bool, read func(model.Time) model.Time) model.Controller {
	ctl := timeDriven(c, "periodic", sticky, read, func(cl model.Client, obj *model.Object, now, every model.Time) (model.Result, error) {
		latest := now / every * every
		requeue := model.Result{RequeueAfter: latest + every - now}
		if latest == 0 {
			return requeue, nil
		}
		name := "web-" + strconv.FormatInt(int64(latest), 10)
		runs, err := cl.List("Run", model.ListOptions{Namespace: obj.Namespace, Owner: obj.UID})
		if err != nil {
			return model.Result{}, err
		}
		found := false
		for _, run := range runs {
			switch {
			case run.Name == name:
				found = true
			case run.Spec.Int("at") < int64(latest):
				if err := cl.Delete(run.Ref(), model.DeleteOptions{}); err != nil && model.ReasonOf(err) != model.ReasonNotFound {
					return model.Result{}, err
				}
			}
		}
		if !found {
			run := &model.Object{Kind: "Run", Namespace: obj.Namespace, Name: name, OwnerReferences: []model.OwnerReference{model.NewOwnerReference(obj)},
				Spec: model.NewFields(model.Values{"at": int64(latest)})}
			if err := cl.Create(run); err != nil && model.ReasonOf(err) != model.ReasonAlreadyExists {
				return model.Result{}, err
			}
		}
		if obj.Status.Int("lastRun") != int64(latest) {
			obj.Status.Set("lastRun", int64(latest))
			if err := cl.UpdateStatus(obj); err != nil {
				return model.Result{}, err
			}
		}
		return requeue, nil
	})
	ctl.Owns = []string{"Run"}
	return ctl
}

// timeDriven is what the time-driven fixtures (periodic here, ticker in
// reflong_test.go) share: a controller of Caches that reads the Cache,
// the time (by read when it is set) on a clock stopped where the fault
// phase ended, as the adapter's StopClockWhenFaultsEnd stops it
// (model.Cluster.QuietSince), and the period spec.every, or, with sticky,
// the first period it saw (status.every, a real history-dependent bug);
// it records the period it runs by in status.every, then leaves the run
// to body.
func timeDriven(c *model.Cluster, name string, sticky bool, read func(model.Time) model.Time, body func(cl model.Client, obj *model.Object, now, every model.Time) (model.Result, error)) model.Controller {
	return model.Controller{
		Name: name,
		For:  "Cache",
		NewReconciler: func(cl model.Client) model.Reconciler {
			return model.ReconcilerFunc(func(req model.Request) (model.Result, error) {
				obj, err := cl.Get("Cache", req.Namespace, req.Name)
				if err != nil {
					return model.Result{}, nil
				}
				now := cl.Now()
				if q, ok := c.QuietSince(); ok && q < now {
					now = q
				}
				if read != nil {
					now = read(now)
				}
				every := model.Time(obj.Spec.Int("every"))
				if sticky && obj.Status.Has("every") {
					every = model.Time(obj.Status.Int("every"))
				}
				if every <= 0 {
					return model.Result{}, nil
				}
				if obj.Status.Int("every") != int64(every) {
					obj.Status.Set("every", int64(every))
					return model.Result{}, cl.UpdateStatus(obj)
				}
				return body(cl, obj, now, every)
			})
		},
	}
}

// periodicScenario runs periodic over the Cache default/web, every 10
// ticks at first, with a fault phase of horizon ticks; its inputs set
// spec.every and spec.image.
func periodicScenario(horizon model.Time, sticky bool) Scenario {
	return Scenario{
		Name: "periodic",
		Build: func(cfg model.Config) (*model.Cluster, error) {
			c := model.NewCluster(cfg)
			if err := c.AddController(periodic(c, sticky)); err != nil {
				return nil, err
			}
			return c, c.Apply(&model.Object{Kind: "Cache", Namespace: "default", Name: "web", Spec: model.NewFields(model.Values{"every": int64(10)})})
		},
		Budget: faults.Budget{Horizon: horizon},
		Inputs: &Inputs{Target: cacheRef, Spec: rapid.Just(model.NewFields(model.Values{"every": int64(10)}))},
	}
}

// runsOf returns the names of the Runs of a state.
func runsOf(st model.State) []string {
	var out []string
	for i := range st.Len("Run") {
		out = append(out, st.Nth("Run", i).Name)
	}
	return out
}

// TestATimeDrivenControllerIsJudgedAtTheHistorysTime: the history goes
// quiet at t=25, when its latest run is the one at 20. A reference run that
// went quiet at another time (t=0, as before the reference run took the
// history's time) has no Run, a false finding; the reference run that
// goes quiet where the history did has the same Run, and the oracle finds
// nothing. A spec change that leaves the period alone, or changes it, is
// judged the same way.
func TestATimeDrivenControllerIsJudgedAtTheHistorysTime(t *testing.T) {
	for _, spec := range []model.Values{
		{"every": int64(10), "image": "v2"},
		{"every": int64(7)},
	} {
		final := model.NewFields(spec)
		sc := periodicScenario(25, false)
		out, err := Execute(sc, nil, firstChoice{}, RunOptions{Inputs: Transitions{final}})
		require.NoError(t, err)
		require.Len(t, out.Transitions, 1)
		assert.Nil(t, out.Failure, "%v", out.Failure)
		quiet, _ := out.Cluster.QuietSince()
		require.Equal(t, model.Time(25), quiet, "the fault phase ran to its horizon")
		latest := int64(25) / final.Int("every") * final.Int("every")
		assert.Equal(t, []string{"web-" + strconv.FormatInt(latest, 10)}, runsOf(out.Cluster.State()), "the history's latest run")

		// The same reference run, gone quiet at t=0: no run was due, so
		// its state differs from the history's by time alone.
		b := sc.bounds(out.Cluster)
		early, _, err := runReference(sc, b, referenceFor{spec: final, draws: draws{}, quiet: 0}, &gate{})
		require.NoError(t, err)
		require.Nil(t, early.failure)
		cm := newComparer(sc.Inputs)
		got, _ := captureState(out.Cluster.State(), cacheRef, cm)
		assert.NotEmpty(t, cm.diffStates(early.state, got), "a reference run judged at another time differs")
		same, _, err := runReference(sc, b, referenceFor{spec: final, draws: draws{}, quiet: quiet}, &gate{})
		require.NoError(t, err)
		assert.Empty(t, cm.diffStates(same.state, got), "judged at the history's time it does not")
	}
}

// TestAHistoryDependentTimeDrivenControllerIsStillFound: the sticky
// periodic keeps the first period it saw, so after spec.every goes from 10
// to 7 it still runs every 10 ticks; a fresh cluster runs every 7. The
// oracle, judging both at the history's time, finds it.
func TestAHistoryDependentTimeDrivenControllerIsStillFound(t *testing.T) {
	out, err := Execute(periodicScenario(25, true), nil, firstChoice{}, RunOptions{Inputs: Transitions{model.NewFields(model.Values{"every": int64(7)})}})
	require.NoError(t, err)
	require.NotNil(t, out.Failure)
	assert.Equal(t, HistoryDependent, out.Failure.Verdict, out.Failure.Report(nil))
	assert.Contains(t, out.Failure.Details, "Cache default/web status.every: 10 after the transitions, 7 in a fresh cluster")
	assert.Contains(t, out.Failure.Details, "Run default/web-20: after the transitions, not in a fresh cluster")
	assert.Contains(t, out.Failure.Details, "Run default/web-21: in a fresh cluster, missing after the transitions")
}

// TestTheReferenceMemoKeysTheQuietTime: histories of one final spec whose
// fault phases ended at other times (here two horizons) never share a
// reference run: an entry made at t=25 (the Run at 20) would tell a
// history gone quiet at t=15 (the Run at 10) that it depends on its
// history.
func TestTheReferenceMemoKeysTheQuietTime(t *testing.T) {
	memo := newReferenceMemo()
	final := Transitions{model.NewFields(model.Values{"every": int64(10), "image": "v2"})}
	for _, horizon := range []model.Time{25, 15, 25, 15} {
		out, err := Execute(periodicScenario(horizon, false), nil, firstChoice{}, RunOptions{Inputs: final, refs: memo})
		require.NoError(t, err)
		assert.Nil(t, out.Failure, "horizon %d: %v", horizon, out.Failure)
	}
	assert.Equal(t, MemoStats{Hits: 2, Misses: 2}, MemoStats{Hits: memo.hits, Misses: memo.misses}, "one reference run per quiet time")
}
