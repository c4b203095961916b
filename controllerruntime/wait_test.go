package controllerruntime_test

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	crt "github.com/converge-sim/converge/controllerruntime"
	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// pollingWorld is a ReplicaSet "a", a reconciler that creates the pod
// "a-0" and then polls its cache with wait.PollUntilContextTimeout until
// the pod is Running, and, with kubelet, a second controller that marks
// every pod Running. It returns what each poll saw.
func pollingWorld(t *testing.T, kubelet bool) (*crt.Manager, *[]string) {
	m := newManager(t)
	var polls []string
	require.NoError(t, addPollers(m, kubelet, 0, &polls))
	require.NoError(t, m.Apply(replicaSet("a")))
	require.NoError(t, m.Cluster().Start())
	return m, &polls
}

// addPollers adds the polling ReplicaSet controller, with the goal that
// every ReplicaSet has one ready replica, and the kubelet if asked. A
// kubelet with a positive startup first marks a pod Pending and runs it
// that long after.
func addPollers(m *crt.Manager, kubelet bool, startup time.Duration, polls *[]string) error {
	err := crt.NewControllerManagedBy(m).For(&appsv1.ReplicaSet{}).Owns(&corev1.Pod{}).WithGoal(func(ctx context.Context, r client.Reader) []model.Unmet {
		var list appsv1.ReplicaSetList
		if err := r.List(ctx, &list); err != nil {
			return []model.Unmet{{Message: err.Error()}}
		}
		var unmet []model.Unmet
		for _, rs := range list.Items {
			if rs.Status.ReadyReplicas != 1 {
				unmet = append(unmet, model.Unmet{Object: model.Ref{Kind: "ReplicaSet", Namespace: rs.Namespace, Name: rs.Name}, Message: "no ready replica"})
			}
		}
		return unmet
	}).Complete(func(c client.Client) reconcile.Reconciler {
		return reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
			var rs appsv1.ReplicaSet
			if err := c.Get(ctx, req.NamespacedName, &rs); err != nil {
				return reconcile.Result{}, client.IgnoreNotFound(err)
			}
			if rs.Status.ReadyReplicas == 1 {
				return reconcile.Result{}, nil
			}
			p := pod(req.Name+"-0", nil)
			if err := controllerutil.SetControllerReference(&rs, p, c.Scheme()); err != nil {
				return reconcile.Result{}, err
			}
			if err := c.Create(ctx, p); err != nil && !apierrors.IsAlreadyExists(err) {
				return reconcile.Result{}, err
			}
			err := wait.PollUntilContextTimeout(ctx, time.Second, 10*time.Second, true, func(ctx context.Context) (bool, error) {
				var got corev1.Pod
				switch err := c.Get(ctx, client.ObjectKeyFromObject(p), &got); {
				case apierrors.IsNotFound(err):
					*polls = append(*polls, "absent")
					return false, nil
				case err != nil:
					return false, err
				}
				*polls = append(*polls, string(got.Status.Phase))
				return got.Status.Phase == corev1.PodRunning, nil
			})
			if err != nil {
				return reconcile.Result{}, err
			}
			rs.Status.ReadyReplicas = 1
			return reconcile.Result{}, c.Status().Update(ctx, &rs)
		})
	})
	if err != nil || !kubelet {
		return err
	}
	return crt.NewControllerManagedBy(m).Named("kubelet").For(&corev1.Pod{}).Complete(func(c client.Client) reconcile.Reconciler {
		return reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
			var p corev1.Pod
			if err := c.Get(ctx, req.NamespacedName, &p); err != nil || p.Status.Phase == corev1.PodRunning {
				return reconcile.Result{}, client.IgnoreNotFound(err)
			}
			p.Status.Phase = corev1.PodRunning
			return reconcile.Result{}, c.Status().Update(ctx, &p)
		})
	})
}

// reconcileReplicaSet steps the cluster up to the ReplicaSet controller's
// first reconcile, waits included, and does it as one step.
func reconcileReplicaSet(t *testing.T, c *model.Cluster) {
	t.Helper()
	for range 20 {
		acts := c.Enabled(nil)
		require.NotEmpty(t, acts)
		a := acts[0]
		c.Do(a)
		if recs := c.Trace().Records; a.Kind == model.ActReconcile && strings.HasPrefix(recs[len(recs)-1].Actor, "replicaset") {
			return
		}
	}
	t.Fatal("the ReplicaSet controller never reconciled")
}

