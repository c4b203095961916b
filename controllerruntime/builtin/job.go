package builtin

import (
	"context"
	"fmt"

	crt "github.com/converge-sim/converge/controllerruntime"
	"github.com/converge-sim/converge/controllerruntime/internal/shared"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/manager"
)

// Jobs returns the setup of the "job" controller, a subset of the real
// Job controller: it keeps min(parallelism, completions − succeeded) pods
// of the template running, named <job>-<i> for the smallest i no pod of
// the Job has (a create that meets a pod its cache has not seen yet is
// requeued), counts succeeded and failed pods without ever counting
// down, and ends the Job with condition Complete (and SuccessCriteriaMet)
// once completions pods succeeded, or Failed (BackoffLimitExceeded, after
// deleting its active pods) once more than backoffLimit pods failed. Not modelled: indexed completion, pod failure
// policies, activeDeadlineSeconds, suspend, ttlSecondsAfterFinished.
func Jobs(m *crt.Manager) crt.SetupFunc {
	return func(mgr manager.Manager) error {
		r := &jobController{Client: mgr.GetClient(), m: m}
		return ctrl.NewControllerManagedBy(mgr).For(&batchv1.Job{}).Owns(&corev1.Pod{}).Named("job").Complete(r)
	}
}

type jobController struct {
	client.Client
	m *crt.Manager
}

// JobFinished reports whether a Job has ended, and its final condition.
func JobFinished(job *batchv1.Job) (batchv1.JobConditionType, bool) {
	for _, c := range job.Status.Conditions {
		if (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) && c.Status == corev1.ConditionTrue {
			return c.Type, true
		}
	}
	return "", false
}

// Reconcile reads the Job and its pods shared (package shared): it only
// reads them, and writes a copy of the Job.
func (r *jobController) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	job, err := shared.Get[*batchv1.Job](ctx, r.Client, req.NamespacedName)
	if err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if _, done := JobFinished(job); done || !job.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}
	pods, err := shared.List[*corev1.Pod](ctx, r.Client, &corev1.PodList{}, client.InNamespace(job.Namespace))
	if err != nil {
		return ctrl.Result{}, err
	}
	var active []*corev1.Pod
	var succeeded, failed, ready int32
	names := map[string]bool{}
	for _, p := range pods {
		if !metav1.IsControlledBy(p, job) {
			continue
		}
		names[p.Name] = true
		switch {
		case p.Status.Phase == corev1.PodSucceeded:
			succeeded++
		case p.Status.Phase == corev1.PodFailed:
			failed++
		case p.DeletionTimestamp.IsZero():
			active = append(active, p)
			if podReady(p) {
				ready++
			}
		}
	}
	// A finished pod stays counted once the status counts it, even after
	// it is deleted, as the real Job controller's finalizer-based tracking
	// keeps it.
	succeeded, failed = max(succeeded, job.Status.Succeeded), max(failed, job.Status.Failed)
	completions, parallelism, backoffLimit := int32(1), int32(1), int32(6)
	if job.Spec.Completions != nil {
		completions = *job.Spec.Completions
	}
	if job.Spec.Parallelism != nil {
		parallelism = *job.Spec.Parallelism
	}
	if job.Spec.BackoffLimit != nil {
		backoffLimit = *job.Spec.BackoffLimit
	}
	now := r.m.Converter().Time(r.m.Cluster().Now())
	st := job.Status.DeepCopy()
	if st.StartTime == nil {
		st.StartTime = &now
	}
	switch {
	case succeeded >= completions:
		st.CompletionTime = &now
		st.Conditions = append(st.Conditions,
			batchv1.JobCondition{Type: batchv1.JobSuccessCriteriaMet, Status: corev1.ConditionTrue, LastProbeTime: now, LastTransitionTime: now, Reason: "CompletionsReached"},
			batchv1.JobCondition{Type: batchv1.JobComplete, Status: corev1.ConditionTrue, LastProbeTime: now, LastTransitionTime: now, Reason: "CompletionsReached"})
	case failed > backoffLimit:
		for _, p := range active {
			if err := r.Delete(ctx, p); client.IgnoreNotFound(err) != nil {
				return ctrl.Result{}, err
			}
		}
		active, ready = nil, 0
		st.Conditions = append(st.Conditions,
			batchv1.JobCondition{Type: batchv1.JobFailureTarget, Status: corev1.ConditionTrue, LastProbeTime: now, LastTransitionTime: now, Reason: "BackoffLimitExceeded"},
			batchv1.JobCondition{Type: batchv1.JobFailed, Status: corev1.ConditionTrue, LastProbeTime: now, LastTransitionTime: now, Reason: "BackoffLimitExceeded", Message: "Job has reached the specified backoff limit"})
	default:
		for want := min(parallelism, completions-succeeded) - int32(len(active)); want > 0; want-- {
			pod := &corev1.Pod{
				ObjectMeta: *job.Spec.Template.ObjectMeta.DeepCopy(),
				Spec:       *job.Spec.Template.Spec.DeepCopy(),
			}
			pod.Namespace, pod.Name = job.Namespace, freeName(job.Name, names)
			names[pod.Name] = true
			if pod.Labels == nil {
				pod.Labels = map[string]string{}
			}
			pod.Labels["batch.kubernetes.io/job-name"] = job.Name
			if err := controllerutil.SetControllerReference(job, pod, r.Scheme()); err != nil {
				return ctrl.Result{}, err
			}
			if err := r.Create(ctx, pod); err != nil {
				if apierrors.IsAlreadyExists(err) {
					// Our cache has not seen it yet: come back when it has.
					//lint:ignore SA1019 Requeue is deprecated, not gone: this wants the rate-limited requeue, which RequeueAfter does not give
					return ctrl.Result{Requeue: true}, nil
				}
				return ctrl.Result{}, err
			}
			active = append(active, pod)
		}
	}
	st.Active, st.Succeeded, st.Failed, st.Ready = int32(len(active)), succeeded, failed, &ready
	// A status write reads the metadata and status it is given and
	// replaces the whole object with what the server stored: the spec
	// is only read, so the shared one is not copied.
	out := &batchv1.Job{TypeMeta: job.TypeMeta, ObjectMeta: *job.ObjectMeta.DeepCopy(), Spec: job.Spec, Status: *st}
	return ctrl.Result{}, r.Status().Update(ctx, out)
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// freeName returns "<job>-<i>" for the smallest i that no pod of the job
// has: a deleted pod's name is reused, and no name is taken twice.
func freeName(job string, names map[string]bool) string {
	for i := 0; ; i++ {
		if name := fmt.Sprintf("%s-%d", job, i); !names[name] {
			return name
		}
	}
}
