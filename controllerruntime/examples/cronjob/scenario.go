// Package cronjob is a time-driven operator in the layout kubebuilder
// scaffolds (api/v1, internal/controller, config/crd/bases): a
// PeriodicJob runs a batch/v1 Job every intervalSeconds, like a CronJob.
// Its SetupWithManager runs unmodified in the model, with the built-in
// Job controller and kubelet running its Jobs, under every fault. The
// clock its reconciler reads (time.Now, metav1.Now in
// meta.SetStatusCondition) is the model's, and stops where the faults
// end, so that a correct PeriodicJob reaches a fixed point.
package cronjob

//lint:file-ignore SA1019 GetEventRecorderFor, as the kubebuilder scaffold's cmd/main.go calls it; the manager still serves the old events API

import (
	"context"
	"fmt"
	"time"

	crt "github.com/converge-sim/converge/controllerruntime"
	"github.com/converge-sim/converge/controllerruntime/builtin"
	"github.com/converge-sim/converge/controllerruntime/convert"
	jobsv1 "github.com/converge-sim/converge/controllerruntime/examples/cronjob/api/v1"
	"github.com/converge-sim/converge/controllerruntime/examples/cronjob/internal/controller"
	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Options says which world a scenario builds.
type Options struct {
	// NameByCreationTime turns on the reconciler's bug.
	NameByCreationTime bool
	// KeepClock lets the clock the reconciler reads run on after the
	// faults end (ManagerOptions.StopClockWhenFaultsEnd off).
	KeepClock bool
}

// Converter converts the client-go types and this API's, as main.go's
// scheme has them.
func Converter() (*convert.Converter, error) {
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return nil, err
	}
	if err := jobsv1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	return convert.New(scheme, convert.Options{})
}

// Interval is the example PeriodicJob's period, in seconds.
const Interval = 10

// Scenario runs the PeriodicJob controller, the built-in Job controller
// and kubelet over one PeriodicJob "report" that runs every 10 seconds;
// outside edits may delete a Job.
func Scenario(name string, conv *convert.Converter, opts Options) properties.Scenario {
	return properties.Scenario{
		Name: name,
		Doc:  "kubebuilder-style PeriodicJob (a CronJob) with the built-in Job controller and kubelet",
		Build: func(cfg model.Config) (*model.Cluster, error) {
			c := model.NewCluster(cfg)
			mgr, err := crt.NewManager(c, conv, crt.ManagerOptions{SyncPeriod: 30 * time.Second, StopClockWhenFaultsEnd: !opts.KeepClock})
			if err != nil {
				return nil, err
			}
			// What cmd/main.go does between ctrl.NewManager and mgr.Start.
			err = mgr.Setup(func(m ctrl.Manager) error {
				return (&controller.PeriodicJobReconciler{
					Client:             m.GetClient(),
					Scheme:             m.GetScheme(),
					Recorder:           m.GetEventRecorderFor("periodicjob-controller"),
					NameByCreationTime: opts.NameByCreationTime,
				}).SetupWithManager(m)
			}, crt.SetupOptions{Goals: map[string]crt.GoalFunc{"periodicjob": LatestRunHasAJob}})
			if err != nil {
				return nil, err
			}
			for _, setup := range []crt.SetupFunc{builtin.Jobs(mgr), builtin.Kubelet(mgr, builtin.KubeletOptions{})} {
				if err := mgr.Setup(setup, crt.SetupOptions{}); err != nil {
					return nil, err
				}
			}
			return c, mgr.Apply(New("default", "report"))
		},
		Edits:      []faults.EditTarget{{Resource: "Job"}},
		Invariants: []properties.Invariant{OneJobPerRun(conv)},
		// Faults strike within the first 25 seconds: over two runs of the
		// PeriodicJob.
		Budget: faults.Budget{Horizon: 25},
	}
}

// New returns a PeriodicJob that runs a one-pod Job every Interval
// seconds and keeps two finished Jobs of each kind.
func New(namespace, name string) *jobsv1.PeriodicJob {
	two := int32(2)
	return &jobsv1.PeriodicJob{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: jobsv1.PeriodicJobSpec{
			IntervalSeconds:            Interval,
			ConcurrencyPolicy:          jobsv1.AllowConcurrent,
			SuccessfulJobsHistoryLimit: &two,
			FailedJobsHistoryLimit:     &two,
			JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{
				Spec: corev1.PodSpec{
					RestartPolicy: corev1.RestartPolicyNever,
					Containers:    []corev1.Container{{Name: "report", Image: "report:v1"}},
				},
			}}},
		},
	}
}

