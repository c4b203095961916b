package crd

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
)

// The target of a declared input space (GenOptions.Target): the drawn
// specs start from it, and only the fields the space names are drawn
// (docs/design.md, "A declared input space").

// names reports whether opts name fields to draw: Fields, Ranges and
// OneOf do; Pin fixes a field and names none.
func (o GenOptions) names() bool {
	return len(o.Fields) > 0 || len(o.Ranges) > 0 || len(o.OneOf) > 0
}

// targetSpec returns the spec of o.Target as JSON, pruned of the
// fields the CRD does not declare (as the API server would), and checks
// that the CRD admits it.
func (v *Version) targetSpec(o GenOptions) (map[string]any, error) {
	if !o.names() {
		return nil, errors.New("no field is named to draw (Fields, Ranges or OneOf): every spec would be the target's")
	}
	obj, err := jsonValue(o.Target)
	if err != nil {
		return nil, err
	}
	m, ok := obj.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("want an object with a spec, got %s", jsonString(obj))
	}
	spec, ok := m["spec"].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("the object has no spec (give the whole object, as the sample the operator ships): %s", jsonString(obj))
	}
	u := map[string]any{"spec": spec}
	structuralpruning.Prune(u, v.structural, true)
	spec, _ = u["spec"].(map[string]any)
	if spec == nil {
		spec = map[string]any{}
	}
	if errs := v.validateSpec(spec); len(errs) > 0 {
		return nil, fmt.Errorf("the CRD rejects the target's spec %s: %w", jsonString(spec), errs.ToAggregate())
	}
	return spec, nil
}

// targets returns the values of the property name in each of vals that
// is an object holding it.
func targets(vals []any, name string) []any {
	var out []any
	for _, v := range vals {
		if m, ok := v.(map[string]any); ok {
			if x, ok := m[name]; ok {
				out = append(out, x)
			}
		}
	}
	return out
}

// targetItems returns the items of the lists and the values of the maps
// among vals.
func targetItems(vals []any) []any {
	var out []any
	for _, v := range vals {
		switch v := v.(type) {
		case []any:
			out = append(out, v...)
		case map[string]any:
			for _, k := range sortedKeys(v) {
				out = append(out, v[k])
			}
		}
	}
	return out
}

// keep returns the drawn value of an ancestor of named fields (n, not
// listed, s its schema in the CRD, field its property name) with the
// target's value tgt in every field the space does not name: a named
// field (listed, pinned, ranged, of an enum) is the drawn one, present
// or not; an ancestor is merged again; any other field is the target's,
// or the drawn one (its minimal value when required, else unset) when
// the target lacks it.
//
// A list's item i is merged with the target's item i; items past the
// target's length with its last item. The items of a keyed list must
// differ by their keys (listKeys): an item whose keys repeat an earlier
// item's gets its first string key suffixed ("workers-2"), and one past
// the target's length with no string key to make distinct is left out,
// so that the list keeps the target's length. A map's keys are drawn:
// each drawn value is merged with the target's value of its key.
func keep(n *spaceNode, s *structuralschema.Structural, field string, tgt, drawn any) any {
	if n.listed {
		return drawn
	}
	switch d := drawn.(type) {
	case map[string]any:
		tm, _ := tgt.(map[string]any)
		out := make(map[string]any, len(d)+len(tm))
		if c := n.children["[*]"]; c != nil && len(s.Properties) == 0 && s.AdditionalProperties != nil && s.AdditionalProperties.Structural != nil {
			for k, x := range d {
				if c.listed {
					out[k] = x
					continue
				}
				out[k] = keep(c, s.AdditionalProperties.Structural, k, tm[k], x)
			}
			return out
		}
		for k, x := range d {
			c := n.children[k]
			p, known := s.Properties[k]
			switch {
			case c != nil && !c.listed && known:
				out[k] = keep(c, &p, k, tm[k], x)
			default:
				out[k] = x
			}
		}
		for k, x := range tm {
			if n.children[k] == nil {
				out[k] = copyJSON(x)
			}
		}
		return out
	case []any:
		c := n.children["[*]"]
		if c == nil || c.listed || s.Items == nil {
			return d
		}
		tl, _ := tgt.([]any)
		out := make([]any, 0, len(d))
		for i, x := range d {
			var ti any
			switch {
			case i < len(tl):
				ti = tl[i]
			case len(tl) > 0:
				ti = tl[len(tl)-1]
			}
			out = append(out, keep(c, s.Items, "", ti, x))
		}
		return distinctKeys(out, listKeys(s, field), len(tl))
	}
	return drawn
}

// listKeys returns the fields that tell a list's items apart: the keys of
// a map list (x-kubernetes-list-map-keys); else, of a list of objects, a
// string property "name", or one named after the list ("groupName" of
// "workerGroupSpecs"); none for other lists.
func listKeys(s *structuralschema.Structural, field string) []string {
	if s.XListType != nil && *s.XListType == "map" {
		return s.XListMapKeys
	}
	if s.Items == nil || len(s.Items.Properties) == 0 {
		return nil
	}
	if p, ok := s.Items.Properties["name"]; ok && p.Type == "string" {
		return []string{"name"}
	}
	list := strings.ToLower(field)
	for _, name := range sortedKeys(s.Items.Properties) {
		stem, ok := strings.CutSuffix(name, "Name")
		if ok && stem != "" && s.Items.Properties[name].Type == "string" && strings.Contains(list, strings.ToLower(stem)) {
			return []string{name}
		}
	}
	return nil
}

// distinctKeys makes the keys of items differ (see keep): an item whose
// keys repeat an earlier one's gets its first string key suffixed "-2",
// "-3", … until they differ; one at or past index length that has no
// string key is left out.
func distinctKeys(items []any, keys []string, length int) []any {
	if len(keys) == 0 {
		return items
	}
	seen := map[string]bool{}
	keyOf := func(m map[string]any) string {
		k := make([]any, len(keys))
		for i, name := range keys {
			k[i] = m[name]
		}
		return jsonString(k)
	}
	out := items[:0:0]
	for i, it := range items {
		m, ok := it.(map[string]any)
		if !ok {
			out = append(out, it)
			continue
		}
		if !seen[keyOf(m)] {
			seen[keyOf(m)] = true
			out = append(out, it)
			continue
		}
		at := slices.IndexFunc(keys, func(name string) bool { _, ok := m[name].(string); return ok })
		if at < 0 {
			if i < length {
				out = append(out, it) // the draw's own: validation decides
			}
			continue
		}
		base, _ := m[keys[at]].(string)
		if base == "" {
			base = "item"
		}
		for j := 2; seen[keyOf(m)]; j++ {
			m[keys[at]] = base + "-" + strconv.Itoa(j)
		}
		seen[keyOf(m)] = true
		out = append(out, m)
	}
	return out
}
