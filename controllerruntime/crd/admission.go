package crd

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/converge-sim/converge/controllerruntime/convert"
	"github.com/converge-sim/converge/model"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
)

// Options configures the admission of custom resources.
type Options struct {
	// AllowUndefined lets objects of kinds that are neither built in nor
	// defined by a loaded CRD through unchecked. Without it, writing one is
	// an error, as a real API server has no such resource: a scenario that
	// forgot to load a CRD fails instead of running unvalidated.
	AllowUndefined bool
}

// Admission returns the model API server's admission step for the custom
// resources of s, with objects converted by conv. For every create,
// update and status update of a kind s defines, it does what the API
// server does for a custom resource: it prunes fields the schema does not
// know, applies the schema's defaults, and validates the result against
// the version's OpenAPI v3 schema, its list and map types, its metadata
// rules and its CEL rules (x-kubernetes-validations, transition rules
// against the stored object included; on update, errors in fields the
// write left as they were are ratcheted, as on a real server). A rejected
// write gets an Invalid error whose causes name the fields. Built-in
// kinds pass unchecked.
func (s *Set) Admission(conv *convert.Converter, opts Options) model.Admission {
	return func(_ string, verb model.Verb, old, obj *model.Object) error {
		if verb == model.VerbDelete {
			return nil // a delete has nothing to default or validate
		}
		gvk, err := conv.GVK(obj.Kind)
		if err != nil {
			return nil // not a kind of this converter: someone else's object
		}
		v, ok := s.versions[gvk]
		if !ok {
			if opts.AllowUndefined || clientgoscheme.Scheme.Recognizes(gvk) {
				return nil
			}
			return &model.StatusError{Reason: model.ReasonNotFound, Message: fmt.Sprintf(
				"the server could not find the requested resource: no CustomResourceDefinition is loaded for %s (load its manifest with crd.Load, or allow undefined kinds with crd.Options.AllowUndefined)", gvk)}
		}
		return v.admit(conv, verb, old, obj)
	}
}

// admit defaults and validates one write of the version's kind, and
// copies the defaulted spec and status back into obj; a write admitted
// before gives what it gave then (admissionMemo).
func (v *Version) admit(conv *convert.Converter, verb model.Verb, old, obj *model.Object) error {
	if verb != model.VerbCreate && verb != model.VerbUpdate && verb != model.VerbUpdateStatus {
		return nil
	}
	k := keyOf(conv, verb, old, obj)
	if found, err := v.memo.admitted(k, old, obj); found {
		return err
	}
	in := obj.DeepCopy()
	err := v.admitAnew(conv, verb, old, obj)
	v.memo.remember(k, old, in, obj, err)
	return err
}

// admitAnew is admit without the memo.
func (v *Version) admitAnew(conv *convert.Converter, verb model.Verb, old, obj *model.Object) error {
	u, err := conv.ToUnstructured(obj)
	if err != nil {
		return &model.StatusError{Reason: model.ReasonInvalid, Message: err.Error()}
	}
	v.decode(u)
	ctx := context.Background()
	var errs field.ErrorList
	switch verb {
	case model.VerbCreate:
		errs = v.validateCreate(u)
	case model.VerbUpdate, model.VerbUpdateStatus:
		uo, err := conv.ToUnstructured(old)
		if err != nil {
			return &model.StatusError{Reason: model.ReasonInvalid, Message: err.Error()}
		}
		st := v.strategy
		if verb == model.VerbUpdateStatus && v.status != nil {
			st = v.status
		}
		st.PrepareForUpdate(ctx, u, uo)
		errs = st.ValidateUpdate(ctx, u, uo)
	}
	if len(errs) > 0 {
		return v.invalid(obj.Name, errs)
	}
	back, err := conv.FromUnstructured(u)
	if err != nil {
		return &model.StatusError{Reason: model.ReasonInvalid, Message: err.Error()}
	}
	obj.Spec, obj.Status = back.Spec, back.Status
	return nil
}

// invalid is the model form of the API server's Invalid error for errs:
// the message apierrors.NewInvalid writes, and one cause per field error,
// with the rule that failed where the schema tells. The schema validator
// reports the errors of an object's properties in the order it met them,
// which is a map's: they are sorted by field, then by what they say, so
// that a run's trace is the same every time.
func (v *Version) invalid(name string, errs field.ErrorList) *model.StatusError {
	errs = slices.Clone(errs)
	slices.SortStableFunc(errs, func(a, b *field.Error) int {
		return cmp.Or(cmp.Compare(a.Field, b.Field), cmp.Compare(a.ErrorBody(), b.ErrorBody()))
	})
	causes := make([]model.Cause, len(errs))
	for i, e := range errs {
		causes[i] = model.Cause{Type: string(e.Type), Field: e.Field, Message: e.ErrorBody(), Rule: v.rule(e)}
	}
	msg := apierrors.NewInvalid(v.GVK.GroupKind(), name, errs).ErrStatus.Message
	return &model.StatusError{Reason: model.ReasonInvalid, Message: msg, Causes: causes}
}

// decode does to u what decoding a request does: a typed client always
// sends its spec and status structs, empty ones as {}, which the model
// does not keep, so they are put back (their fields get their defaults);
// then unknown fields are dropped and defaults applied.
func (v *Version) decode(u *unstructured.Unstructured) {
	for _, part := range []string{"spec", "status"} {
		if p, ok := v.structural.Properties[part]; ok && p.Type == "object" && u.Object[part] == nil {
			u.Object[part] = map[string]any{}
		}
	}
	structuralpruning.Prune(u.Object, v.structural, true)
	structuraldefaulting.Default(u.Object, v.structural)
}

// validateCreate runs the create strategy on a decoded object: it
// prepares it and validates its schema, metadata and CEL rules.
func (v *Version) validateCreate(u *unstructured.Unstructured) field.ErrorList {
	ctx := context.Background()
	v.strategy.PrepareForCreate(ctx, u)
	return v.strategy.Validate(ctx, u)
}
