package builtin_test

import (
	"strings"
	"testing"
	"testing/synctest"

	crt "github.com/converge-sim/converge/controllerruntime"
	"github.com/converge-sim/converge/controllerruntime/builtin"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"pgregory.net/rapid"
)

// podsFail answers the kubelet's "does the pod fail" with yes, and every
// other choice with the first option.
type podsFail struct{}

func (podsFail) Choose(_ int, label string) int {
	if strings.HasPrefix(label, "kubelet: does ") {
		return 1
	}
	return 0
}

// TestTheReferenceRunDrawsThePodFailuresOfTheHistory: the kubelet draws
// whether each pod fails. A rollout to a new image whose pods the history
// drew failing is compared with a fresh cluster whose pods, named
// otherwise, get the same draws: the Deployment's status is the same, and
// there is no history-dependent finding. Without the replay, the fresh
// cluster's pods run and the Deployment's ready replicas differ (seen).
// With the history and its reference run each in a testing/synctest
// bubble of its own (RunOptions.Wrap), the draws still cross over.
func TestTheReferenceRunDrawsThePodFailuresOfTheHistory(t *testing.T) {
	t.Run("one goroutine", func(t *testing.T) { referenceDrawsPodFailures(t, nil) })
	t.Run("a bubble each", func(t *testing.T) {
		wraps := 0
		referenceDrawsPodFailures(t, func(run func()) {
			wraps++
			synctest.Test(t, func(*testing.T) { run() })
		})
		assert.Equal(t, 2, wraps, "the history and the reference run")
	})
}

func referenceDrawsPodFailures(t *testing.T, wrap func(run func())) {
	conv := converter(t)
	v2 := deployment("web", 2, false)
	v2.Spec.Template.Spec.Containers[0].Image = "app:v2"
	final, err := conv.ToModel(v2)
	require.NoError(t, err)
	sc := properties.Scenario{
		Name: "rollout",
		Build: func(cfg model.Config) (*model.Cluster, error) {
			c := model.NewCluster(cfg)
			mgr, err := crt.NewManager(c, conv, crt.ManagerOptions{})
			if err != nil {
				return nil, err
			}
			for _, setup := range []crt.SetupFunc{builtin.Kubelet(mgr, builtin.KubeletOptions{DrawFailures: true}), builtin.ReplicaSets(), builtin.Deployments(mgr)} {
				if err := mgr.Setup(setup, crt.SetupOptions{}); err != nil {
					return nil, err
				}
			}
			return c, mgr.Apply(deployment("web", 2, false))
		},
		Inputs: &properties.Inputs{Target: model.Ref{Kind: "Deployment", Namespace: "default", Name: "web"}, Spec: rapid.Just(final.Spec)},
	}
	out, err := properties.Execute(sc, nil, podsFail{}, properties.RunOptions{Inputs: properties.Transitions{final.Spec}, Wrap: wrap})
	require.NoError(t, err)
	require.Len(t, out.Transitions, 1)
	require.Empty(t, out.Transitions[0].Err)
	failing := 0
	for _, mo := range out.Cluster.State().List("Pod", model.ListOptions{}) {
		var p corev1.Pod
		require.NoError(t, conv.FromModel(mo, &p))
		if crashLooping(p) && p.Spec.Containers[0].Image == "app:v2" {
			failing++
		}
	}
	assert.Equal(t, 2, failing, "the history drew the new pods failing")
	if out.Failure != nil {
		t.Fatalf("no history dependence expected:\n%s", out.Failure.Report(nil))
	}
}
