package cronjob

//lint:file-ignore SA1019 GetEventRecorderFor, as the kubebuilder scaffold's cmd/main.go calls it

import (
	"testing"
	"testing/synctest"
	"time"

	crt "github.com/converge-sim/converge/controllerruntime"
	"github.com/converge-sim/converge/controllerruntime/builtin"
	"github.com/converge-sim/converge/controllerruntime/convert"
	jobsv1 "github.com/converge-sim/converge/controllerruntime/examples/cronjob/api/v1"
	"github.com/converge-sim/converge/controllerruntime/examples/cronjob/internal/controller"
	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
)

// everyMinute is the scenario with a PeriodicJob that runs once a minute,
// as a "* * * * *" schedule does, over a converter with the given tick and
// faults within horizon ticks (0: the default horizon).
func everyMinute(t *testing.T, tick time.Duration, horizon model.Time) properties.Scenario {
	scheme := runtime.NewScheme()
	require.NoError(t, clientgoscheme.AddToScheme(scheme))
	require.NoError(t, jobsv1.AddToScheme(scheme))
	conv, err := convert.New(scheme, convert.Options{Tick: tick})
	require.NoError(t, err)
	return properties.Scenario{
		Name: "every-minute",
		Build: func(cfg model.Config) (*model.Cluster, error) {
			c := model.NewCluster(cfg)
			mgr, err := crt.NewManager(c, conv, crt.ManagerOptions{SyncPeriod: 30 * time.Second, StopClockWhenFaultsEnd: true})
			if err != nil {
				return nil, err
			}
			err = mgr.Setup(func(m ctrl.Manager) error {
				return (&controller.PeriodicJobReconciler{Client: m.GetClient(), Scheme: m.GetScheme(), Recorder: m.GetEventRecorderFor("periodicjob-controller")}).SetupWithManager(m)
			}, crt.SetupOptions{Goals: map[string]crt.GoalFunc{"periodicjob": LatestRunHasAJob}})
			if err != nil {
				return nil, err
			}
			for _, setup := range []crt.SetupFunc{builtin.Jobs(mgr), builtin.Kubelet(mgr, builtin.KubeletOptions{})} {
				if err := mgr.Setup(setup, crt.SetupOptions{}); err != nil {
					return nil, err
				}
			}
			pj := New("default", "report")
			pj.Spec.IntervalSeconds = 60
			return c, mgr.Apply(pj)
		},
		Budget: faults.Budget{Horizon: horizon},
	}
}

// runs counts the Jobs the PeriodicJob controller created in a run
// without faults, in a bubble.
func runs(t *testing.T, sc properties.Scenario) int {
	n := 0
	synctest.Test(t, func(t *testing.T) {
		out, _, err := properties.Replay(sc, nil, nil, properties.RunOptions{})
		require.NoError(t, err)
		require.Nil(t, out.Failure)
		for _, r := range out.Cluster.Trace().Records {
			for _, w := range r.Writes {
				if w.Caller == "periodicjob" && w.Old == nil && w.New != nil && w.New.Kind == "Job" {
					n++
				}
			}
		}
	})
	return n
}

// TestSpanFiresATimeDrivenScheduleSeveralTimes: with the default tick and
// horizon, a schedule of once a minute fires once; with crt.Span's tick
// and horizon for five runs, five times.
func TestSpanFiresATimeDrivenScheduleSeveralTimes(t *testing.T) {
	assert.LessOrEqual(t, runs(t, everyMinute(t, 0, 0)), 1, "the defaults: a minute of virtual time")
	tick, horizon, err := crt.Span(time.Minute, 5)
	require.NoError(t, err)
	assert.Equal(t, 10*time.Second, tick)
	assert.Equal(t, model.Time(33), horizon)
	assert.Equal(t, 5, runs(t, everyMinute(t, tick, horizon)))
}

// TestSpanRejectsBadInput: a period or a number of runs Span cannot use
// is an error.
func TestSpanRejectsBadInput(t *testing.T) {
	for _, c := range []struct {
		every time.Duration
		runs  int
	}{{0, 5}, {time.Minute, 0}, {-time.Second, 1}, {5 * time.Nanosecond, 1}} {
		_, _, err := crt.Span(c.every, c.runs)
		assert.Error(t, err, "Span(%v, %d)", c.every, c.runs)
	}
}
