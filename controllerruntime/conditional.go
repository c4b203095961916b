package controllerruntime

import (
	"github.com/converge-sim/converge/model"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// requireResourceVersion answers an update or status update without
// metadata.resourceVersion as the API server's generic registry does for a
// kind whose strategy forbids unconditional updates: every custom resource
// (the customresource strategy's AllowUnconditionalUpdate is false). If the
// object exists, the update is 422 Invalid, "metadata.resourceVersion:
// Invalid value: 0x0: must be specified for an update", and the rejection
// is recorded for the rejected-writes verdict; if it does not, the write
// goes on and answers NotFound, as the registry checks existence first.
// Built-in kinds allow unconditional updates (the strategies of ConfigMap,
// Deployment, Pod and the other kinds the model serves say so), and pass.
func (cl *modelClient) requireResourceVersion(obj client.Object, verb model.Verb) error {
	if obj.GetResourceVersion() != "" || cl.w == nil || cl.live == nil {
		return nil
	}
	kind, err := cl.conv.Kind(obj)
	if err != nil {
		return nil // the write reports it
	}
	gvk, err := cl.conv.GVK(kind)
	if err != nil || clientgoscheme.Scheme.Recognizes(gvk) {
		return nil
	}
	ref := model.Ref{Kind: kind, Namespace: obj.GetNamespace(), Name: obj.GetName()}
	if !cl.mapper.namespaced(kind) {
		ref.Namespace = ""
	}
	if _, err := cl.live.Get(ref.Kind, ref.Namespace, ref.Name); err != nil {
		return nil // the write answers NotFound, or the read's error, itself
	}
	// The registry's error names the resource where other Invalid
	// errors name the kind.
	fe := field.Invalid(field.NewPath("metadata", "resourceVersion"), uint64(0), "must be specified for an update")
	plural, _ := cl.mapper.resource(gvk)
	err = apierrors.NewInvalid(schema.GroupKind{Group: gvk.Group, Kind: plural.Resource}, ref.Name, field.ErrorList{fe})
	if cl.reject != nil && cl.name != "" {
		se := &model.StatusError{Reason: model.ReasonInvalid, Message: err.Error(), Causes: []model.Cause{{
			Type: string(fe.Type), Field: fe.Field, Message: fe.ErrorBody(), Rule: "resourceVersion required for an update of a custom resource",
		}}}
		cl.reject(cl.name, verb, ref, se)
	}
	return err
}
