package crd

import (
	"fmt"

	"github.com/converge-sim/converge/controllerruntime/convert"
	"github.com/converge-sim/converge/model"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"pgregory.net/rapid"
)

// Version returns the served version of a group, version and kind.
func (s *Set) Version(gvk schema.GroupVersionKind) (*Version, bool) {
	v, ok := s.versions[gvk]
	return v, ok
}

// generatedName is the name of the object a candidate spec is validated in.
const generatedName = "generated"

// validateSpec runs what the API server runs on the create of an object
// of the version with spec (a copy of it), by the same steps Admission
// takes: decode, then the create strategy.
func (v *Version) validateSpec(spec map[string]any) field.ErrorList {
	u := &unstructured.Unstructured{Object: map[string]any{"spec": runtime.DeepCopyJSON(spec)}}
	u.SetGroupVersionKind(v.GVK)
	u.SetName(generatedName)
	if v.Namespaced {
		u.SetNamespace("default")
	}
	v.decode(u)
	return v.validateCreate(u)
}

// SpecFields returns a generator of the version's spec (Specs) as the
// model.Fields of an object of the kind: each spec goes into an
// unstructured object that conv converts, so the fields are flattened as
// the converter flattens the kind's objects ("replicas" for a kind with a
// Go type, "spec.replicas" for a kind conv serves unstructured). The spec
// is the schema's, not the Go type's: an explicit zero under omitempty is
// kept (crt.Inputs passes each spec through the Go type). conv must know
// the version's kind.
func (v *Version) SpecFields(conv *convert.Converter, opts GenOptions) (*rapid.Generator[model.Fields], error) {
	if gvk, err := conv.GVK(v.GVK.Kind); err != nil || gvk != v.GVK {
		return nil, fmt.Errorf("crd: the converter does not serve %s (declare it in the scheme or in convert.Options.Unstructured)", v.GVK)
	}
	specs, err := v.Specs(opts)
	if err != nil {
		return nil, err
	}
	return rapid.Custom(func(t *rapid.T) model.Fields {
		spec := specs.Draw(t, "spec")
		u := &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
		u.SetGroupVersionKind(v.GVK)
		u.SetName(generatedName)
		mo, err := conv.FromUnstructured(u)
		if err != nil {
			t.Fatalf("crd: converting generated spec of %s: %v", v.GVK, err)
		}
		return mo.Spec
	}), nil
}
