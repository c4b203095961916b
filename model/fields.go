package model

import (
	"cmp"
	"fmt"
	"iter"
	"slices"
	"strconv"
	"strings"
)

// Fields holds the spec or status of an object: field paths
// ("replicas", "template.labels.app") with a scalar each, an int64, a
// string or a bool. The API server normalises Go ints to int64 and rejects
// other types, so two Fields compare equal exactly when they hold the same
// values.
//
// Fields is a value: it is never changed in place. Set and Delete give the
// variable they are called on a new set of fields, so copies (of an object,
// of its Fields) share their memory until one of them is written, and a
// copy costs nothing. The zero value holds no fields. Build one from a
// literal with NewFields.
type Fields struct {
	// kv is sorted by path and never modified once built.
	kv []field
}

type field struct {
	path  string
	value any
}

// Values is the literal form of Fields, for NewFields:
//
//	model.NewFields(model.Values{"replicas": int64(3), "selector.app": "web"})
type Values map[string]any

// NewFields returns fields holding v's paths and values.
func NewFields(v Values) Fields {
	if len(v) == 0 {
		return Fields{}
	}
	kv := make([]field, 0, len(v))
	for p, x := range v {
		kv = append(kv, field{p, x})
	}
	slices.SortFunc(kv, func(a, b field) int { return cmp.Compare(a.path, b.path) })
	return Fields{kv: kv}
}

// FieldsBuilder makes Fields from paths set one at a time, as an encoder
// walking a value finds them, without the map NewFields is given: the
// pairs are appended and sorted once. The zero value is empty and ready.
type FieldsBuilder struct{ kv []field }

// Set sets path to v; of two Sets of one path the later wins, as in a
// Values literal.
func (b *FieldsBuilder) Set(path string, v any) { b.kv = append(b.kv, field{path, v}) }

// Grow makes room for n more Sets without growing again.
func (b *FieldsBuilder) Grow(n int) { b.kv = slices.Grow(b.kv, n) }

// Len returns how many Sets the builder holds.
func (b *FieldsBuilder) Len() int { return len(b.kv) }

// Fields returns the fields set so far, as NewFields would of the same
// Values, and empties the builder.
func (b *FieldsBuilder) Fields() Fields {
	kv := b.kv
	b.kv = nil
	if len(kv) == 0 {
		return Fields{}
	}
	byPath := func(a, b field) int { return cmp.Compare(a.path, b.path) }
	if slices.IsSortedFunc(kv, byPath) {
		// Sorted, but a path set twice is kept once, its last value.
		for i := 1; i < len(kv); i++ {
			if kv[i].path == kv[i-1].path {
				return Fields{kv: lastOfEach(kv)}
			}
		}
		return Fields{kv: kv}
	}
	slices.SortStableFunc(kv, byPath)
	return Fields{kv: lastOfEach(kv)}
}

// lastOfEach keeps, of each run of equal paths in kv (sorted stably), the
// last, in place.
func lastOfEach(kv []field) []field {
	out := kv[:0]
	for i, e := range kv {
		if i+1 < len(kv) && kv[i+1].path == e.path {
			continue
		}
		out = append(out, e)
	}
	return out
}

// find returns where path is, or would be, and whether it is there.
func (f Fields) find(path string) (int, bool) {
	return slices.BinarySearchFunc(f.kv, path, func(e field, p string) int { return cmp.Compare(e.path, p) })
}

// Get returns the value at path; ok is false when it is absent.
func (f Fields) Get(path string) (v any, ok bool) {
	if i, ok := f.find(path); ok {
		return f.kv[i].value, true
	}
	return nil, false
}

// Value returns the value at path, or nil when it is absent.
func (f Fields) Value(path string) any {
	v, _ := f.Get(path)
	return v
}

// Has reports whether path holds a value.
func (f Fields) Has(path string) bool {
	_, ok := f.find(path)
	return ok
}

// Int returns the integer at path, or 0 when it is absent.
func (f Fields) Int(path string) int64 {
	v, _ := f.Value(path).(int64)
	return v
}

// Str returns the string at path, or "" when it is absent.
func (f Fields) Str(path string) string {
	v, _ := f.Value(path).(string)
	return v
}

