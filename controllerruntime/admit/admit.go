package admit

import (
	"cmp"
	"slices"

	"github.com/converge-sim/converge/controllerruntime/convert"
	"github.com/converge-sim/converge/model"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/validate/content"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Builtin returns the admission step that validates creates and updates
// of the built-in kinds of conv (those client-go's scheme has) as the
// real API server does for the fields this package covers; namespaced
// says whether a kind's objects live in a namespace. Status updates and
// custom resources pass unchecked (the crd package validates the latter).
// A rejection is an Invalid model.StatusError whose causes are the field
// errors sorted by field, then by message, with the message the API
// server writes for them.
//
// The validators only read the objects they are given, so these are
// decoded through convert.FromModelShared: their spec and status are the
// converter's kept decodes, not copies (docs/design.md, "Reads that copy
// once").
func Builtin(conv *convert.Converter, namespaced func(kind string) bool) model.Admission {
	return builtin(conv, namespaced, decodeShared)
}

// BuiltinFresh is Builtin decoding each object afresh, as FromModel does:
// the reference Builtin is tested against.
func BuiltinFresh(conv *convert.Converter, namespaced func(kind string) bool) model.Admission {
	return builtin(conv, namespaced, decode)
}

// builtin is Builtin with the decode given.
func builtin(conv *convert.Converter, namespaced func(kind string) bool,
	decode func(*convert.Converter, *model.Object) (client.Object, error)) model.Admission {
	return func(_ string, verb model.Verb, old, obj *model.Object) error {
		if verb != model.VerbCreate && verb != model.VerbUpdate {
			return nil
		}
		gvk, err := conv.GVK(obj.Kind)
		if err != nil || !clientgoscheme.Scheme.Recognizes(gvk) {
			return nil
		}
		typed, err := decode(conv, obj)
		if err != nil {
			return err
		}
		errs := validateMeta(typed, gvk.Group, obj.Kind, namespaced(obj.Kind))
		errs = append(errs, validate(typed)...)
		if verb == model.VerbUpdate && old != nil {
			was, err := decode(conv, old)
			if err != nil {
				return err
			}
			errs = append(errs, validateUpdate(typed, was)...)
		}
		if len(errs) == 0 {
			return nil
		}
		return invalidError(gvk.Kind, gvk.Group, obj.Name, errs)
	}
}

// decode returns the typed form of a model object; a value the Go type
// cannot hold (a malformed quantity, a string where a number goes) is
// Invalid, as the API server refuses a body it cannot decode.
func decode(conv *convert.Converter, mo *model.Object) (client.Object, error) {
	typed, err := conv.New(mo.Kind)
	if err == nil {
		err = conv.FromModel(mo, typed)
	}
	if err != nil {
		return nil, &model.StatusError{Reason: model.ReasonInvalid, Message: mo.Ref().String() + " is invalid: " + err.Error()}
	}
	return typed, nil
}

// decodeShared is decode through convert.FromModelShared, for code that
// only reads the result.
func decodeShared(conv *convert.Converter, mo *model.Object) (client.Object, error) {
	typed, err := conv.New(mo.Kind)
	if err == nil {
		err = conv.FromModelShared(mo, typed)
	}
	if err != nil {
		return nil, &model.StatusError{Reason: model.ReasonInvalid, Message: mo.Ref().String() + " is invalid: " + err.Error()}
	}
	return typed, nil
}

// invalidError is the model form of the API server's Invalid error (422) for
// errs about the object name of a kind of group: one cause per field
// error, sorted by field and then by message so that a run's trace is the
// same every time, and the message apierrors.NewInvalid writes for them.
func invalidError(kind, group, name string, errs field.ErrorList) *model.StatusError {
	errs = slices.Clone(errs)
	slices.SortStableFunc(errs, func(a, b *field.Error) int {
		return cmp.Or(cmp.Compare(a.Field, b.Field), cmp.Compare(a.ErrorBody(), b.ErrorBody()))
	})
	causes := make([]model.Cause, len(errs))
	for i, e := range errs {
		causes[i] = model.Cause{Type: string(e.Type), Field: e.Field, Message: e.ErrorBody()}
	}
	msg := apierrors.NewInvalid(schema.GroupKind{Group: group, Kind: kind}, name, errs).ErrStatus.Message
	return &model.StatusError{Reason: model.ReasonInvalid, Message: msg, Causes: causes}
}

// validateMeta validates an object's metadata as ValidateObjectMeta does,
// with the name rule of its kind.
func validateMeta(obj client.Object, group, kind string, namespaced bool) field.ErrorList {
	nameFn := apivalidation.NameIsDNSSubdomain
	switch {
	case group == "" && kind == "Service":
		nameFn = apivalidation.NameIsDNS1035Label
	case group == "" && kind == "Namespace":
		nameFn = apivalidation.NameIsDNSLabel
	case group == "rbac.authorization.k8s.io":
		nameFn = pathSegmentName
	}
	return apivalidation.ValidateObjectMetaAccessor(obj, namespaced, nameFn, field.NewPath("metadata"))
}

// validate validates a created or updated object's body, by kind.
func validate(obj client.Object) field.ErrorList {
	spec := field.NewPath("spec")
	switch o := obj.(type) {
	case *corev1.Pod:
		return validatePodSpec(&o.Spec, spec, true, nil)
	case *appsv1.Deployment:
		return validateDeployment(o)
	case *appsv1.ReplicaSet:
		errs := validateWorkload(o.Spec.Selector, &o.Spec.Template, spec, "replicaset")
		return append(errs, nonNegative(o.Spec.Replicas, spec.Child("replicas"), o.Spec.MinReadySeconds, spec.Child("minReadySeconds"))...)
	case *appsv1.StatefulSet:
		return validateStatefulSet(o)
	case *appsv1.DaemonSet:
		errs := validateWorkload(o.Spec.Selector, &o.Spec.Template, spec, "daemonset")
		return append(errs, nonNegative(nil, nil, o.Spec.MinReadySeconds, spec.Child("minReadySeconds"))...)
	case *batchv1.Job:
		return validateJobSpec(&o.Spec, spec)
	case *batchv1.CronJob:
		return validateCronJob(o)
	case *corev1.PersistentVolumeClaim:
		return validateClaimSpec(&o.Spec, spec)
	case *corev1.Service:
		return validateService(o)
	case *corev1.ConfigMap:
		return validateConfigMap(o)
	case *corev1.Secret:
		return validateSecret(o)
	}
	return nil
}

// validateUpdate validates an update against the stored object: the
// fields fixed at creation, compared with apiequality.Semantic, so that
// an empty object, list or map is no change from an absent one.
func validateUpdate(obj, old client.Object) field.ErrorList {
	switch o := obj.(type) {
	case *appsv1.Deployment:
		return immutable(o.Spec.Selector, old.(*appsv1.Deployment).Spec.Selector, field.NewPath("spec", "selector"))
	case *appsv1.ReplicaSet:
		return immutable(o.Spec.Selector, old.(*appsv1.ReplicaSet).Spec.Selector, field.NewPath("spec", "selector"))
	case *appsv1.DaemonSet:
		return immutable(o.Spec.Selector, old.(*appsv1.DaemonSet).Spec.Selector, field.NewPath("spec", "selector"))
	case *appsv1.StatefulSet:
		return statefulSetUpdate(o, old.(*appsv1.StatefulSet))
	case *batchv1.Job:
		return jobUpdate(o, old.(*batchv1.Job))
	case *corev1.PersistentVolumeClaim:
		return claimUpdate(o, old.(*corev1.PersistentVolumeClaim))
	case *corev1.Service:
		return serviceUpdate(o, old.(*corev1.Service))
	case *corev1.ConfigMap:
		was := old.(*corev1.ConfigMap)
		return immutableData(o.Immutable, was.Immutable, dataField{"data", o.Data, was.Data}, dataField{"binaryData", o.BinaryData, was.BinaryData})
	case *corev1.Secret:
		was := old.(*corev1.Secret)
		errs := immutable(secretType(o.Type), secretType(was.Type), field.NewPath("type"))
		return append(errs, immutableData(o.Immutable, was.Immutable, dataField{"data", o.Data, was.Data})...)
	}
	return nil
}

// secretType is a Secret's type as defaulted: Opaque when empty.
func secretType(t corev1.SecretType) corev1.SecretType {
	if t == "" {
		return corev1.SecretTypeOpaque
	}
	return t
}

// pathSegmentName is the name rule of RBAC kinds: a name, or with prefix
// a generateName, that can stand as a path segment.
func pathSegmentName(name string, prefix bool) []string {
	if prefix {
		return content.IsPathSegmentPrefix(name)
	}
	return content.IsPathSegmentName(name)
}