// TestAPollingReconcileSeesTheWorldMove: inside a bubble, the reconcile's
// poll lets virtual time pass in the model: its own create reaches its
// cache, the kubelet controller marks the pod Running meanwhile, and the
// poll succeeds on its second try, one virtual second later, within the
// same reconcile.
func TestAPollingReconcileSeesTheWorldMove(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m, polls := pollingWorld(t, true)
		c := m.Cluster()
		start := c.Now()
		reconcileReplicaSet(t, c)
		assert.Equal(t, []string{"absent", "Running"}, *polls)
		assert.Equal(t, start+1, c.Now(), "one virtual second passed")
		rs := c.State().Get("ReplicaSet", "default", "a")
		require.NotNil(t, rs)
		assert.EqualValues(t, 1, rs.Status.Int("readyReplicas"))
		var lines []string
		for _, r := range c.Trace().Records {
			lines = append(lines, r.String())
		}
		trace := strings.Join(lines, "\n")
		assert.Contains(t, trace, "waits 1 ticks")
		assert.Contains(t, trace, "kubelet reconcile Pod default/a-0")
	})
}

// TestAPollWithNobodyToActTimesOutInVirtualTime: with no kubelet the pod
// never runs; the poll gives up after its ten virtual seconds, which pass in
// the model too, and the reconcile returns the poll's error.
func TestAPollWithNobodyToActTimesOutInVirtualTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m, polls := pollingWorld(t, false)
		c := m.Cluster()
		start := c.Now()
		reconcileReplicaSet(t, c)
		require.NotEmpty(t, *polls)
		assert.Equal(t, "absent", (*polls)[0])
		for _, p := range (*polls)[1:] {
			assert.Equal(t, "", p, "the pod exists and never runs")
		}
		assert.Equal(t, start+10, c.Now(), "the poll's timeout passed in virtual time")
		last := c.Trace().Records[len(c.Trace().Records)-1]
		assert.Contains(t, last.String(), "context deadline exceeded")
	})
}

// TestARestartMidPollUnwindsTheReconcile: a restart that strikes while the
// reconcile polls ends the poll; the reconcile writes nothing more, and the
// controller, back after its down time, reconciles again and converges.
func TestARestartMidPollUnwindsTheReconcile(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sched := faults.Schedule{{At: 2, Fault: faults.Restart{Controller: "replicaset", Down: 2}}}
		out, _, err := properties.Replay(pollerScenario(), sched, nil, properties.RunOptions{})
		require.NoError(t, err)
		assert.Nil(t, out.Failure)
		var lines []string
		for _, r := range out.Cluster.Trace().Records {
			lines = append(lines, r.String())
		}
		trace := strings.Join(lines, "\n")
		assert.Contains(t, trace, "once its waiting reconcile unwinds")
		assert.Contains(t, trace, "replicaset crashed mid-reconcile")
	})
}

// TestAPollingReconcileConvergesUnderFaithfulFaults: crashes, expired
// watches, API errors, lags, delays and partitions striking while the
// reconcile waits (a crash unwinds it mid-poll) leave a run that converges
// and replays; Check runs every case in a bubble.
func TestAPollingReconcileConvergesUnderFaithfulFaults(t *testing.T) {
	crt.Check(t, pollerScenario(), faults.Mix{faults.KindRestart, faults.KindExpire, faults.KindAPIError, faults.KindStale, faults.KindDelay, faults.KindPartition, faults.KindDuplicate})
}

// pollerScenario is the polling world with a kubelet that takes three
// seconds to run a pod, and two ReplicaSets.
func pollerScenario() properties.Scenario {
	return properties.Scenario{
		Name: "poller",
		Build: func(cfg model.Config) (*model.Cluster, error) {
			c := model.NewCluster(cfg)
			m, err := crt.NewManager(c, testConv, crt.ManagerOptions{})
			if err != nil {
				return nil, err
			}
			var polls []string
			if err := addPollers(m, true, 3*time.Second, &polls); err != nil {
				return nil, err
			}
			return c, m.Apply(replicaSet("a"), replicaSet("b"))
		},
	}
}
