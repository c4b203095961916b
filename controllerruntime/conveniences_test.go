package controllerruntime_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	crt "github.com/converge-sim/converge/controllerruntime"
	"github.com/converge-sim/converge/controllerruntime/builtin"
	"github.com/converge-sim/converge/controllerruntime/convert"
	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
	"github.com/go-logr/logr/funcr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// tutorialCronJob is the kubebuilder tutorial's CronJob, in its own group,
// beside batch/v1's CronJob in client-go's scheme.
type tutorialCronJob struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		Schedule string `json:"schedule"`
	} `json:"spec,omitempty"`
}

func (c *tutorialCronJob) DeepCopyObject() runtime.Object {
	out := *c
	c.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return &out
}

type tutorialCronJobList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []tutorialCronJob `json:"items"`
}

func (l *tutorialCronJobList) DeepCopyObject() runtime.Object {
	out := *l
	out.Items = make([]tutorialCronJob, len(l.Items))
	for i := range l.Items {
		out.Items[i] = *l.Items[i].DeepCopyObject().(*tutorialCronJob)
	}
	return &out
}

var tutorialGV = schema.GroupVersion{Group: "batch.tutorial.kubebuilder.io", Version: "v1"}

// tutorialConv converts client-go's kinds and the tutorial's CronJob, with
// no Options.Prefer: CronJob is in two groups of its scheme.
func tutorialConv(t *testing.T) *convert.Converter {
	scheme := runtime.NewScheme()
	require.NoError(t, clientgoscheme.AddToScheme(scheme))
	scheme.AddKnownTypeWithName(tutorialGV.WithKind("CronJob"), &tutorialCronJob{})
	scheme.AddKnownTypeWithName(tutorialGV.WithKind("CronJobList"), &tutorialCronJobList{})
	metav1.AddToGroupVersion(scheme, tutorialGV)
	conv, err := convert.New(scheme, convert.Options{})
	require.NoError(t, err)
	return conv
}

// cronJobReconciler creates one Job per tutorial CronJob.
type cronJobReconciler struct{ client.Client }

func (r *cronJobReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var cj tutorialCronJob
	if err := r.Get(ctx, req.NamespacedName, &cj); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	job := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: cj.Namespace, Name: cj.Name + "-1"},
		Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			RestartPolicy: corev1.RestartPolicyNever,
			Containers:    []corev1.Container{{Name: "job", Image: "busybox"}},
		}}}}
	if err := controllerutil.SetControllerReference(&cj, job, r.Scheme()); err != nil {
		return reconcile.Result{}, err
	}
	return reconcile.Result{}, client.IgnoreAlreadyExists(r.Create(ctx, job))
}

func cronJobScenario(conv *convert.Converter, setup crt.SetupFunc) properties.Scenario {
	return properties.Scenario{
		Name: "tutorial-cronjob",
		Build: func(cfg model.Config) (*model.Cluster, error) {
			c := model.NewCluster(cfg)
			mgr, err := crt.NewManager(c, conv, crt.ManagerOptions{})
			if err != nil {
				return nil, err
			}
			if err := mgr.Setup(setup, crt.SetupOptions{}); err != nil {
				return nil, err
			}
			return c, mgr.Apply(&tutorialCronJob{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "nightly"}})
		},
	}
}

