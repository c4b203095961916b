package crd

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	schemavalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/runtime"
)

// Range bounds the values drawn of an integer or number field, both ends
// included (GenOptions.Ranges). It must lie within the CRD's own bounds;
// an integer field's ends must be integers.
type Range struct {
	Min, Max float64
}

// declared reports whether opts declare an input space narrower than the
// schema's.
func (o GenOptions) declared() bool {
	return len(o.Fields) > 0 || len(o.Pin) > 0 || len(o.Ranges) > 0 || len(o.OneOf) > 0
}

// spaceNode is one field of a declared input space: what is declared at
// its path and below it. Children are keyed by property name, "[*]" for
// the items of a list or the values of a map.
type spaceNode struct {
	children map[string]*spaceNode
	// listed says the field is drawn whole (Fields, or a value
	// constraint on it).
	listed bool
	pinned bool
	pin    any
	rng    *Range
	oneOf  []any
}

func (n *spaceNode) child(seg string) *spaceNode {
	if n.children == nil {
		n.children = map[string]*spaceNode{}
	}
	c, ok := n.children[seg]
	if !ok {
		c = &spaceNode{}
		n.children[seg] = c
	}
	return c
}

// constrained says a pin, range or enum is declared at n.
func (n *spaceNode) constrained() bool { return n.pinned || n.rng != nil || n.oneOf != nil }

// carriesPin says a pin is declared at n or below it through properties
// only (not through a list's items or a map's values, which may be
// absent): the field must then be present in every spec.
func (n *spaceNode) carriesPin() bool {
	if n.pinned {
		return true
	}
	for seg, c := range n.children {
		if seg != "[*]" && c.carriesPin() {
			return true
		}
	}
	return false
}

// spacePath is a parsed path of a declared input space: the segments
// below spec, property names and "[*]".
type spacePath []string

// parseSpacePath parses "spec.ports[*].port" into [ports [*] port].
func parseSpacePath(p string) (spacePath, error) {
	rest, ok := strings.CutPrefix(p, "spec")
	if !ok || (rest != "" && rest[0] != '.' && rest[0] != '[') {
		if strings.HasPrefix(p, "status.") || strings.HasPrefix(p, "metadata.") {
			return nil, fmt.Errorf("path %q is not in the spec, the only part of an object inputs draw", p)
		}
		return nil, fmt.Errorf("path %q does not start at the object's spec (write \"spec.%s\")", p, p)
	}
	var out spacePath
	for rest != "" {
		switch {
		case strings.HasPrefix(rest, "[*]"):
			out = append(out, "[*]")
			rest = rest[3:]
		case rest[0] == '[':
			return nil, fmt.Errorf("path %q: only [*] may stand for list items or map values", p)
		case rest[0] == '.':
			name := rest[1:]
			if i := strings.IndexAny(name, ".["); i >= 0 {
				name = name[:i]
			}
			if name == "" {
				return nil, fmt.Errorf("path %q has an empty field name", p)
			}
			out = append(out, name)
			rest = rest[1+len(name):]
		default:
			return nil, fmt.Errorf("path %q: unexpected %q", p, rest)
		}
	}
	return out, nil
}

// resolve returns the schema of the field at path below spec, or an error
// that names the first segment the schema does not have.
func resolve(spec *structuralschema.Structural, path spacePath) (*structuralschema.Structural, error) {
	s, at := spec, "spec"
	for _, seg := range path {
		if seg == "[*]" {
			switch {
			case s.Items != nil:
				s = s.Items
			case s.AdditionalProperties != nil && s.AdditionalProperties.Structural != nil:
				s = s.AdditionalProperties.Structural
			default:
				return nil, fmt.Errorf("%s is neither a list nor a map, so %s[*] is not a field", at, at)
			}
			at += seg
			continue
		}
		p, ok := s.Properties[seg]
		if !ok {
			if s.AdditionalProperties != nil {
				return nil, fmt.Errorf("%s is a map: write %s[*] for its values", at, at)
			}
			return nil, fmt.Errorf("%s has no field %q in the CRD's schema", at, seg)
		}
		s = &p
		at += "." + seg
	}
	return s, nil
}