// Bool returns the boolean at path, or false when it is absent.
func (f Fields) Bool(path string) bool {
	v, _ := f.Value(path).(bool)
	return v
}

// Len returns the number of paths.
func (f Fields) Len() int { return len(f.kv) }

// All yields every path and its value, in path order.
func (f Fields) All() iter.Seq2[string, any] {
	return func(yield func(string, any) bool) {
		for _, e := range f.kv {
			if !yield(e.path, e.value) {
				return
			}
		}
	}
}

// Paths returns the field paths in sorted order.
func (f Fields) Paths() []string {
	out := make([]string, len(f.kv))
	for i, e := range f.kv {
		out[i] = e.path
	}
	return out
}

// Set sets the value at path. f's variable gets new fields; other copies
// keep theirs.
func (f *Fields) Set(path string, v any) {
	i, ok := f.find(path)
	if ok {
		if f.kv[i].value == v {
			return
		}
		kv := slices.Clone(f.kv)
		kv[i].value = v
		f.kv = kv
		return
	}
	kv := make([]field, len(f.kv)+1)
	copy(kv, f.kv[:i])
	kv[i] = field{path, v}
	copy(kv[i+1:], f.kv[i:])
	f.kv = kv
}

// Delete removes path. f's variable gets new fields; other copies keep
// theirs.
func (f *Fields) Delete(path string) {
	i, ok := f.find(path)
	if !ok {
		return
	}
	if len(f.kv) == 1 {
		f.kv = nil
		return
	}
	kv := make([]field, 0, len(f.kv)-1)
	kv = append(kv, f.kv[:i]...)
	f.kv = append(kv, f.kv[i+1:]...)
}

// Equal reports whether f and g hold the same paths and values.
func (f Fields) Equal(g Fields) bool { return equalSorted(f.kv, g.kv) }

// equalSorted reports whether two sorted pair slices hold the same pairs:
// Fields and Labels share their backing array between copies, so a
// shared one is equal without a walk.
func equalSorted[E comparable](a, b []E) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) == 0 || &a[0] == &b[0] {
		return true
	}
	for i, e := range a {
		if e != b[i] {
			return false
		}
	}
	return true
}

// String renders the fields as {a: 1, b: "x"} in path order.
func (f Fields) String() string {
	var b strings.Builder
	b.WriteByte('{')
	for i, e := range f.kv {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(e.path)
		b.WriteString(": ")
		b.WriteString(FormatValue(e.value))
	}
	b.WriteByte('}')
	return b.String()
}

// FormatValue renders a field value: integers and booleans plainly, strings
// quoted, an absent value as <none>.
func FormatValue(v any) string {
	switch v := v.(type) {
	case nil:
		return "<none>"
	case string:
		return strconv.Quote(v)
	default:
		return fmt.Sprint(v)
	}
}

// normalize converts Go integer types to int64 and rejects anything that is
// not a scalar. It returns the fields themselves when they are already
// normal (the common case, which allocates nothing).
func (f Fields) normalize(where string) (Fields, error) {
	if f.normal() {
		return f, nil
	}
	kv := make([]field, len(f.kv))
	for i, e := range f.kv { // sorted, so that the error is always the same one
		switch v := e.value.(type) {
		case int64, string, bool:
			kv[i] = e
		case int:
			kv[i] = field{e.path, int64(v)}
		case int32:
			kv[i] = field{e.path, int64(v)}
		case int16:
			kv[i] = field{e.path, int64(v)}
		case int8:
			kv[i] = field{e.path, int64(v)}
		case uint32:
			kv[i] = field{e.path, int64(v)}
		case uint16:
			kv[i] = field{e.path, int64(v)}
		case uint8:
			kv[i] = field{e.path, int64(v)}
		default:
			return Fields{}, fmt.Errorf("%s.%s: unsupported value type %T (use int64, string or bool)", where, e.path, v)
		}
	}
	return Fields{kv: kv}, nil
}

// normal reports whether every value is an int64, string or bool.
func (f Fields) normal() bool {
	for _, e := range f.kv {
		switch e.value.(type) {
		case int64, string, bool:
		default:
			return false
		}
	}
	return true
}
