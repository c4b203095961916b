// Deepcopy functions in the shape controller-gen generates them, written
// out here so that the example builds without the generator.

package v1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// DeepCopyInto copies the receiver into out.
func (in *PeriodicJobSpec) DeepCopyInto(out *PeriodicJobSpec) {
	*out = *in
	if in.StartingDeadlineSeconds != nil {
		out.StartingDeadlineSeconds = new(int64)
		*out.StartingDeadlineSeconds = *in.StartingDeadlineSeconds
	}
	if in.Suspend != nil {
		out.Suspend = new(bool)
		*out.Suspend = *in.Suspend
	}
	in.JobTemplate.DeepCopyInto(&out.JobTemplate)
	if in.SuccessfulJobsHistoryLimit != nil {
		out.SuccessfulJobsHistoryLimit = new(int32)
		*out.SuccessfulJobsHistoryLimit = *in.SuccessfulJobsHistoryLimit
	}
	if in.FailedJobsHistoryLimit != nil {
		out.FailedJobsHistoryLimit = new(int32)
		*out.FailedJobsHistoryLimit = *in.FailedJobsHistoryLimit
	}
}

// DeepCopyInto copies the receiver into out.
func (in *PeriodicJobStatus) DeepCopyInto(out *PeriodicJobStatus) {
	*out = *in
	if in.Active != nil {
		out.Active = make([]corev1.ObjectReference, len(in.Active))
		copy(out.Active, in.Active)
	}
	if in.LastScheduleTime != nil {
		out.LastScheduleTime = in.LastScheduleTime.DeepCopy()
	}
	if in.LastSuccessfulTime != nil {
		out.LastSuccessfulTime = in.LastSuccessfulTime.DeepCopy()
	}
	if in.Conditions != nil {
		out.Conditions = make([]metav1.Condition, len(in.Conditions))
		for i := range in.Conditions {
			in.Conditions[i].DeepCopyInto(&out.Conditions[i])
		}
	}
}

// DeepCopyInto copies the receiver into out.
func (in *PeriodicJob) DeepCopyInto(out *PeriodicJob) {
	*out = *in
	out.TypeMeta = in.TypeMeta
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	in.Spec.DeepCopyInto(&out.Spec)
	in.Status.DeepCopyInto(&out.Status)
}

// DeepCopy returns a deep copy of the receiver.
func (in *PeriodicJob) DeepCopy() *PeriodicJob {
	if in == nil {
		return nil
	}
	out := new(PeriodicJob)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject returns a deep copy of the receiver as a runtime.Object.
func (in *PeriodicJob) DeepCopyObject() runtime.Object {
	if c := in.DeepCopy(); c != nil {
		return c
	}
	return nil
}

// DeepCopyInto copies the receiver into out.
func (in *PeriodicJobList) DeepCopyInto(out *PeriodicJobList) {
	*out = *in
	out.TypeMeta = in.TypeMeta
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	if in.Items != nil {
		out.Items = make([]PeriodicJob, len(in.Items))
		for i := range in.Items {
			in.Items[i].DeepCopyInto(&out.Items[i])
		}
	}
}

// DeepCopy returns a deep copy of the receiver.
func (in *PeriodicJobList) DeepCopy() *PeriodicJobList {
	if in == nil {
		return nil
	}
	out := new(PeriodicJobList)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject returns a deep copy of the receiver as a runtime.Object.
func (in *PeriodicJobList) DeepCopyObject() runtime.Object {
	if c := in.DeepCopy(); c != nil {
		return c
	}
	return nil
}
