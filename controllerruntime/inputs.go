package controllerruntime

import (
	"errors"
	"fmt"

	"github.com/converge-sim/converge/controllerruntime/convert"
	"github.com/converge-sim/converge/controllerruntime/crd"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"pgregory.net/rapid"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// InputsOptions configures Inputs.
type InputsOptions struct {
	// Gen configures the spec generator (crd.GenOptions), the declared
	// input space included: the fields to draw (Fields), pinned values
	// (Pin) and values narrower than the CRD's (Ranges, OneOf), in the
	// CRD's spelling ("spec.size"), checked against its schema by Inputs.
	// Gen.Target, often the target object itself, keeps every field
	// the space does not name at the target's value.
	Gen crd.GenOptions
	// Max bounds the transitions of a run (properties.Inputs.Max); zero
	// is properties.DefaultMaxTransitions.
	Max int
	// Ignore lists what the history-dependent oracle leaves out
	// (properties.Inputs.Ignore): fields by kind and path, in the report's
	// spelling ("spec.template.metadata.annotations.restartedAt",
	// "spec.ports[port=80,protocol=TCP].targetPort",
	// "metadata.annotations.*"), and objects whose presence on one side
	// is by design (a Kind and a Name pattern, no Path).
	Ignore []properties.Ignore
	// Refused lists the status conditions by which the operator says it
	// refused the target's spec on purpose (shrinking storage, scaling
	// down) and keeps acting on the last spec it accepted: the target's
	// spec is refused while one of them holds (properties.Inputs.Refused).
	Refused []RefusedCondition
}

// RefusedCondition matches a status condition (metav1.Condition, in
// status.conditions) that says the operator refused its spec: one of
// Type whose status is Status and, when Reason is set, whose reason is
// Reason. A condition whose observedGeneration is set and is not the
// object's generation speaks of an older spec and does not match.
type RefusedCondition struct {
	Type   string
	Status metav1.ConditionStatus
	Reason string
	_      struct{}
}

// refused returns the properties.Inputs.Refused of conds: the reason is
// "Type=Status (Reason: message)" of the first condition that matches.
func refused(conds []RefusedCondition) func(*model.Object) (string, bool) {
	if len(conds) == 0 {
		return nil
	}
	return func(o *model.Object) (string, bool) {
		for i := 0; o.Status.Has(fmt.Sprintf("conditions[%d].type", i)); i++ {
			at := func(f string) string { return o.Status.Str(fmt.Sprintf("conditions[%d].%s", i, f)) }
			if g := fmt.Sprintf("conditions[%d].observedGeneration", i); o.Status.Has(g) && o.Status.Int(g) != o.Generation {
				continue
			}
			for _, c := range conds {
				if at("type") == c.Type && at("status") == string(c.Status) && (c.Reason == "" || at("reason") == c.Reason) {
					return fmt.Sprintf("%s=%s (%s: %s)", c.Type, c.Status, at("reason"), at("message")), true
				}
			}
		}
		return "", false
	}
}

func validRefused(conds []RefusedCondition) error {
	for _, c := range conds {
		if c.Type == "" || c.Status == "" {
			return fmt.Errorf("inputs: a refused condition needs a type and a status, got type %q status %q", c.Type, c.Status)
		}
	}
	return nil
}

// Inputs returns the state transitions of a custom resource for
// properties.Scenario.Inputs, in one call: the target is the object of
// target's kind, namespace and name (the scenario's Build creates it), and
// each transition is a whole spec drawn from the schema of the CRD
// version in crds that serves target's group, version and kind
// (crd.Version.SpecFields through conv). Give the manager the same crds
// (ManagerOptions.CRDs) so that the API server validates and defaults
// every transition as it would in a cluster.
//
// The oracle compares states as Kubernetes merges them (Semantics): lists
// by the keys the CRDs and the built-in kinds' schemas declare, quantities
// by value.
//
// A scenario with these inputs and no goal is judged by the
// history-dependent oracle (see docs/design.md, state-transition inputs);
// run it with Check or properties.Search with properties.InBubble as any
// other scenario.
func Inputs(crds *crd.Set, conv *convert.Converter, target client.Object, opts InputsOptions) (*properties.Inputs, error) {
	if crds == nil || conv == nil || target == nil {
		return nil, errors.New("inputs: need the CRDs, the converter and a target object")
	}
	if target.GetName() == "" {
		return nil, errors.New("inputs: the target object has no name")
	}
	if err := validRefused(opts.Refused); err != nil {
		return nil, err
	}
	kind, err := conv.Kind(target)
	if err != nil {
		return nil, fmt.Errorf("inputs: target %s: %w", target.GetName(), err)
	}
	gvk, err := conv.GVK(kind)
	if err != nil {
		return nil, fmt.Errorf("inputs: target %s: %w", target.GetName(), err)
	}
	v, ok := crds.Version(gvk)
	if !ok {
		return nil, fmt.Errorf("inputs: no CRD serves %s (load its manifest with crd.Load)", gvk)
	}
	spec, err := v.SpecFields(conv, opts.Gen)
	if err != nil {
		return nil, fmt.Errorf("inputs: %s: %w", gvk, err)
	}
	return &properties.Inputs{
		Target:    model.Ref{Kind: kind, Namespace: target.GetNamespace(), Name: target.GetName()},
		Spec:      asTyped(spec, conv, kind),
		Max:       opts.Max,
		Ignore:    opts.Ignore,
		Semantics: Semantics(crds, conv),
		Refused:   refused(opts.Refused),
	}, nil
}

// asTyped passes each drawn spec through the kind's Go type, when it has
// one: decoded and encoded again, a spec is what the operator's own API
// types can hold. An explicit zero under omitempty is then absent, as it
// is after any Update the operator makes of the object; without this, a
// history in which the operator last wrote the object before the user's
// explicit zero and a fresh cluster in which it wrote after would differ
// in a field the operator cannot tell apart from its absence. A spec the
// type cannot hold is kept as drawn.
func asTyped(gen *rapid.Generator[model.Fields], conv *convert.Converter, kind string) *rapid.Generator[model.Fields] {
	if probe, err := conv.New(kind); err != nil || isUnstructured(probe) {
		return gen
	}
	return rapid.Map(gen, func(spec model.Fields) model.Fields {
		typed, err := conv.New(kind)
		if err != nil {
			return spec
		}
		if err := conv.FromModel(&model.Object{Kind: kind, Spec: spec}, typed); err != nil {
			return spec
		}
		back, err := conv.ToModel(typed)
		if err != nil {
			return spec
		}
		return back.Spec
	})
}

// isUnstructured reports whether obj is an unstructured object (a kind
// served without a Go type).
func isUnstructured(obj client.Object) bool {
	_, ok := obj.(*unstructured.Unstructured)
	return ok
}