// space builds the tree of a declared input space, checking every path
// and value against spec's schema. Errors name the option and the path.
func space(spec *structuralschema.Structural, o GenOptions) (*spaceNode, error) {
	root := &spaceNode{}
	var errs []error
	add := func(option, p string, set func(n *spaceNode, s *structuralschema.Structural) error) {
		path, err := parseSpacePath(p)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", option, err))
			return
		}
		s, err := resolve(spec, path)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s %q: %w", option, p, err))
			return
		}
		n := root
		for _, seg := range path {
			n = n.child(seg)
		}
		if err := set(n, s); err != nil {
			errs = append(errs, fmt.Errorf("%s %q: %w", option, p, err))
		}
	}
	for _, p := range o.Fields {
		add("Fields", p, func(n *spaceNode, _ *structuralschema.Structural) error {
			n.listed = true
			return nil
		})
	}
	for _, p := range sortedKeys(o.Pin) {
		add("Pin", p, func(n *spaceNode, s *structuralschema.Structural) error {
			v, err := jsonValue(o.Pin[p])
			if err != nil {
				return err
			}
			if err := admits(s, v); err != nil {
				return fmt.Errorf("the CRD's schema rejects the value %s: %w", jsonString(v), err)
			}
			n.listed, n.pinned, n.pin = true, true, v
			return nil
		})
	}
	for _, p := range sortedKeys(o.Ranges) {
		add("Ranges", p, func(n *spaceNode, s *structuralschema.Structural) error {
			r := o.Ranges[p]
			if err := checkRange(s, r); err != nil {
				return err
			}
			n.listed, n.rng = true, &r
			return nil
		})
	}
	for _, p := range sortedKeys(o.OneOf) {
		add("OneOf", p, func(n *spaceNode, s *structuralschema.Structural) error {
			vals, err := oneOf(s, o.OneOf[p])
			if err != nil {
				return err
			}
			n.listed, n.oneOf = true, vals
			return nil
		})
	}
	if len(errs) == 0 {
		errs = conflicts(root, "spec", false)
	}
	return root, errors.Join(errs...)
}

