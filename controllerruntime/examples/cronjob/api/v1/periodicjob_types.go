package v1

import (
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ConcurrencyPolicy says what to do when a run is due while an earlier one
// is still active.
// +kubebuilder:validation:Enum=Allow;Forbid;Replace
type ConcurrencyPolicy string

const (
	// AllowConcurrent runs Jobs side by side.
	AllowConcurrent ConcurrencyPolicy = "Allow"
	// ForbidConcurrent skips a run while an earlier one is active.
	ForbidConcurrent ConcurrencyPolicy = "Forbid"
	// ReplaceConcurrent deletes the active runs and starts the new one.
	ReplaceConcurrent ConcurrencyPolicy = "Replace"
)

// PeriodicJobSpec is the desired state of a PeriodicJob.
type PeriodicJobSpec struct {
	// IntervalSeconds is the period: a run is due every IntervalSeconds
	// after the PeriodicJob was created.
	// +kubebuilder:validation:Minimum=1
	IntervalSeconds int64 `json:"intervalSeconds"`

	// StartingDeadlineSeconds: a run missed by more than this is skipped.
	// +optional
	StartingDeadlineSeconds *int64 `json:"startingDeadlineSeconds,omitempty"`

	// ConcurrencyPolicy is what to do with a run due while one is active.
	// +optional
	ConcurrencyPolicy ConcurrencyPolicy `json:"concurrencyPolicy,omitempty"`

	// Suspend stops new runs; active ones go on.
	// +optional
	Suspend *bool `json:"suspend,omitempty"`

	// JobTemplate is the Job each run creates.
	JobTemplate batchv1.JobTemplateSpec `json:"jobTemplate"`

	// SuccessfulJobsHistoryLimit is how many finished successful Jobs to keep.
	// +kubebuilder:validation:Minimum=0
	// +optional
	SuccessfulJobsHistoryLimit *int32 `json:"successfulJobsHistoryLimit,omitempty"`

	// FailedJobsHistoryLimit is how many failed Jobs to keep.
	// +kubebuilder:validation:Minimum=0
	// +optional
	FailedJobsHistoryLimit *int32 `json:"failedJobsHistoryLimit,omitempty"`
}

// PeriodicJobStatus is the observed state of a PeriodicJob.
type PeriodicJobStatus struct {
	// Active lists the Jobs still running.
	// +optional
	Active []corev1.ObjectReference `json:"active,omitempty"`

	// LastScheduleTime is when the latest run was scheduled for.
	// +optional
	LastScheduleTime *metav1.Time `json:"lastScheduleTime,omitempty"`

	// LastSuccessfulTime is when the latest successful Job completed.
	// +optional
	LastSuccessfulTime *metav1.Time `json:"lastSuccessfulTime,omitempty"`

	// Conditions: Scheduling says whether runs are being scheduled.
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// PeriodicJob runs a Job every IntervalSeconds.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
type PeriodicJob struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   PeriodicJobSpec   `json:"spec,omitempty"`
	Status PeriodicJobStatus `json:"status,omitempty"`
}

// PeriodicJobList is a list of PeriodicJobs.
// +kubebuilder:object:root=true
type PeriodicJobList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []PeriodicJob `json:"items"`
}

func init() {
	SchemeBuilder.Register(&PeriodicJob{}, &PeriodicJobList{})
}
