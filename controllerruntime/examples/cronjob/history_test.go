package cronjob_test

import (
	"testing"
	"testing/synctest"

	"github.com/converge-sim/converge/controllerruntime/examples/cronjob"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// reportSpec returns the spec of the example's PeriodicJob "report" with
// its Job's image and its history limits set.
func reportSpec(t *testing.T, image string, keep int32) model.Fields {
	t.Helper()
	pj := cronjob.New("default", "report")
	pj.Spec.JobTemplate.Spec.Template.Spec.Containers[0].Image = image
	pj.Spec.SuccessfulJobsHistoryLimit = &keep
	pj.Spec.FailedJobsHistoryLimit = &keep
	o, err := converter(t).ToModel(pj)
	require.NoError(t, err)
	return o.Spec
}

// withInputs returns the example's scenario with state transitions of its
// PeriodicJob drawn from specs.
func withInputs(t *testing.T, opts cronjob.Options, specs ...model.Fields) properties.Scenario {
	t.Helper()
	sc := cronjob.Scenario("periodicjob-inputs", converter(t), opts)
	sc.Inputs = &properties.Inputs{
		Target: model.Ref{Kind: "PeriodicJob", Namespace: "default", Name: "report"},
		Spec:   rapid.SampledFrom(specs),
		// When the last Job succeeded is a timestamp.
		Ignore: []properties.Ignore{{Path: "status.lastSuccessfulTime"}},
	}
	return sc
}

// TestTheReferencePeriodicJobHasABubbleOfItsOwn: with RunOptions.Wrap
// the history and its reference run each have a testing/synctest bubble
// of their own (docs/design.md, "The reference run sees the same world").
// The reference PeriodicJob then starts on a fresh clock and makes the
// Jobs of the runs at 10 and 20 as they come, as the history did, so the
// oracle finds nothing. Inside the history's bubble (the control below,
// as a Wrap around the whole run made it) the reference run read t=25 from
// its first reconcile and, like a CronJob started late, made only the
// latest missed run's Job: the oracle reported the Job of the run at 10
// as history.
func TestTheReferencePeriodicJobHasABubbleOfItsOwn(t *testing.T) {
	final := reportSpec(t, "report:v2", 2)
	sc := withInputs(t, cronjob.Options{}, final)
	wraps := 0
	bubble := func(run func()) {
		wraps++
		synctest.Test(t, func(*testing.T) { run() })
	}
	out, _, err := properties.Replay(sc, nil, nil, properties.RunOptions{Inputs: properties.Transitions{final}, Wrap: bubble})
	require.NoError(t, err)
	require.Len(t, out.Transitions, 1)
	assert.Nil(t, out.Failure, "%v", out.Failure)
	assert.Equal(t, 2, wraps, "the history and the reference run")

	synctest.Test(t, func(t *testing.T) {
		out, _, err := properties.Replay(sc, nil, nil, properties.RunOptions{Inputs: properties.Transitions{final}})
		require.NoError(t, err)
		require.NotNil(t, out.Failure)
		assert.Equal(t, properties.HistoryDependent, out.Failure.Verdict)
		assert.Equal(t, []string{
			"Job default/report-1735689610: after the transitions, not in a fresh cluster",
			"Pod default/report-1735689610-0: after the transitions, not in a fresh cluster",
		}, out.Failure.Details)
	})
}

// TestAnIntervalOfHoursReachesAFixedPoint: given intervalSeconds 12478,
// the PeriodicJob, its clock stopped at t=25, requeues 12,453 s ahead at
// every reconcile, and each quiet round waits for that requeue. It used to
// fire the resyncs of the 5 informers every 30 s on the way and end as
// "no fixed point within 5000 steps" at t=24,930 (issue 35, seed 3 of the
// cronjob campaign); idle resyncs are now passed over
// (model.Cluster.SkipIdleResyncs, docs/design.md "Quiescence").
func TestAnIntervalOfHoursReachesAFixedPoint(t *testing.T) {
	pj := cronjob.New("default", "report")
	pj.Spec.IntervalSeconds = 12478
	o, err := converter(t).ToModel(pj)
	require.NoError(t, err)
	final := o.Spec
	bubble := func(run func()) { synctest.Test(t, func(*testing.T) { run() }) }
	out, _, err := properties.Replay(withInputs(t, cronjob.Options{}, final), nil, nil, properties.RunOptions{Inputs: properties.Transitions{final}, Wrap: bubble})
	require.NoError(t, err)
	assert.Nil(t, out.Failure, "%v", out.Failure)
	assert.Greater(t, out.Cluster.Now(), model.Time(12478), "the history waited for its requeue")
	assert.Less(t, out.Cluster.Steps(), 100)
}
