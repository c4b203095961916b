package model

import (
	"slices"
	"strconv"
	"strings"
)

// Selector is an equality-based label selector (matchLabels): an object
// matches when every key/value pair is among its labels. A nil or empty
// Selector matches everything.
type Selector map[string]string

// Matches reports whether labels satisfy the selector.
func (s Selector) Matches(labels Labels) bool {
	for k, v := range s {
		if w, ok := labels.Get(k); !ok || w != v {
			return false
		}
	}
	return true
}

// String renders the selector as "a=1,b=2" in key order.
func (s Selector) String() string {
	pairs := make([]string, 0, len(s))
	for k, v := range s {
		pairs = append(pairs, k+"="+v)
	}
	slices.Sort(pairs)
	return strings.Join(pairs, ",")
}

// SpecSelector returns the label selector in an object's spec. It is the
// one reader of that convention: the eviction API, the reference
// controllers and the diagnoses all use it, so they agree on which objects
// a selector covers. It reads the spec's "selector.matchLabels.<key>"
// entries (a metav1.LabelSelector, as a ReplicaSet, a Deployment, a Job or
// a PodDisruptionBudget has it), or else its "selector.<key>" entries (a
// plain map, as a Service has it and the model's own controllers use). A
// key that is not an identifier may be quoted in brackets:
// `selector.matchLabels["app.kubernetes.io/name"]`. ok is false when the
// spec has no selector, an empty one, or one with matchExpressions, which
// an equality-based Selector cannot state.
func SpecSelector(o *Object) (sel Selector, ok bool) {
	var labels, plain Selector
	for path, v := range o.Spec.All() {
		if strings.HasPrefix(path, selectorExpressions) {
			return nil, false
		}
		value, isString := v.(string)
		if k, ok := KeyUnder(path, selectorMatchLabels); ok && isString {
			labels = labels.with(k, value)
		} else if k, ok := KeyUnder(path, selectorRoot); ok && isString {
			plain = plain.with(k, value)
		}
	}
	switch {
	case len(labels) > 0:
		return labels, true
	case len(plain) > 0:
		return plain, true
	}
	return nil, false
}

// The spec paths of a workload's selector (SpecSelector).
const (
	selectorRoot        = "selector"
	selectorMatchLabels = "selector.matchLabels"
	selectorExpressions = "selector.matchExpressions"
)

// SpecSelectorLabels returns the labels SpecSelector's selector holds, ok
// as SpecSelector's: the labels a workload gives the pods it creates. It
// builds the sorted pairs directly, without the map: a ReplicaSet's
// controller builds them for every pod it creates (BENCHMARKS.md, "Sixth
// round"). Of two paths naming one key (".app" and "[\"app\"]") the later
// in path order wins, as in SpecSelector.
func SpecSelectorLabels(o *Object) (Labels, bool) {
	var labels, plain []label
	for path, v := range o.Spec.All() {
		if strings.HasPrefix(path, selectorExpressions) {
			return Labels{}, false
		}
		value, isString := v.(string)
		if k, ok := KeyUnder(path, selectorMatchLabels); ok && isString {
			labels = append(labels, label{k, value})
		} else if k, ok := KeyUnder(path, selectorRoot); ok && isString {
			plain = append(plain, label{k, value})
		}
	}
	kv := labels
	if len(kv) == 0 {
		kv = plain
	}
	if len(kv) == 0 {
		return Labels{}, false
	}
	slices.SortStableFunc(kv, byKey)
	// Keep the last of each run of equal keys, in place.
	out := kv[:0]
	for i, l := range kv {
		if i+1 < len(kv) && kv[i+1].key == l.key {
			continue
		}
		out = append(out, l)
	}
	return Labels{kv: out}, true
}

// with sets key k to v, making the selector first if it is nil.
func (s Selector) with(k, v string) Selector {
	if s == nil {
		s = Selector{}
	}
	s[k] = v
	return s
}

// KeyUnder returns the key of a field path prefix.key or prefix["key"]
// (the adapter's form for a key with dots or slashes): the label or
// annotation a path under a map of them names. ok is false for a path not
// under prefix.
func KeyUnder(path, prefix string) (key string, ok bool) {
	rest, ok := strings.CutPrefix(path, prefix)
	if !ok || rest == "" {
		return "", false
	}
	switch rest[0] {
	case '.':
		return rest[1:], len(rest) > 1
	case '[':
		q, err := strconv.QuotedPrefix(rest[1:])
		if err != nil || rest[1+len(q):] != "]" {
			return "", false
		}
		k, err := strconv.Unquote(q)
		return k, err == nil
	}
	return "", false
}
