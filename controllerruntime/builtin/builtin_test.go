package builtin_test

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	crt "github.com/converge-sim/converge/controllerruntime"
	"github.com/converge-sim/converge/controllerruntime/builtin"
	"github.com/converge-sim/converge/controllerruntime/convert"
	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

func converter(t *testing.T) *convert.Converter {
	t.Helper()
	conv, err := convert.New(clientgoscheme.Scheme, convert.Options{})
	require.NoError(t, err)
	return conv
}

func deployment(name string, replicas int32, fail bool) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "app:v1"}}},
			},
		},
	}
	if fail {
		d.Spec.Template.Annotations = map[string]string{builtin.FailAnnotation: "true"}
	}
	return d
}

func job(name string, completions, backoffLimit int32, fail bool) *batchv1.Job {
	j := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec: batchv1.JobSpec{
			Completions: &completions, BackoffLimit: &backoffLimit,
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyNever,
				Containers:    []corev1.Container{{Name: "work", Image: "work:v1"}},
			}},
		},
	}
	if fail {
		j.Spec.Template.Annotations = map[string]string{builtin.FailAnnotation: "true"}
	}
	return j
}

// worldScenario runs the four built-ins over objs; ready says whether the
// goal asks for ready Deployments.
func worldScenario(conv *convert.Converter, ready bool, objs ...client.Object) properties.Scenario {
	return properties.Scenario{
		Name: "builtins",
		Build: func(cfg model.Config) (*model.Cluster, error) {
			c := model.NewCluster(cfg)
			mgr, err := crt.NewManager(c, conv, crt.ManagerOptions{SyncPeriod: 30 * time.Second})
			if err != nil {
				return nil, err
			}
			setups := []struct {
				setup crt.SetupFunc
				goals map[string]crt.GoalFunc
			}{
				{builtin.Kubelet(mgr, builtin.KubeletOptions{}), nil},
				{builtin.ReplicaSets(), nil},
				{builtin.Jobs(mgr), map[string]crt.GoalFunc{"job": jobsFinished}},
				{builtin.Deployments(mgr), map[string]crt.GoalFunc{"deployment": deploymentsSettled(ready)}},
			}
			for _, s := range setups {
				if err := mgr.Setup(s.setup, crt.SetupOptions{Goals: s.goals}); err != nil {
					return nil, err
				}
			}
			return c, mgr.Apply(objs...)
		},
		Edits: []faults.EditTarget{{Resource: "Pod"}},
	}
}

func deploymentsSettled(ready bool) crt.GoalFunc {
	return func(ctx context.Context, r client.Reader) []model.Unmet {
		return deploymentGoal(ctx, r, ready)
	}
}

func deploymentGoal(ctx context.Context, r client.Reader, ready bool) []model.Unmet {
	var list appsv1.DeploymentList
	if err := r.List(ctx, &list); err != nil {
		return []model.Unmet{{Message: err.Error()}}
	}
	var out []model.Unmet
	for i := range list.Items {
		d := &list.Items[i]
		switch {
		case d.Status.ObservedGeneration != d.Generation || d.Status.Replicas != *d.Spec.Replicas:
			out = append(out, crt.Unmet(d, "status %+v does not match spec", d.Status))
		case ready && d.Status.ReadyReplicas != *d.Spec.Replicas:
			out = append(out, crt.Unmet(d, "%d of %d replicas ready", d.Status.ReadyReplicas, *d.Spec.Replicas))
		}
	}
	return out
}

func jobsFinished(ctx context.Context, r client.Reader) []model.Unmet {
	var list batchv1.JobList
	if err := r.List(ctx, &list); err != nil {
		return []model.Unmet{{Message: err.Error()}}
	}
	var out []model.Unmet
	for i := range list.Items {
		if _, done := builtin.JobFinished(&list.Items[i]); !done {
			out = append(out, crt.Unmet(&list.Items[i], "has not finished"))
		}
	}
	return out
}

func get[T client.Object](t *testing.T, conv *convert.Converter, s model.State, obj T, name string) T {
	t.Helper()
	kind, err := conv.Kind(obj)
	require.NoError(t, err)
	mo := s.Get(kind, "default", name)
	require.NotNil(t, mo, "%s %s", kind, name)
	require.NoError(t, conv.FromModel(mo, obj))
	return obj
}

// TestBuiltinsConvergeUnderEveryFault: Deployments become ready through
// ReplicaSets and the kubelet, Jobs complete, under drops, restarts and
// outside pod deletions.
func TestBuiltinsConvergeUnderEveryFault(t *testing.T) {
	sc := worldScenario(converter(t), true, deployment("web", 3, false), job("batch", 2, 6, false))
	res, err := properties.Search(sc, faults.Mix{faults.KindDrop, faults.KindRestart, faults.KindEdit}, properties.SearchOptions{Test: t, Checks: 60, Seed: 1})
	require.NoError(t, err)
	if cx := res.Counterexample; cx != nil {
		t.Fatalf("must converge:\n%s\n%v", cx.Report(), cx.Trace)
	}
}