// TestAWatchedGoTypePinsItsGroup: README step 1 on the kubebuilder CronJob
// tutorial, whose scheme has CronJob in its own group and in batch/v1.
// The kind name alone is ambiguous, but For(&CronJob{}) names the group by
// its Go type, so the project runs with no Options.Prefer; a project that
// also watches batch/v1's CronJob is an error naming both groups.
func TestAWatchedGoTypePinsItsGroup(t *testing.T) {
	conv := tutorialConv(t)
	_, err := conv.GVK("CronJob")
	require.ErrorContains(t, err, "several groups", "the kind name alone is ambiguous")

	sc := cronJobScenario(conv, func(m manager.Manager) error {
		return ctrl.NewControllerManagedBy(m).For(&tutorialCronJob{}).Owns(&batchv1.Job{}).Named("cronjob").Complete(&cronJobReconciler{m.GetClient()})
	})
	out, _, err := properties.Replay(sc, nil, nil, properties.RunOptions{})
	require.NoError(t, err)
	require.Nil(t, out.Failure)
	require.NotNil(t, out.Cluster.State().Get("Job", "default", "nightly-1"), "the controller reconciled the tutorial's CronJob")
	_, err = conv.GVK("CronJob")
	assert.Error(t, err, "the converter the user built is unchanged")

	both := cronJobScenario(conv, func(m manager.Manager) error {
		return ctrl.NewControllerManagedBy(m).For(&tutorialCronJob{}).Owns(&batchv1.CronJob{}).Named("cronjob").Complete(&cronJobReconciler{m.GetClient()})
	})
	_, _, err = properties.Replay(both, nil, nil, properties.RunOptions{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "stands for batch.tutorial.kubebuilder.io/v1 in this converter, not batch/v1")
}

// platformScenario is a user's controller "rs" beside the built-in Job
// controller and kubelet.
func platformScenario(platform bool) properties.Scenario {
	return properties.Scenario{
		Name: "platform",
		Build: func(cfg model.Config) (*model.Cluster, error) {
			c := model.NewCluster(cfg)
			mgr, err := crt.NewManager(c, testConv, crt.ManagerOptions{SyncPeriod: 30 * time.Second})
			if err != nil {
				return nil, err
			}
			for _, s := range []crt.SetupFunc{
				func(m manager.Manager) error {
					return ctrl.NewControllerManagedBy(m).For(&appsv1.ReplicaSet{}).Owns(&corev1.Pod{}).Named("rs").Complete(reconcile.Func(func(context.Context, reconcile.Request) (reconcile.Result, error) { return reconcile.Result{}, nil }))
				},
				builtin.Jobs(mgr), builtin.Kubelet(mgr, builtin.KubeletOptions{}),
			} {
				if err := mgr.Setup(s, crt.SetupOptions{}); err != nil {
					return nil, err
				}
			}
			return c, nil
		},
		FaultPlatform: platform,
	}
}

// TestFaultsAimAtTheProjectsControllersByDefault: the built-in Job
// controller and kubelet are the platform's: a default scenario's faults
// never strike them, only the user's; FaultPlatform opts them in.
func TestFaultsAimAtTheProjectsControllersByDefault(t *testing.T) {
	mix := faults.Mix{faults.KindDrop, faults.KindRestart, faults.KindPartition}
	targets := func(platform bool) []string {
		plan, err := properties.PlanFor(platformScenario(platform), mix)
		require.NoError(t, err)
		var names []string
		for _, tg := range plan.Topology.Targets {
			names = append(names, tg.Controller)
		}
		return names
	}
	assert.Equal(t, []string{"rs"}, targets(false))
	assert.ElementsMatch(t, []string{"job", "kubelet", "rs"}, targets(true))
}

// capturedLogger is a manager logger that writes into b.
func capturedLogger(b *strings.Builder) crt.ManagerOptions {
	return crt.ManagerOptions{Logger: funcr.New(func(prefix, args string) { b.WriteString(prefix + " " + args + "\n") }, funcr.Options{})}
}

// pollingScenario's controller polls in its reconcile with
// wait.PollUntilContextTimeout, whose every condition call goes through
// apimachinery's HandleCrash; boom makes the condition panic.
func pollingScenario(log *strings.Builder, boom bool) properties.Scenario {
	return properties.Scenario{
		Name: "polling",
		Build: func(cfg model.Config) (*model.Cluster, error) {
			c := model.NewCluster(cfg)
			m, err := crt.NewManager(c, testConv, capturedLogger(log))
			if err != nil {
				return nil, err
			}
			err = m.Setup(func(mgr manager.Manager) error {
				return ctrl.NewControllerManagedBy(mgr).For(&corev1.ConfigMap{}).Named("poller").Complete(reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
					return reconcile.Result{}, wait.PollUntilContextTimeout(ctx, time.Second, 5*time.Second, true, func(ctx context.Context) (bool, error) {
						if boom {
							panic("boom")
						}
						var cm corev1.ConfigMap
						return false, client.IgnoreNotFound(mgr.GetClient().Get(ctx, req.NamespacedName, &cm))
					})
				}))
			}, crt.SetupOptions{})
			if err != nil {
				return nil, err
			}
			return c, m.Apply(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "a"}})
		},
	}
}

// TestInjectedCrashesStayOutOfTheLog: a restart that strikes while the
// reconcile polls unwinds it through HandleCrash, which logs nothing of
// it; a panic of the reconciler's own code is still logged there and is
// a panic finding with its stack.
func TestInjectedCrashesStayOutOfTheLog(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var log strings.Builder
		sched := faults.Schedule{{At: 2, Fault: faults.Restart{Controller: "poller", Down: 2}}}
		out, _, err := properties.Replay(pollingScenario(&log, false), sched, nil, properties.RunOptions{})
		require.NoError(t, err)
		var trace strings.Builder
		for _, r := range out.Cluster.Trace().Records {
			trace.WriteString(r.String() + "\n")
		}
		require.Contains(t, trace.String(), "poller crashed mid-reconcile", "the crash unwound the poll")
		assert.NotContains(t, log.String(), "Observed a panic")
	})
	synctest.Test(t, func(t *testing.T) {
		var log strings.Builder
		out, _, err := properties.Replay(pollingScenario(&log, true), nil, nil, properties.RunOptions{})
		require.NoError(t, err)
		require.NotNil(t, out.Failure)
		assert.Equal(t, properties.ControllerPanic, out.Failure.Verdict)
		assert.Contains(t, strings.Join(out.Failure.Details, "\n")+out.Failure.Summary, "boom")
		assert.Contains(t, log.String(), "Observed a panic")
	})
}

