// Package controller holds the PeriodicJob reconciler, as a kubebuilder
// project lays it out.
package controller

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	jobsv1 "github.com/converge-sim/converge/controllerruntime/examples/cronjob/api/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/record"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
)

// ScheduledTimeAnnotation holds, on each Job, the time its run was
// scheduled for (RFC 3339).
const ScheduledTimeAnnotation = "jobs.example.converge.dev/scheduled-at"

// jobOwnerKey indexes Jobs by the name of their controlling PeriodicJob.
const jobOwnerKey = ".metadata.controller"

// maxMissedRuns bounds how many missed runs the reconciler walks through.
const maxMissedRuns = 100

// PeriodicJobReconciler reconciles a PeriodicJob object.
type PeriodicJobReconciler struct {
	client.Client
	Scheme   *runtime.Scheme
	Recorder record.EventRecorder

	// NameByCreationTime is the bug: it names a run's Job by the time the
	// reconciler created it, not by the time the run was scheduled for. A
	// reconcile that does not see the Job it created a moment ago (its
	// cache lags, or it restarted) creates a second one for the same run.
	NameByCreationTime bool
}

// Reconcile runs the due run of a PeriodicJob, keeps its status and
// prunes its history.
func (r *PeriodicJobReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	log := logf.FromContext(ctx)

	var pj jobsv1.PeriodicJob
	if err := r.Get(ctx, req.NamespacedName, &pj); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}

	var children batchv1.JobList
	if err := r.List(ctx, &children, client.InNamespace(req.Namespace), client.MatchingFields{jobOwnerKey: req.Name}); err != nil {
		return ctrl.Result{}, err
	}

	var active, successful, failed []*batchv1.Job
	var lastRun *time.Time
	for i := range children.Items {
		job := &children.Items[i]
		switch finished(job) {
		case batchv1.JobComplete:
			successful = append(successful, job)
		case batchv1.JobFailed:
			failed = append(failed, job)
		default:
			active = append(active, job)
		}
		if at, err := scheduledTime(job); err == nil && at != nil && (lastRun == nil || at.After(*lastRun)) {
			lastRun = at
		}
	}

	if lastRun != nil {
		pj.Status.LastScheduleTime = &metav1.Time{Time: *lastRun}
	} else {
		pj.Status.LastScheduleTime = nil
	}
	pj.Status.Active = nil
	for _, job := range active {
		pj.Status.Active = append(pj.Status.Active, corev1.ObjectReference{
			APIVersion: "batch/v1", Kind: "Job", Namespace: job.Namespace, Name: job.Name, UID: job.UID,
		})
	}
	for _, job := range successful {
		if t := job.Status.CompletionTime; t != nil && (pj.Status.LastSuccessfulTime == nil || t.After(pj.Status.LastSuccessfulTime.Time)) {
			pj.Status.LastSuccessfulTime = t.DeepCopy()
		}
	}
	scheduling := metav1.Condition{Type: "Scheduling", Status: metav1.ConditionTrue, Reason: "Scheduled", Message: "runs are scheduled", ObservedGeneration: pj.Generation}
	if pj.Spec.Suspend != nil && *pj.Spec.Suspend {
		scheduling.Status, scheduling.Reason, scheduling.Message = metav1.ConditionFalse, "Suspended", "the PeriodicJob is suspended"
	}
	meta.SetStatusCondition(&pj.Status.Conditions, scheduling)
	if err := r.Status().Update(ctx, &pj); err != nil {
		return ctrl.Result{}, err
	}

	if err := r.prune(ctx, successful, pj.Spec.SuccessfulJobsHistoryLimit); err != nil {
		return ctrl.Result{}, err
	}
	if err := r.prune(ctx, failed, pj.Spec.FailedJobsHistoryLimit); err != nil {
		return ctrl.Result{}, err
	}

	if pj.Spec.Suspend != nil && *pj.Spec.Suspend {
		return ctrl.Result{}, nil
	}

	now := time.Now()
	missed, next, err := runsDue(&pj, now)
	if err != nil {
		log.Error(err, "cannot compute the schedule")
		return ctrl.Result{}, err
	}
	requeue := ctrl.Result{RequeueAfter: next.Sub(now)}
	if missed.IsZero() {
		return requeue, nil
	}
	if d := pj.Spec.StartingDeadlineSeconds; d != nil && missed.Add(time.Duration(*d)*time.Second).Before(now) {
		log.V(1).Info("missed the starting deadline", "run", missed)
		return requeue, nil
	}
	switch pj.Spec.ConcurrencyPolicy {
	case jobsv1.ForbidConcurrent:
		if len(active) > 0 {
			return requeue, nil
		}
	case jobsv1.ReplaceConcurrent:
		for _, job := range active {
			if err := r.Delete(ctx, job, client.PropagationPolicy(metav1.DeletePropagationBackground)); client.IgnoreNotFound(err) != nil {
				return ctrl.Result{}, err
			}
		}
	}

	job, err := r.jobFor(&pj, missed, now)
	if err != nil {
		return ctrl.Result{}, err
	}
	if err := r.Create(ctx, job); err != nil {
		if apierrors.IsAlreadyExists(err) {
			return requeue, nil
		}
		return ctrl.Result{}, err
	}
	r.Recorder.Eventf(&pj, corev1.EventTypeNormal, "SuccessfulCreate", "created Job %s for the run at %s", job.Name, missed.UTC().Format(time.RFC3339))
	return requeue, nil
}

