package admit

import (
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// always is the one restart policy of a controller's pod template.
var always = []corev1.RestartPolicy{corev1.RestartPolicyAlways}

// validateWorkload validates the selector and pod template of a
// Deployment, ReplicaSet, StatefulSet or DaemonSet (what names it in the
// API server's message for an empty selector): the selector is required,
// not empty, and selects the template's labels.
func validateWorkload(sel *metav1.LabelSelector, tmpl *corev1.PodTemplateSpec, spec *field.Path, what string) field.ErrorList {
	var errs field.ErrorList
	sp := spec.Child("selector")
	switch {
	case sel == nil:
		errs = append(errs, field.Required(sp, ""))
	case len(sel.MatchLabels)+len(sel.MatchExpressions) == 0:
		errs = append(errs, field.Invalid(sp, sel, "empty selector is invalid for "+what))
	default:
		errs = append(errs, metav1validation.ValidateLabelSelector(sel, metav1validation.LabelSelectorValidationOptions{}, sp)...)
		if s, err := metav1.LabelSelectorAsSelector(sel); err == nil && !s.Matches(labels.Set(tmpl.Labels)) {
			errs = append(errs, field.Invalid(spec.Child("template", "metadata", "labels"), tmpl.Labels, "`selector` does not match template `labels`"))
		}
	}
	return append(errs, validateTemplate(tmpl, spec.Child("template"), always)...)
}

// validateTemplate validates a pod template: its labels, annotations and
// pod spec, with the restart policies its owner allows.
func validateTemplate(tmpl *corev1.PodTemplateSpec, p *field.Path, restartPolicies []corev1.RestartPolicy) field.ErrorList {
	errs := metav1validation.ValidateLabels(tmpl.Labels, p.Child("metadata", "labels"))
	errs = append(errs, apivalidation.ValidateAnnotations(tmpl.Annotations, p.Child("metadata", "annotations"))...)
	return append(errs, validatePodSpec(&tmpl.Spec, p.Child("spec"), false, restartPolicies)...)
}

// nonNegative checks replicas (when rp is set and replicas is not nil)
// and minReadySeconds.
func nonNegative(replicas *int32, rp *field.Path, minReady int32, mp *field.Path) field.ErrorList {
	var errs field.ErrorList
	if rp != nil && replicas != nil {
		errs = append(errs, apivalidation.ValidateNonnegativeField(int64(*replicas), rp)...)
	}
	return append(errs, apivalidation.ValidateNonnegativeField(int64(minReady), mp)...)
}

// immutable is ValidateImmutableField: Invalid "field is immutable" unless
// the two values are semantically equal.
func immutable(now, was any, p *field.Path) field.ErrorList {
	return apivalidation.ValidateImmutableField(now, was, p)
}

// validateDeployment validates a Deployment: its workload fields and its
// strategy.
func validateDeployment(d *appsv1.Deployment) field.ErrorList {
	spec := field.NewPath("spec")
	errs := validateWorkload(d.Spec.Selector, &d.Spec.Template, spec, "deployment")
	errs = append(errs, nonNegative(d.Spec.Replicas, spec.Child("replicas"), d.Spec.MinReadySeconds, spec.Child("minReadySeconds"))...)
	if d.Spec.RevisionHistoryLimit != nil {
		errs = append(errs, apivalidation.ValidateNonnegativeField(int64(*d.Spec.RevisionHistoryLimit), spec.Child("revisionHistoryLimit"))...)
	}
	sp := spec.Child("strategy")
	switch d.Spec.Strategy.Type {
	case "", appsv1.RollingUpdateDeploymentStrategyType:
		if ru := d.Spec.Strategy.RollingUpdate; ru != nil {
			rp := sp.Child("rollingUpdate")
			errs = append(errs, intOrPercent(ru.MaxSurge, rp.Child("maxSurge"))...)
			errs = append(errs, intOrPercent(ru.MaxUnavailable, rp.Child("maxUnavailable"))...)
			if isZero(ru.MaxSurge) && isZero(ru.MaxUnavailable) {
				errs = append(errs, field.Invalid(rp.Child("maxUnavailable"), ru.MaxUnavailable.String(), "may not be 0 when `maxSurge` is 0"))
			}
		}
	case appsv1.RecreateDeploymentStrategyType:
		if d.Spec.Strategy.RollingUpdate != nil {
			errs = append(errs, field.Forbidden(sp.Child("rollingUpdate"), "may not be specified when strategy `type` is 'Recreate'"))
		}
	default:
		errs = append(errs, field.NotSupported(sp.Child("type"), d.Spec.Strategy.Type,
			[]appsv1.DeploymentStrategyType{appsv1.RecreateDeploymentStrategyType, appsv1.RollingUpdateDeploymentStrategyType}))
	}
	return errs
}

// intOrPercent checks a maxSurge or maxUnavailable: a non-negative
// integer, or a percentage.
func intOrPercent(v *intstr.IntOrString, p *field.Path) field.ErrorList {
	switch {
	case v == nil:
		return nil
	case v.Type == intstr.String:
		return invalid(p, v.StrVal, validation.IsValidPercent(v.StrVal))
	default:
		return apivalidation.ValidateNonnegativeField(int64(v.IntVal), p)
	}
}

// isZero reports whether a maxSurge or maxUnavailable is set to 0 or 0%
// (an unset one is defaulted to 25%).
func isZero(v *intstr.IntOrString) bool {
	return v != nil && (v.Type == intstr.Int && v.IntVal == 0 || v.Type == intstr.String && v.StrVal == "0%")
}

// validateStatefulSet validates a StatefulSet: its workload fields, its
// policies and its volume claim templates.
func validateStatefulSet(s *appsv1.StatefulSet) field.ErrorList {
	spec := field.NewPath("spec")
	errs := validateWorkload(s.Spec.Selector, &s.Spec.Template, spec, "statefulset")
	errs = append(errs, nonNegative(s.Spec.Replicas, spec.Child("replicas"), s.Spec.MinReadySeconds, spec.Child("minReadySeconds"))...)
	switch s.Spec.PodManagementPolicy {
	case "", appsv1.OrderedReadyPodManagement, appsv1.ParallelPodManagement:
	default:
		errs = append(errs, field.NotSupported(spec.Child("podManagementPolicy"), s.Spec.PodManagementPolicy,
			[]appsv1.PodManagementPolicyType{appsv1.OrderedReadyPodManagement, appsv1.ParallelPodManagement}))
	}
	up := spec.Child("updateStrategy")
	switch s.Spec.UpdateStrategy.Type {
	case "", appsv1.RollingUpdateStatefulSetStrategyType:
		if ru := s.Spec.UpdateStrategy.RollingUpdate; ru != nil && ru.Partition != nil {
			errs = append(errs, apivalidation.ValidateNonnegativeField(int64(*ru.Partition), up.Child("rollingUpdate", "partition"))...)
		}
	case appsv1.OnDeleteStatefulSetStrategyType:
		if s.Spec.UpdateStrategy.RollingUpdate != nil {
			errs = append(errs, field.Invalid(up.Child("rollingUpdate"), s.Spec.UpdateStrategy.RollingUpdate,
				"only allowed for updateStrategy 'RollingUpdate'"))
		}
	default:
		errs = append(errs, field.NotSupported(up.Child("type"), s.Spec.UpdateStrategy.Type,
			[]appsv1.StatefulSetUpdateStrategyType{appsv1.OnDeleteStatefulSetStrategyType, appsv1.RollingUpdateStatefulSetStrategyType}))
	}
	if rp := s.Spec.PersistentVolumeClaimRetentionPolicy; rp != nil {
		pp := spec.Child("persistentVolumeClaimRetentionPolicy")
		errs = append(errs, retention(rp.WhenDeleted, pp.Child("whenDeleted"))...)
		errs = append(errs, retention(rp.WhenScaled, pp.Child("whenScaled"))...)
	}
	for i := range s.Spec.VolumeClaimTemplates {
		t := &s.Spec.VolumeClaimTemplates[i]
		tp := spec.Child("volumeClaimTemplates").Index(i)
		if t.Name == "" {
			errs = append(errs, field.Required(tp.Child("metadata", "name"), ""))
		}
		errs = append(errs, metav1validation.ValidateLabels(t.Labels, tp.Child("metadata", "labels"))...)
		errs = append(errs, validateClaimSpec(&t.Spec, tp.Child("spec"))...)
	}
	return errs
}

// retention checks one field of a StatefulSet's claim retention policy.
func retention(v appsv1.PersistentVolumeClaimRetentionPolicyType, p *field.Path) field.ErrorList {
	switch v {
	case "", appsv1.RetainPersistentVolumeClaimRetentionPolicyType, appsv1.DeletePersistentVolumeClaimRetentionPolicyType:
		return nil
	}
	return field.ErrorList{field.NotSupported(p, v, []appsv1.PersistentVolumeClaimRetentionPolicyType{
		appsv1.RetainPersistentVolumeClaimRetentionPolicyType, appsv1.DeletePersistentVolumeClaimRetentionPolicyType})}
}

// statefulSetForbidden is the API server's message for an update of a
// StatefulSet's fixed fields.
const statefulSetForbidden = "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', " +
	"'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden"

// statefulSetUpdate forbids an update of a StatefulSet's spec beyond its
// mutable fields, comparing the rest semantically once the defaults the
// API server would have set are in (podManagementPolicy OrderedReady, a
// claim template's volumeMode Filesystem), so that an empty object or a
// default spelt out is no change.
func statefulSetUpdate(now, was *appsv1.StatefulSet) field.ErrorList {
	a, b := now.Spec.DeepCopy(), was.Spec.DeepCopy()
	a.Replicas, a.Ordinals, a.Template, a.UpdateStrategy = b.Replicas, b.Ordinals, b.Template, b.UpdateStrategy
	a.RevisionHistoryLimit, a.PersistentVolumeClaimRetentionPolicy, a.MinReadySeconds = b.RevisionHistoryLimit, b.PersistentVolumeClaimRetentionPolicy, b.MinReadySeconds
	for _, s := range []*appsv1.StatefulSetSpec{a, b} {
		if s.PodManagementPolicy == "" {
			s.PodManagementPolicy = appsv1.OrderedReadyPodManagement
		}
		for i := range s.VolumeClaimTemplates {
			if s.VolumeClaimTemplates[i].Spec.VolumeMode == nil {
				mode := corev1.PersistentVolumeFilesystem
				s.VolumeClaimTemplates[i].Spec.VolumeMode = &mode
			}
		}
	}
	if apiequality.Semantic.DeepEqual(a, b) {
		return nil
	}
	return field.ErrorList{field.Forbidden(field.NewPath("spec"), statefulSetForbidden)}
}

// validateJobSpec validates a Job's spec (at p): counts, and a template
// whose restart policy is OnFailure or Never.
func validateJobSpec(s *batchv1.JobSpec, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, c := range []struct {
		v    *int32
		name string
	}{{s.Parallelism, "parallelism"}, {s.Completions, "completions"}, {s.BackoffLimit, "backoffLimit"}} {
		if c.v != nil {
			errs = append(errs, apivalidation.ValidateNonnegativeField(int64(*c.v), p.Child(c.name))...)
		}
	}
	if s.ActiveDeadlineSeconds != nil && *s.ActiveDeadlineSeconds <= 0 {
		errs = append(errs, field.Invalid(p.Child("activeDeadlineSeconds"), *s.ActiveDeadlineSeconds, "must be greater than 0"))
	}
	if s.ManualSelector != nil && *s.ManualSelector {
		errs = append(errs, validateManualSelector(s.Selector, &s.Template, p)...)
	}
	return append(errs, validateTemplate(&s.Template, p.Child("template"),
		[]corev1.RestartPolicy{corev1.RestartPolicyOnFailure, corev1.RestartPolicyNever})...)
}

// validateManualSelector checks the selector of a Job that sets its own.
func validateManualSelector(sel *metav1.LabelSelector, tmpl *corev1.PodTemplateSpec, p *field.Path) field.ErrorList {
	if sel == nil {
		return field.ErrorList{field.Required(p.Child("selector"), "")}
	}
	errs := metav1validation.ValidateLabelSelector(sel, metav1validation.LabelSelectorValidationOptions{}, p.Child("selector"))
	if s, err := metav1.LabelSelectorAsSelector(sel); err == nil && !s.Matches(labels.Set(tmpl.Labels)) {
		errs = append(errs, field.Invalid(p.Child("template", "metadata", "labels"), tmpl.Labels, "`selector` does not match template `labels`"))
	}
	return errs
}

// jobUpdate keeps a Job's selector, pod template and completion mode as
// created.
func jobUpdate(now, was *batchv1.Job) field.ErrorList {
	spec := field.NewPath("spec")
	errs := immutable(now.Spec.Selector, was.Spec.Selector, spec.Child("selector"))
	errs = append(errs, immutable(now.Spec.Template, was.Spec.Template, spec.Child("template"))...)
	return append(errs, immutable(now.Spec.CompletionMode, was.Spec.CompletionMode, spec.Child("completionMode"))...)
}

// validateCronJob validates a CronJob: a schedule, and its job template.
func validateCronJob(c *batchv1.CronJob) field.ErrorList {
	spec := field.NewPath("spec")
	var errs field.ErrorList
	if c.Spec.Schedule == "" {
		errs = append(errs, field.Required(spec.Child("schedule"), ""))
	}
	switch c.Spec.ConcurrencyPolicy {
	case "", batchv1.AllowConcurrent, batchv1.ForbidConcurrent, batchv1.ReplaceConcurrent:
	default:
		errs = append(errs, field.NotSupported(spec.Child("concurrencyPolicy"), c.Spec.ConcurrencyPolicy,
			[]batchv1.ConcurrencyPolicy{batchv1.AllowConcurrent, batchv1.ForbidConcurrent, batchv1.ReplaceConcurrent}))
	}
	jt := spec.Child("jobTemplate")
	errs = append(errs, metav1validation.ValidateLabels(c.Spec.JobTemplate.Labels, jt.Child("metadata", "labels"))...)
	return append(errs, validateJobSpec(&c.Spec.JobTemplate.Spec, jt.Child("spec"))...)
}