// secretScenario's controller writes, for each ConfigMap, a Secret whose
// password it reads from crypto/rand, as operators do; written collects the
// passwords of each run.
func secretScenario(written *[]string) properties.Scenario {
	return properties.Scenario{
		Name: "secrets",
		Build: func(cfg model.Config) (*model.Cluster, error) {
			c := model.NewCluster(cfg)
			m, err := crt.NewManager(c, testConv, crt.ManagerOptions{})
			if err != nil {
				return nil, err
			}
			err = m.Setup(func(mgr manager.Manager) error {
				return ctrl.NewControllerManagedBy(mgr).For(&corev1.ConfigMap{}).Owns(&corev1.Secret{}).Named("secrets").Complete(reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
					s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: req.Namespace, Name: req.Name}, StringData: map[string]string{"password": rand.Text()}}
					return reconcile.Result{}, client.IgnoreAlreadyExists(mgr.GetClient().Create(ctx, s))
				}))
			}, crt.SetupOptions{})
			if err != nil {
				return nil, err
			}
			c.OnWrite(func(w model.Write) {
				if w.Old == nil && w.New != nil && w.New.Kind == "Secret" {
					*written = append(*written, fmt.Sprint(w.New.Spec))
				}
			})
			return c, m.Apply(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "a"}})
		},
	}
}

// TestCryptoRandIsTheRunsOwn: a reconciler's crypto/rand bytes come from
// the run's seed: the same seed writes the same Secret twice, other seeds
// other Secrets.
func TestCryptoRandIsTheRunsOwn(t *testing.T) {
	passwords := func(seed uint64) []string {
		var written []string
		res, err := properties.Search(secretScenario(&written), nil, properties.SearchOptions{Checks: 1, Seed: seed, Test: t})
		require.NoError(t, err)
		require.Nil(t, res.Counterexample)
		require.NotEmpty(t, written)
		return written
	}
	assert.Equal(t, passwords(1), passwords(1), "the same seed, the same bytes")
	seen := map[string]bool{}
	for seed := uint64(1); seed <= 6; seed++ {
		seen[passwords(seed)[0]] = true
	}
	assert.Greater(t, len(seen), 1, "other seeds, other bytes")
	b := make([]byte, 8)
	_, err := rand.Read(b)
	require.NoError(t, err, "outside a run, crypto/rand reads the system's randomness")
}

// TestAnIgnoredFailedCallIsShownAsIgnored: a reconcile that deletes a Role
// that is not there, ignores the NotFound and returns nil is not diagnosed
// as a failed reconcile.
func TestAnIgnoredFailedCallIsShownAsIgnored(t *testing.T) {
	sc := properties.Scenario{
		Name: "ignored",
		Build: func(cfg model.Config) (*model.Cluster, error) {
			c := model.NewCluster(cfg)
			m, err := crt.NewManager(c, testConv, crt.ManagerOptions{})
			if err != nil {
				return nil, err
			}
			err = m.Setup(func(mgr manager.Manager) error {
				return ctrl.NewControllerManagedBy(mgr).For(&corev1.ConfigMap{}).Named("cleaner").Complete(reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
					var cm corev1.ConfigMap
					cm.Namespace, cm.Name = req.Namespace, req.Name+"-old"
					return reconcile.Result{}, client.IgnoreNotFound(mgr.GetClient().Delete(ctx, &cm))
				}))
			}, crt.SetupOptions{Goals: map[string]crt.GoalFunc{"cleaner": func(context.Context, client.Reader) []model.Unmet {
				return []model.Unmet{{Object: model.Ref{Kind: "ConfigMap", Namespace: "default", Name: "a"}, Message: "never met"}}
			}}})
			if err != nil {
				return nil, err
			}
			return c, m.Apply(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "a"}})
		},
	}
	out, _, err := properties.Replay(sc, nil, nil, properties.RunOptions{})
	require.NoError(t, err)
	require.NotNil(t, out.Failure)
	diagnosis := strings.Join(out.Failure.Diagnosis, "\n")
	assert.Contains(t, diagnosis, "failed, and the reconciler went on (ignored it): ")
	assert.Contains(t, diagnosis, "NotFound")
	assert.NotContains(t, diagnosis, ") failed: ", "not diagnosed as the reconcile's failure")
	assert.Contains(t, diagnosis, "returned nil")
}