// ownedJobs returns the Jobs pj controls.
func ownedJobs(ctx context.Context, r client.Reader, pj *jobsv1.PeriodicJob) ([]batchv1.Job, error) {
	var jobs batchv1.JobList
	if err := r.List(ctx, &jobs, client.InNamespace(pj.Namespace)); err != nil {
		return nil, err
	}
	out := jobs.Items[:0] // filtered in place: a Job is a large struct to copy
	for i := range jobs.Items {
		if metav1.IsControlledBy(&jobs.Items[i], pj) {
			out = append(out, jobs.Items[i])
		}
	}
	return out, nil
}

// LatestRunHasAJob is the goal, at the time the reconciler sees: the
// latest run due has its Job, status.lastScheduleTime is that run, and
// status.active lists exactly the Jobs that have not finished.
func LatestRunHasAJob(ctx context.Context, r client.Reader) []model.Unmet {
	var list jobsv1.PeriodicJobList
	if err := r.List(ctx, &list); err != nil {
		return []model.Unmet{{Message: err.Error()}}
	}
	now := time.Now()
	var out []model.Unmet
	for i := range list.Items {
		pj := &list.Items[i]
		if pj.Spec.Suspend != nil && *pj.Spec.Suspend {
			continue
		}
		period := time.Duration(pj.Spec.IntervalSeconds) * time.Second
		runs := now.Sub(pj.CreationTimestamp.Time) / period
		if runs < 1 {
			continue
		}
		latest := pj.CreationTimestamp.Add(runs * period).UTC().Format(time.RFC3339)
		jobs, err := ownedJobs(ctx, r, pj)
		if err != nil {
			return []model.Unmet{{Message: err.Error()}}
		}
		found := false
		active := map[string]bool{}
		for _, j := range jobs {
			found = found || j.Annotations[controller.ScheduledTimeAnnotation] == latest
			if _, done := builtin.JobFinished(&j); !done {
				active[j.Name] = true
			}
		}
		listed := map[string]bool{}
		for _, a := range pj.Status.Active {
			listed[a.Name] = true
		}
		switch {
		case !found:
			out = append(out, crt.Unmet(pj, "no Job for the run at %s", latest))
		case pj.Status.LastScheduleTime == nil || pj.Status.LastScheduleTime.UTC().Format(time.RFC3339) != latest:
			out = append(out, crt.Unmet(pj, "status.lastScheduleTime is %v, the latest run is %s", pj.Status.LastScheduleTime, latest))
		case fmt.Sprint(active) != fmt.Sprint(listed):
			out = append(out, crt.Unmet(pj, "status.active lists %v, the unfinished Jobs are %v", listed, active))
		}
	}
	return out
}

// OneJobPerRun is the safety invariant the bug breaks: no two Jobs of one
// PeriodicJob are for the same run.
func OneJobPerRun(conv *convert.Converter) properties.Invariant {
	return crt.Invariant(conv, "one Job per run", func(ctx context.Context, r client.Reader) error {
		var list jobsv1.PeriodicJobList
		if err := r.List(ctx, &list); err != nil {
			return err
		}
		for i := range list.Items {
			pj := &list.Items[i]
			// The Jobs' metadata alone (their annotations and owners), not
			// whole Jobs: the invariant runs after most writes of a Job.
			var jobs metav1.PartialObjectMetadataList
			jobs.SetGroupVersionKind(batchv1.SchemeGroupVersion.WithKind("JobList"))
			if err := r.List(ctx, &jobs, client.InNamespace(pj.Namespace)); err != nil {
				return err
			}
			seen := map[string]string{}
			for i := range jobs.Items {
				j := &jobs.Items[i]
				if !metav1.IsControlledBy(j, pj) {
					continue
				}
				at := j.Annotations[controller.ScheduledTimeAnnotation]
				if other, dup := seen[at]; dup {
					return fmt.Errorf("PeriodicJob %s/%s has two Jobs for the run at %s: %s and %s", pj.Namespace, pj.Name, at, other, j.Name)
				}
				seen[at] = j.Name
			}
		}
		return nil
	})
}