// TestPodLifecycleAsOperatorsReadIt follows one run without faults: the
// Deployment's pods are running and ready, the Job's pods succeeded and it
// is Complete.
func TestPodLifecycleAsOperatorsReadIt(t *testing.T) {
	conv := converter(t)
	sc := worldScenario(conv, true, deployment("web", 2, false), job("batch", 2, 6, false))
	out, _, err := properties.Replay(sc, nil, nil, properties.RunOptions{})
	require.NoError(t, err)
	require.Nil(t, out.Failure)
	s := out.Cluster.State()
	d := get(t, conv, s, &appsv1.Deployment{}, "web")
	assert.Equal(t, int32(2), d.Status.ReadyReplicas)
	assert.Equal(t, appsv1.DeploymentAvailable, d.Status.Conditions[0].Type)
	assert.Equal(t, corev1.ConditionTrue, d.Status.Conditions[0].Status)
	pods := s.List("Pod", model.ListOptions{})
	var running, succeeded int
	for _, mo := range pods {
		var p corev1.Pod
		require.NoError(t, conv.FromModel(mo, &p))
		require.Len(t, p.Status.PodIPs, 1, "pod %s has its address", p.Name)
		assert.Equal(t, p.Status.PodIP, p.Status.PodIPs[0].IP)
		switch p.Status.Phase {
		case corev1.PodRunning:
			running++
			assert.True(t, p.Status.ContainerStatuses[0].Ready)
			assert.NotNil(t, p.Status.ContainerStatuses[0].State.Running)
		case corev1.PodSucceeded:
			succeeded++
			assert.Equal(t, "Completed", p.Status.ContainerStatuses[0].State.Terminated.Reason)
		}
	}
	assert.Equal(t, 2, running)
	assert.Equal(t, 2, succeeded)
	j := get(t, conv, s, &batchv1.Job{}, "batch")
	cond, done := builtin.JobFinished(j)
	assert.True(t, done)
	assert.Equal(t, batchv1.JobComplete, cond)
	assert.Equal(t, int32(2), j.Status.Succeeded)
	assert.NotNil(t, j.Status.CompletionTime)
}

// TestFailingPods: a failing Job pod fails the Job past its backoff limit;
// a failing Deployment pod crash-loops with a growing backoff.
func TestFailingPods(t *testing.T) {
	conv := converter(t)
	sc := worldScenario(conv, false, deployment("web", 1, true), job("batch", 1, 1, true))
	out, _, err := properties.Replay(sc, nil, nil, properties.RunOptions{})
	require.NoError(t, err)
	require.Nil(t, out.Failure)
	s := out.Cluster.State()
	j := get(t, conv, s, &batchv1.Job{}, "batch")
	cond, done := builtin.JobFinished(j)
	assert.True(t, done)
	assert.Equal(t, batchv1.JobFailed, cond)
	assert.Equal(t, int32(2), j.Status.Failed, "backoffLimit 1: the second failure fails the Job")
	d := get(t, conv, s, &appsv1.Deployment{}, "web")
	assert.Equal(t, int32(0), d.Status.ReadyReplicas)
	assert.Equal(t, corev1.ConditionFalse, d.Status.Conditions[0].Status)
	var crashing int
	for _, mo := range s.List("Pod", model.ListOptions{}) {
		var p corev1.Pod
		require.NoError(t, conv.FromModel(mo, &p))
		if p.Status.Phase != corev1.PodRunning {
			continue
		}
		crashing++
		cs := p.Status.ContainerStatuses[0]
		assert.Equal(t, "CrashLoopBackOff", cs.State.Waiting.Reason)
		assert.Equal(t, int32(4), cs.RestartCount, "restarted until MaxRestarts")
		assert.False(t, cs.Ready)
	}
	assert.Equal(t, 1, crashing)
	// The backoff grows: restarts 10, 20, 40, 80 s apart.
	assert.GreaterOrEqual(t, int(out.Cluster.Now()), 10+20+40+80)
}

// TestTheRunDrawsFailingPods: with DrawFailures, the run decides which
// pods crash-loop; over a few runs both fates occur.
func TestTheRunDrawsFailingPods(t *testing.T) {
	conv := converter(t)
	sc := worldScenario(conv, false)
	sc.Build = func(cfg model.Config) (*model.Cluster, error) {
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
		return c, mgr.Apply(deployment("web", 3, false))
	}
	fates := map[bool]int{}
	for seed := range 8 {
		out, err := properties.Execute(sc, nil, prng{rand.New(rand.NewPCG(uint64(seed), 1))}, properties.RunOptions{DiscardTrace: true})
		require.NoError(t, err)
		for _, mo := range out.Cluster.State().List("Pod", model.ListOptions{}) {
			var p corev1.Pod
			require.NoError(t, conv.FromModel(mo, &p))
			fates[crashLooping(p)]++
		}
	}
	assert.Positive(t, fates[true], "some pods crash-loop")
	assert.Positive(t, fates[false], "some pods run")
}

// prng chooses uniformly with a seeded generator.
type prng struct{ r *rand.Rand }

func (p prng) Choose(n int, _ string) int { return p.r.IntN(n) }

func crashLooping(p corev1.Pod) bool {
	for _, cs := range p.Status.ContainerStatuses {
		if cs.State.Waiting != nil && cs.State.Waiting.Reason == "CrashLoopBackOff" {
			return true
		}
	}
	return false
}