// conflicts returns an error for each field with two value constraints,
// and for each constraint inside a pinned field.
func conflicts(n *spaceNode, at string, inPin bool) []error {
	var errs []error
	k := 0
	for _, c := range []bool{n.pinned, n.rng != nil, n.oneOf != nil} {
		if c {
			k++
		}
	}
	switch {
	case k > 1:
		errs = append(errs, fmt.Errorf("%s has more than one of Pin, Ranges and OneOf", at))
	case inPin && k > 0:
		errs = append(errs, fmt.Errorf("%s is inside a pinned field, whose value is already fixed", at))
	}
	for _, seg := range sortedKeys(n.children) {
		sub := at + "." + seg
		if seg == "[*]" {
			sub = at + seg
		}
		errs = append(errs, conflicts(n.children[seg], sub, inPin || n.pinned)...)
	}
	return errs
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// jsonValue returns v as the JSON a client sends: Go numbers become int64
// (integers) or float64, structs and typed maps and slices their JSON.
func jsonValue(v any) (any, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("the value %v is not JSON: %w", v, err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var out any
	if err := dec.Decode(&out); err != nil {
		return nil, err
	}
	return numbers(out), nil
}

// numbers replaces the json.Numbers of a decoded value by int64 or
// float64.
func numbers(v any) any {
	switch v := v.(type) {
	case json.Number:
		if i, err := v.Int64(); err == nil {
			return i
		}
		f, _ := v.Float64()
		return f
	case map[string]any:
		for k, x := range v {
			v[k] = numbers(x)
		}
	case []any:
		for i, x := range v {
			v[i] = numbers(x)
		}
	}
	return v
}

// admits checks v against the schema of one field, as the API server's
// OpenAPI validation does (type, enum, bounds, pattern, format, lengths),
// and that an object holds only fields the schema declares, since the API
// server would prune the others. CEL rules are checked on whole specs
// (Specs checks the minimal one).
func admits(s *structuralschema.Structural, v any) error {
	validator := schemavalidation.NewSchemaValidatorFromOpenAPI(s.ToKubeOpenAPI())
	if errs := schemavalidation.ValidateCustomResource(nil, v, validator); len(errs) > 0 {
		return errs.ToAggregate()
	}
	return unknownFields(s, v, "")
}

// unknownFields returns an error naming the first field of v (in name
// order) that s neither declares nor preserves.
func unknownFields(s *structuralschema.Structural, v any, at string) error {
	switch v := v.(type) {
	case map[string]any:
		for _, k := range sortedKeys(v) {
			var sub *structuralschema.Structural
			if p, ok := s.Properties[k]; ok {
				sub = &p
			} else if ap := s.AdditionalProperties; ap != nil && ap.Structural != nil {
				sub = ap.Structural
			} else if s.XPreserveUnknownFields || (ap != nil && ap.Bool) {
				continue
			} else {
				return fmt.Errorf("unknown field %q", strings.TrimPrefix(at+"."+k, "."))
			}
			if err := unknownFields(sub, v[k], at+"."+k); err != nil {
				return err
			}
		}
	case []any:
		if s.Items == nil {
			return nil
		}
		for i, x := range v {
			if err := unknownFields(s.Items, x, fmt.Sprintf("%s[%d]", at, i)); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkRange checks that r is a range of s's values within its own
// bounds.
func checkRange(s *structuralschema.Structural, r Range) error {
	vv := s.ValueValidation
	if vv == nil {
		vv = &structuralschema.ValueValidation{}
	}
	switch {
	case len(vv.Enum) > 0:
		return errors.New("the field has an enum in the CRD: narrow it with OneOf")
	case s.XIntOrString || (s.Type != "integer" && s.Type != "number"):
		return fmt.Errorf("a range needs an integer or number field, and the field is %s (use OneOf)", typeName(s))
	case math.IsNaN(r.Min) || math.IsNaN(r.Max) || r.Min > r.Max:
		return fmt.Errorf("empty range [%v, %v]", r.Min, r.Max)
	}
	if s.Type == "integer" {
		if r.Min != math.Trunc(r.Min) || r.Max != math.Trunc(r.Max) {
			return fmt.Errorf("the field is an integer and the range [%v, %v] has an end that is not", r.Min, r.Max)
		}
		lo, hi, err := intRange(vv, "")
		if err != nil {
			return err
		}
		if r.Min < float64(lo) || r.Max > float64(hi) {
			return fmt.Errorf("the range [%v, %v] is not within the CRD's [%d, %d]", r.Min, r.Max, lo, hi)
		}
		return nil
	}
	if vv.Minimum != nil && (r.Min < *vv.Minimum || (vv.ExclusiveMinimum && r.Min == *vv.Minimum)) {
		return fmt.Errorf("the range [%v, %v] starts below the CRD's minimum %v%s", r.Min, r.Max, *vv.Minimum, exclusive(vv.ExclusiveMinimum))
	}
	if vv.Maximum != nil && (r.Max > *vv.Maximum || (vv.ExclusiveMaximum && r.Max == *vv.Maximum)) {
		return fmt.Errorf("the range [%v, %v] ends above the CRD's maximum %v%s", r.Min, r.Max, *vv.Maximum, exclusive(vv.ExclusiveMaximum))
	}
	return nil
}

func exclusive(b bool) string {
	if b {
		return " (exclusive)"
	}
	return ""
}

func typeName(s *structuralschema.Structural) string {
	switch {
	case s.XIntOrString:
		return "int-or-string"
	case s.Type == "":
		return "untyped"
	}
	return s.Type
}

// oneOf checks vals against s and returns them as JSON values, without
// repeats, followed by the CRD's default when they lack it: the API
// server fills the default in whenever the field is absent, so it is
// part of the space whatever the enum says.
func oneOf(s *structuralschema.Structural, vals []any) ([]any, error) {
	if len(vals) == 0 {
		return nil, errors.New("no values")
	}
	if s.Type == "object" || s.Type == "array" {
		return nil, fmt.Errorf("OneOf narrows scalar fields, and the field is an %s (use Pin or Fields below it)", s.Type)
	}
	var out []any
	seen := map[string]bool{}
	for _, x := range vals {
		v, err := jsonValue(x)
		if err != nil {
			return nil, err
		}
		if err := admits(s, v); err != nil {
			return nil, fmt.Errorf("the CRD's schema rejects the value %s: %w", jsonString(v), err)
		}
		if k := jsonString(v); !seen[k] {
			seen[k] = true
			out = append(out, v)
		}
	}
	if d := s.Default.Object; d != nil && !seen[jsonString(d)] {
		out = append(out, runtime.DeepCopyJSONValue(d))
	}
	return out, nil
}

// narrow returns a copy of spec's schema that draws only the declared
// space: listed fields (and those below them) as the schema says, the
// ancestors of listed fields with only the listed ones and their required
// siblings, required fields not listed at their minimal value, other
// fields never; pinned fields at their value, always present; ranges and
// enums as declared. Without Fields, every field is drawn. The API
// server's validation of the candidates still uses the CRD's own schema.
//
// With a target (tgt, the target's spec; GenOptions.Target), an ancestor
// of named fields that the target has is always drawn, so that keep can
// merge the target's fields into it, and a map list whose keys are not
// named is drawn as a plain list: its keys are the target's, made
// distinct by keep (the draw's would all be minimal, and equal).
func (b *genBuilder) narrow(spec *structuralschema.Structural, tree *spaceNode, filter bool, tgt map[string]any) (*structuralschema.Structural, error) {
	s := spec.DeepCopy()
	var tgts []any
	if tgt != nil {
		tgts = []any{tgt}
	}
	return s, b.narrowNode(s, tree, "spec", filter, tgt != nil, tgts)
}

// narrowNode narrows s, the schema at at, to the space n; tgts are the
// target's values at at (every item's, below a list), when withTarget.
func (b *genBuilder) narrowNode(s *structuralschema.Structural, n *spaceNode, at string, filter, withTarget bool, tgts []any) error {
	if n.listed {
		filter = false
	}
	vv := s.ValueValidation
	if n.constrained() && vv == nil {
		vv = &structuralschema.ValueValidation{}
		s.ValueValidation = vv
	}
	switch {
	case n.pinned:
		vv.Enum = []structuralschema.JSON{{Object: n.pin}}
		s.Default.Object = nil
		return nil
	case n.rng != nil:
		vv.Minimum, vv.Maximum = &n.rng.Min, &n.rng.Max
		vv.ExclusiveMinimum, vv.ExclusiveMaximum = false, false
	case n.oneOf != nil:
		// The enum holds the default (oneOf): drawn from it, the
		// default is one value among the others.
		vv.Enum = make([]structuralschema.JSON, len(n.oneOf))
		for i, v := range n.oneOf {
			vv.Enum[i] = structuralschema.JSON{Object: v}
		}
		s.Default.Object = nil
	}
	if c := n.children["[*]"]; c != nil {
		sub := s.Items
		if sub == nil {
			sub = s.AdditionalProperties.Structural
		}
		if filter && s.XListType != nil && *s.XListType == "map" {
			switch {
			case withTarget && !c.listed && slices.ContainsFunc(s.XListMapKeys, func(k string) bool {
				return c.children[k] == nil || !c.children[k].listed
			}):
				s.XListType = nil
			case !withTarget:
				// The keys of a map list are drawn whole: at their
				// minimal value, every item would have the same key,
				// and the list would hold one item at most.
				for _, k := range s.XListMapKeys {
					c.child(k).listed = true
				}
			}
		}
		if err := b.narrowNode(sub, c, at+"[*]", filter, withTarget, targetItems(tgts)); err != nil {
			return err
		}
	}
	if len(s.Properties) == 0 {
		return nil
	}
	required := map[string]bool{}
	if vv != nil {
		for _, r := range vv.Required {
			required[r] = true
		}
	}
	for _, name := range sortedKeys(s.Properties) {
		p := s.Properties[name]
		switch c := n.children[name]; {
		case c != nil:
			if err := b.narrowNode(&p, c, at+"."+name, filter, withTarget, targets(tgts, name)); err != nil {
				return err
			}
			keptAncestor := filter && !c.listed && len(targets(tgts, name)) > 0
			if (c.carriesPin() || keptAncestor) && !required[name] {
				if vv == nil {
					vv = &structuralschema.ValueValidation{}
					s.ValueValidation = vv
				}
				vv.Required = append(vv.Required, name)
				required[name] = true
			}
		case !filter:
			continue
		case required[name]:
			// Required yet not listed: its minimal value, so that the
			// spec passes the CRD.
			v, err := b.minimal(&p, at+"."+name)
			if err != nil {
				return err
			}
			p = structuralschema.Structural{Generic: structuralschema.Generic{Type: p.Type, Nullable: p.Nullable},
				ValueValidation: &structuralschema.ValueValidation{Enum: []structuralschema.JSON{{Object: v}}}}
		default:
			delete(s.Properties, name)
			continue
		}
		s.Properties[name] = p
	}
	return nil
}
