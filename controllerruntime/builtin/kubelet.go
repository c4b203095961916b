package builtin

import (
	"context"
	"time"

	crt "github.com/converge-sim/converge/controllerruntime"
	"github.com/converge-sim/converge/controllerruntime/internal/shared"
	"github.com/converge-sim/converge/model"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
)

// FailAnnotation is the annotation that, set to "true" on a pod (or its
// template), makes its containers exit with an error every time they start.
const FailAnnotation = "converge.dev/fail"

// KubeletOptions configures the Kubelet.
type KubeletOptions struct {
	// Fails says whether a pod's containers fail; nil means the pod has
	// FailAnnotation set to "true".
	Fails func(*corev1.Pod) bool
	// DrawFailures lets the run draw, for every pod Fails spares, whether
	// its containers fail. The kubelet keeps the draw in memory: after a
	// restart of the kubelet a pod is drawn again.
	DrawFailures bool
	// MaxStartup and MaxRun bound the ticks a container takes to start and
	// a completing pod takes to run; the run draws each in [1, max].
	// Defaults 3 and 5.
	MaxStartup, MaxRun int
	// MaxRestarts is how often a crash-looping container is restarted
	// before the kubelet leaves it in CrashLoopBackOff for good; default 4.
	// A real kubelet restarts forever, every five minutes at most, which
	// would keep a cluster busy forever.
	MaxRestarts int32
}

// Kubelet returns the setup of the "kubelet" controller: it runs every pod
// (there are no nodes: every pod runs as soon as it exists). The run draws
// how long a container takes to start and a completing pod takes to run.
// What it has drawn for a pod it keeps in memory, which a restart loses:
// a restarted kubelet draws again.
func Kubelet(m *crt.Manager, opts KubeletOptions) crt.SetupFunc {
	if opts.MaxStartup <= 0 {
		opts.MaxStartup = 3
	}
	if opts.MaxRun <= 0 {
		opts.MaxRun = 5
	}
	if opts.MaxRestarts <= 0 {
		opts.MaxRestarts = 4
	}
	if opts.Fails == nil {
		opts.Fails = func(p *corev1.Pod) bool { return p.Annotations[FailAnnotation] == "true" }
	}
	return func(mgr manager.Manager) error {
		k := &kubelet{Client: mgr.GetClient(), m: m, opts: opts, due: map[types.UID]model.Time{}, drawn: map[types.UID]bool{}}
		return ctrl.NewControllerManagedBy(mgr).For(&corev1.Pod{}).Named("kubelet").Complete(k)
	}
}

type kubelet struct {
	client.Client
	m    *crt.Manager
	opts KubeletOptions
	// due is when the pod's next transition is due, as drawn.
	due map[types.UID]model.Time
	// drawn holds whether a pod fails, as drawn (DrawFailures).
	drawn map[types.UID]bool
}

// fails reports whether the pod's containers fail.
func (k *kubelet) fails(pod *corev1.Pod) bool {
	if k.opts.Fails(pod) {
		return true
	}
	if !k.opts.DrawFailures {
		return false
	}
	f, ok := k.drawn[pod.UID]
	if !ok {
		f = k.m.Cluster().Choose(2, "kubelet: does "+pod.Name+" fail") == 1
		k.drawn[pod.UID] = f
	}
	return f
}

func (k *kubelet) now() model.Time { return k.m.Cluster().Now() }

// wait returns the result that brings the pod back when its transition is
// due, drawing the delay in [1, max] the first time.
func (k *kubelet) wait(pod *corev1.Pod, max int, label string) (ctrl.Result, bool) {
	due, ok := k.due[pod.UID]
	if !ok {
		due = k.now() + model.Time(1+k.m.Cluster().Choose(max, label))
		k.due[pod.UID] = due
	}
	if left := due - k.now(); left > 0 {
		return ctrl.Result{RequeueAfter: k.after(left)}, true
	}
	delete(k.due, pod.UID)
	return ctrl.Result{}, false
}

// Reconcile reads the pod shared (package shared): it only reads it, and
// changes and writes a copy.
func (k *kubelet) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	read, err := shared.Get[*corev1.Pod](ctx, k.Client, req.NamespacedName)
	if err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !read.DeletionTimestamp.IsZero() || read.Status.Phase == corev1.PodSucceeded || read.Status.Phase == corev1.PodFailed {
		return ctrl.Result{}, nil
	}
	now := k.m.Converter().Time(k.now())
	completes := read.Spec.RestartPolicy == corev1.RestartPolicyNever || read.Spec.RestartPolicy == corev1.RestartPolicyOnFailure
	var pod *corev1.Pod
	switch st := &read.Status; {
	case st.Phase == "":
		pod = read.DeepCopy()
		k.create(pod, now)
	case st.Phase == corev1.PodPending || crashLooping(st):
		if crashLooping(st) && st.ContainerStatuses[0].RestartCount >= k.opts.MaxRestarts {
			return ctrl.Result{}, nil
		}
		if res, wait := k.wait(read, k.opts.MaxStartup, "kubelet: ticks for "+read.Name+" to start"); wait {
			return res, nil
		}
		pod = read.DeepCopy()
		k.start(pod, now)
	case st.Phase == corev1.PodRunning && completes:
		if res, wait := k.wait(read, k.opts.MaxRun, "kubelet: ticks "+read.Name+" runs"); wait {
			return res, nil
		}
		pod = read.DeepCopy()
		k.complete(pod, now)
	default:
		return ctrl.Result{}, nil
	}
	if err := k.Status().Update(ctx, pod); err != nil {
		return ctrl.Result{}, err
	}
	switch st := &pod.Status; {
	case st.Phase == corev1.PodPending:
		res, _ := k.wait(pod, k.opts.MaxStartup, "kubelet: ticks for "+pod.Name+" to start")
		return res, nil
	case st.Phase == corev1.PodRunning && completes && !crashLooping(st):
		res, _ := k.wait(pod, k.opts.MaxRun, "kubelet: ticks "+pod.Name+" runs")
		return res, nil
	}
	if due, ok := k.due[pod.UID]; ok {
		return ctrl.Result{RequeueAfter: k.after(due - k.now())}, nil
	}
	return ctrl.Result{}, nil
}