// runsDue returns the latest run due at now that has not run yet (zero
// if none) and when the next one is due.
func runsDue(pj *jobsv1.PeriodicJob, now time.Time) (missed, next time.Time, err error) {
	if pj.Spec.IntervalSeconds <= 0 {
		return time.Time{}, time.Time{}, fmt.Errorf("intervalSeconds must be positive, is %d", pj.Spec.IntervalSeconds)
	}
	period := time.Duration(pj.Spec.IntervalSeconds) * time.Second
	start := pj.CreationTimestamp.Time
	from := start
	if pj.Status.LastScheduleTime != nil {
		from = pj.Status.LastScheduleTime.Time
	}
	if d := pj.Spec.StartingDeadlineSeconds; d != nil {
		if earliest := now.Add(-time.Duration(*d) * time.Second); earliest.After(from) {
			from = earliest
		}
	}
	// The runs are start + k·period, k ≥ 1; walk those after from.
	k := int64(from.Sub(start)/period) + 1
	n := 0
	for t := start.Add(time.Duration(k) * period); !t.After(now); t = start.Add(time.Duration(k) * period) {
		missed = t
		k++
		if n++; n > maxMissedRuns {
			return time.Time{}, time.Time{}, fmt.Errorf("too many missed runs (more than %d)", maxMissedRuns)
		}
	}
	return missed, start.Add(time.Duration(k) * period), nil
}

// jobFor builds the Job of the run scheduled at at.
func (r *PeriodicJobReconciler) jobFor(pj *jobsv1.PeriodicJob, at, now time.Time) (*batchv1.Job, error) {
	stamp := at.Unix()
	if r.NameByCreationTime {
		stamp = now.Unix()
	}
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{
			Namespace:   pj.Namespace,
			Name:        pj.Name + "-" + strconv.FormatInt(stamp, 10),
			Labels:      map[string]string{},
			Annotations: map[string]string{ScheduledTimeAnnotation: at.UTC().Format(time.RFC3339)},
		},
		Spec: *pj.Spec.JobTemplate.Spec.DeepCopy(),
	}
	for k, v := range pj.Spec.JobTemplate.Labels {
		job.Labels[k] = v
	}
	for k, v := range pj.Spec.JobTemplate.Annotations {
		job.Annotations[k] = v
	}
	if err := ctrl.SetControllerReference(pj, job, r.Scheme); err != nil {
		return nil, err
	}
	return job, nil
}

// prune deletes the oldest finished Jobs beyond limit.
func (r *PeriodicJobReconciler) prune(ctx context.Context, jobs []*batchv1.Job, limit *int32) error {
	if limit == nil || int32(len(jobs)) <= *limit {
		return nil
	}
	slices.SortFunc(jobs, func(a, b *batchv1.Job) int { return a.CreationTimestamp.Compare(b.CreationTimestamp.Time) })
	for _, job := range jobs[:int32(len(jobs))-*limit] {
		if err := r.Delete(ctx, job, client.PropagationPolicy(metav1.DeletePropagationBackground)); client.IgnoreNotFound(err) != nil {
			return err
		}
	}
	return nil
}

// finished returns the final condition of a Job, or "" while it runs.
func finished(job *batchv1.Job) batchv1.JobConditionType {
	for _, c := range job.Status.Conditions {
		if (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) && c.Status == corev1.ConditionTrue {
			return c.Type
		}
	}
	return ""
}

// scheduledTime reads a Job's scheduled-at annotation.
func scheduledTime(job *batchv1.Job) (*time.Time, error) {
	raw := job.Annotations[ScheduledTimeAnnotation]
	if raw == "" {
		return nil, nil
	}
	t, err := time.Parse(time.RFC3339, raw)
	if err != nil {
		return nil, err
	}
	return &t, nil
}

// SetupWithManager sets up the controller with the Manager.
func (r *PeriodicJobReconciler) SetupWithManager(mgr ctrl.Manager) error {
	if err := mgr.GetFieldIndexer().IndexField(context.Background(), &batchv1.Job{}, jobOwnerKey, func(obj client.Object) []string {
		owner := metav1.GetControllerOf(obj)
		if owner == nil || owner.APIVersion != jobsv1.GroupVersion.String() || owner.Kind != "PeriodicJob" {
			return nil
		}
		return []string{owner.Name}
	}); err != nil {
		return err
	}
	return ctrl.NewControllerManagedBy(mgr).
		For(&jobsv1.PeriodicJob{}).
		Owns(&batchv1.Job{}).
		Named("periodicjob").
		Complete(r)
}
