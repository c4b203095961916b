package model

import (
	"cmp"
	"fmt"
	"iter"
	"slices"
	"strconv"
	"strings"
)

// Labels holds an object's labels, and its annotations under
// AnnotationLabelPrefix: string keys with a string value each.
//
// Labels is a value, as Fields is: it is never changed in place. With and
// Without return new labels and leave the ones they are called on as they
// were, so copies (of an object, of its Labels) share their memory until
// one of them is given new labels, and a copy costs nothing. The zero value
// holds no labels; no labels and empty labels are the same. Build labels
// from a literal with NewLabels:
//
//	o.Labels = model.NewLabels(map[string]string{"app": "web"})
//	o.Labels = o.Labels.With("tier", "front")
type Labels struct {
	// kv is sorted by key, holds each key once, and is never modified once
	// built.
	kv []label
}

type label struct{ key, value string }

func byKey(a, b label) int { return cmp.Compare(a.key, b.key) }

// NewLabels returns labels holding m's keys and values.
func NewLabels(m map[string]string) Labels {
	if len(m) == 0 {
		return Labels{}
	}
	kv := make([]label, 0, len(m))
	for k, v := range m {
		kv = append(kv, label{k, v})
	}
	slices.SortFunc(kv, byKey)
	return Labels{kv: kv}
}

// MetadataLabels returns the labels of an object whose metadata has these
// labels and annotations: each label under its key, each annotation under
// AnnotationLabelPrefix and its name. It builds the pairs directly, for
// converters from Kubernetes metadata. A label key that starts with
// AnnotationLabelPrefix is an error: it is not a valid label key, and it
// would be taken for an annotation.
func MetadataLabels(labels, annotations map[string]string) (Labels, error) {
	n := len(labels) + len(annotations)
	if n == 0 {
		return Labels{}, nil
	}
	kv := make([]label, 0, n)
	for k, v := range labels {
		if strings.HasPrefix(k, AnnotationLabelPrefix) {
			return Labels{}, fmt.Errorf("label key %q is not valid (and its prefix is reserved for annotations)", k)
		}
		kv = append(kv, label{k, v})
	}
	for k, v := range annotations {
		kv = append(kv, label{AnnotationLabelPrefix + k, v})
	}
	slices.SortFunc(kv, byKey) // keys are distinct: map keys, labels' without the prefix
	return Labels{kv: kv}, nil
}

// find returns where key is, or would be, and whether it is there.
func (l Labels) find(key string) (int, bool) {
	return slices.BinarySearchFunc(l.kv, key, func(e label, k string) int { return cmp.Compare(e.key, k) })
}

// Get returns the value of key; ok is false when it is absent.
func (l Labels) Get(key string) (v string, ok bool) {
	if i, ok := l.find(key); ok {
		return l.kv[i].value, true
	}
	return "", false
}

// Value returns the value of key, or "" when it is absent.
func (l Labels) Value(key string) string {
	v, _ := l.Get(key)
	return v
}

// Has reports whether key is present.
func (l Labels) Has(key string) bool {
	_, ok := l.find(key)
	return ok
}

// Len returns the number of keys.
func (l Labels) Len() int { return len(l.kv) }

// All yields every key and its value, in key order.
func (l Labels) All() iter.Seq2[string, string] {
	return func(yield func(string, string) bool) {
		for _, e := range l.kv {
			if !yield(e.key, e.value) {
				return
			}
		}
	}
}

// Map returns the labels as a new map, nil when there are none.
func (l Labels) Map() map[string]string {
	if len(l.kv) == 0 {
		return nil
	}
	m := make(map[string]string, len(l.kv))
	for _, e := range l.kv {
		m[e.key] = e.value
	}
	return m
}

// With returns the labels with key set to v; l is unchanged. It returns l
// itself when key already holds v.
func (l Labels) With(key, v string) Labels {
	i, ok := l.find(key)
	if ok {
		if l.kv[i].value == v {
			return l
		}
		kv := slices.Clone(l.kv)
		kv[i].value = v
		return Labels{kv: kv}
	}
	kv := make([]label, len(l.kv)+1)
	copy(kv, l.kv[:i])
	kv[i] = label{key, v}
	copy(kv[i+1:], l.kv[i:])
	return Labels{kv: kv}
}

// Without returns the labels without key; l is unchanged. It returns l
// itself when key is absent.
func (l Labels) Without(key string) Labels {
	i, ok := l.find(key)
	if !ok {
		return l
	}
	if len(l.kv) == 1 {
		return Labels{}
	}
	kv := make([]label, 0, len(l.kv)-1)
	kv = append(kv, l.kv[:i]...)
	return Labels{kv: append(kv, l.kv[i+1:]...)}
}

// Equal reports whether l and m hold the same keys and values.
func (l Labels) Equal(m Labels) bool { return equalSorted(l.kv, m.kv) }

// String renders the labels as {a: "1", b: "x"} in key order.
func (l Labels) String() string {
	var b strings.Builder
	b.WriteByte('{')
	for i, e := range l.kv {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(e.key)
		b.WriteString(": ")
		b.WriteString(strconv.Quote(e.value))
	}
	b.WriteByte('}')
	return b.String()
}