// create makes a new pod Pending, its containers being created.
func (k *kubelet) create(pod *corev1.Pod, now metav1.Time) {
	st := &pod.Status
	st.Phase = corev1.PodPending
	st.StartTime = &now
	assignIPs(pod)
	st.Conditions = []corev1.PodCondition{
		{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: now},
		{Type: corev1.PodInitialized, Status: corev1.ConditionTrue, LastTransitionTime: now},
		{Type: corev1.ContainersReady, Status: corev1.ConditionFalse, LastTransitionTime: now},
		{Type: corev1.PodReady, Status: corev1.ConditionFalse, LastTransitionTime: now},
	}
	st.ContainerStatuses = make([]corev1.ContainerStatus, len(pod.Spec.Containers))
	for i, c := range pod.Spec.Containers {
		st.ContainerStatuses[i] = corev1.ContainerStatus{
			Name: c.Name, Image: c.Image, Started: ptrTo(false),
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ContainerCreating"}},
		}
	}
}

// start starts the containers: running and ready, or failing.
func (k *kubelet) start(pod *corev1.Pod, now metav1.Time) {
	st := &pod.Status
	if !k.fails(pod) {
		st.Phase = corev1.PodRunning
		setCondition(st, corev1.ContainersReady, corev1.ConditionTrue, now)
		setCondition(st, corev1.PodReady, corev1.ConditionTrue, now)
		setContainers(st, func(cs *corev1.ContainerStatus) {
			cs.State = corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}}
			cs.Ready, cs.Started = true, ptrTo(true)
		})
		return
	}
	failed := &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error", FinishedAt: now}
	if pod.Spec.RestartPolicy == corev1.RestartPolicyNever {
		st.Phase = corev1.PodFailed
		setContainers(st, func(cs *corev1.ContainerStatus) { cs.State = corev1.ContainerState{Terminated: failed} })
		return
	}
	st.Phase = corev1.PodRunning
	var restarts int32
	setContainers(st, func(cs *corev1.ContainerStatus) {
		if cs.State.Waiting != nil && cs.State.Waiting.Reason == "CrashLoopBackOff" {
			cs.RestartCount++
		}
		cs.LastTerminationState = corev1.ContainerState{Terminated: failed}
		cs.State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff", Message: "back-off restarting failed container"}}
		cs.Ready = false
		restarts = cs.RestartCount
	})
	if restarts < k.opts.MaxRestarts {
		// The kubelet's backoff: 10 s, doubling, at most 5 minutes.
		backoff := min(10*time.Second<<restarts, 5*time.Minute)
		k.due[pod.UID] = k.now() + k.m.Converter().Ticks(backoff)
	}
}

// complete ends a completing pod's run with success.
func (k *kubelet) complete(pod *corev1.Pod, now metav1.Time) {
	st := &pod.Status
	st.Phase = corev1.PodSucceeded
	setContainers(st, func(cs *corev1.ContainerStatus) {
		cs.State = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed", FinishedAt: now}}
		cs.Ready = false
	})
	setCondition(st, corev1.ContainersReady, corev1.ConditionFalse, now)
	setCondition(st, corev1.PodReady, corev1.ConditionFalse, now)
}

// crashLooping reports whether a container waits in CrashLoopBackOff.
func crashLooping(st *corev1.PodStatus) bool {
	for _, cs := range st.ContainerStatuses {
		if cs.State.Waiting != nil && cs.State.Waiting.Reason == "CrashLoopBackOff" {
			return true
		}
	}
	return false
}

func setContainers(st *corev1.PodStatus, set func(*corev1.ContainerStatus)) {
	for i := range st.ContainerStatuses {
		set(&st.ContainerStatuses[i])
	}
}

func setCondition(st *corev1.PodStatus, t corev1.PodConditionType, status corev1.ConditionStatus, now metav1.Time) {
	for i := range st.Conditions {
		if st.Conditions[i].Type == t && st.Conditions[i].Status != status {
			st.Conditions[i].Status, st.Conditions[i].LastTransitionTime = status, now
		}
	}
}

func ptrTo[T any](v T) *T { return &v }

// after is how long ticks last in virtual time: the converter's tick (a
// second by default, ten with a Span of a minute), so that a requeue
// comes when the transition is due, not at the next tick.
func (k *kubelet) after(ticks model.Time) time.Duration {
	conv := k.m.Converter()
	return conv.Time(ticks).Sub(conv.Time(0).Time)
}
