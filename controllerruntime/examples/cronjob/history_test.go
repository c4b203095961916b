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

// TestTheReferenceRunSharesTheHistorysBubble records a limit of the
// same-clock reference run (docs/design.md, "The reference run sees the
// same world"). The model dates the reference run's quiescence where the
// history's fault phase ended (t=25), but the reference run runs in the
// history's testing/synctest bubble, whose clock never goes back: its
// reconciler reads t=25 from its first reconcile, so, like a CronJob
// started late, it makes only the latest missed run's Job (20), while the
// history made the Jobs of the runs at 10 and 20 as they came. The
// oracle reports the Job of the run at 10 as history. A reference run in
// a bubble of its own would see the clock from 0; until then, judge the
// PeriodicJob's inputs with a history limit of 1, or by its goal.
func TestTheReferenceRunSharesTheHistorysBubble(t *testing.T) {
	final := reportSpec(t, "report:v2", 2)
	sc := withInputs(t, cronjob.Options{}, final)
	synctest.Test(t, func(t *testing.T) {
		out, _, err := properties.Replay(sc, nil, nil, properties.RunOptions{Inputs: properties.Transitions{final}})
		require.NoError(t, err)
		require.Len(t, out.Transitions, 1)
		require.NotNil(t, out.Failure)
		assert.Equal(t, properties.HistoryDependent, out.Failure.Verdict)
		assert.Equal(t, []string{
			"Job default/report-1735689610: after the transitions, not in a fresh cluster",
			"Pod default/report-1735689610-0: after the transitions, not in a fresh cluster",
		}, out.Failure.Details)
	})
}
