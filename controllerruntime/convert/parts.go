package convert

import (
	"math"
	"reflect"
	"sync"
	"time"

	"github.com/converge-sim/converge/model"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/structured-merge-diff/v6/value"
)

// Decoding an object afresh (Unflatten's maps, then the plan) is the
// costliest step of a read, and most of what a cluster decodes it has
// decoded before: the result of a write is what the writer sent plus what
// the server set, a status update leaves the spec as it was, and the pods
// of one template have one spec. So FromModel decodes the spec and the
// status of an object separately, and keeps the typed form of the last
// few of each by their whole model content.
//
// That is sound because, for a kind whose body is a spec, the typed spec
// is a function of the model Spec alone (FromModel decodes it from
// Unflatten(Spec), nothing else), and the typed status of the model Status
// alone; metadata is set field by field afterwards. An entry is found only
// by Fields.Equal with its key: the same paths with the same values. A
// write that the server changed (a default, a mutating admission, a
// generation or status it set) stores other fields, which find another
// entry or none, so an entry can never stand for content it was not
// decoded from, in any cluster. Entries are never handed out: a reader
// gets a deep copy (the part type's DeepCopyInto), so a reader that
// modifies what it read changes nothing another reader gets
// (TestPartsAreDecodedByContent).

// partEntries is how many decoded contents of one part of one type the
// converter keeps, the most recently used first.
const partEntries = 8

// partPlan decodes and copies one part (spec or status) of an object
// type: the struct field that holds it.
type partPlan struct {
	index int
	dec   *decodePlan
	// copyInto deep-copies a part (both arguments pointers to the part
	// type): its DeepCopyInto, or an assignment for a type without one
	// that refers to nothing (plainCopy); nil for any other type, whose
	// decodes are not kept.
	copyInto func(src, dst reflect.Value)
	// rt makes a part a write sent as decoding its encoding would
	// (roundtrip.go); nil for a type it does not cover.
	rt *rtPlan
	// mu guards kept, newest first; a kept value is never modified.
	mu   sync.Mutex
	kept []partEntry
}

type partEntry struct {
	fields model.Fields
	value  reflect.Value // a pointer to the part type
}

// objectParts holds the part plans of an object type whose body is a
// spec; status is nil for a type without one.
type objectParts struct {
	spec, status *partPlan
}

// partsOf returns the part plans of object type t, building them on first
// use; nil for a type whose parts FromModel does not decode separately:
// one that converts itself, or whose top level inlines a pointer (always
// allocated by a whole decode), or whose spec or status is not a plain
// field with a decoding plan.
func (c *Converter) partsOf(t reflect.Type) *objectParts {
	c.plans.mu.Lock()
	defer c.plans.mu.Unlock()
	if p, ok := c.plans.parts[t]; ok {
		return p
	}
	p := buildParts(t)
	if c.plans.parts == nil {
		c.plans.parts = map[reflect.Type]*objectParts{}
	}
	c.plans.parts[t] = p
	return p
}

func buildParts(t reflect.Type) *objectParts {
	if t.Kind() != reflect.Struct || value.TypeReflectEntryOf(t).CanConvertFromUnstructured() {
		return nil
	}
	names := planBuilder{namesOnly: true}
	members, err := names.members(t)
	if err != nil || names.dash {
		return nil
	}
	b := decodeBuilder{types: map[reflect.Type]*decodePlan{}}
	p := &objectParts{}
	for _, m := range members {
		if m.inline != nil && m.ptr {
			return nil
		}
		if m.name != "spec" && m.name != "status" {
			continue
		}
		if m.inline != nil {
			return nil
		}
		ft := t.Field(m.index).Type
		dec, err := b.plan(ft)
		if err != nil {
			return nil
		}
		pp := &partPlan{index: m.index, dec: dec, rt: roundTripOf(ft, &b)}
		if method, ok := reflect.PointerTo(ft).MethodByName("DeepCopyInto"); ok && ft.Kind() == reflect.Struct &&
			method.Type.NumIn() == 2 && method.Type.In(1) == reflect.PointerTo(ft) && method.Type.NumOut() == 0 {
			pp.copyInto = func(src, dst reflect.Value) { method.Func.Call([]reflect.Value{src, dst}) }
		} else if !ok && plainCopy && refersToNothing(ft, 0) {
			pp.copyInto = func(src, dst reflect.Value) { dst.Elem().Set(src.Elem()) }
		}
		if m.name == "spec" {
			p.spec = pp
		} else {
			p.status = pp
		}
	}
	if p.spec == nil {
		return nil
	}
	return p
}

// plainCopy is false only in the test that checks that keeping the
// decodes of parts that refer to nothing gives the traces a decode each
// time gives (TestFastPathsGiveTheSameTraces, through SetPlainCopy).
var plainCopy = true

// SetPlainCopy turns on or off the assignment copy of part types without
// a DeepCopyInto that refer to nothing (a spec of plain numbers and
// strings, as the memcached sample's); it applies to the part plans built
// after it, and returns the setting it replaced. For tests.
func SetPlainCopy(on bool) (was bool) {
	was, plainCopy = plainCopy, on
	return was
}

// refersToNothing reports whether a value of type t holds no pointer,
// map, slice, interface, channel or func, at any depth: an assignment
// copies it whole, as a deep copy would, and no reader can reach a kept
// value through it. Strings count as values: they cannot be modified.
func refersToNothing(t reflect.Type, depth int) bool {
	if depth > maxDepth {
		return false
	}
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128, reflect.String:
		return true
	case reflect.Array:
		return refersToNothing(t.Elem(), depth+1)
	case reflect.Struct:
		for i := range t.NumField() {
			if !refersToNothing(t.Field(i).Type, depth+1) {
				return false
			}
		}
		return true
	}
	return false
}

// decodeParts fills v, a zero object of a kind whose body is a spec, from
// spec and status as a whole decode of body(mo) would; an error means
// the whole decode is to be tried (it names the error, or declines the
// plan as FromModel does). With share, v's parts are the kept decodes
// themselves rather than copies (FromModelShared).
func (p *objectParts) decodeParts(spec, status model.Fields, v reflect.Value, share bool) error {
	if err := p.spec.decode(spec, v.Field(p.spec.index), share); err != nil {
		return err
	}
	if status.Len() == 0 {
		return nil
	}
	if p.status == nil {
		return errCannotDecode // the whole decode ignores it; so be it there
	}
	return p.status.decode(status, v.Field(p.status.index), share)
}

// decode sets dv, the zero part, from f: a copy of a kept decode of the
// same content, or a fresh decode, kept. With share, dv is set to the kept
// decode itself, a shallow copy of it that shares all it refers to: no
// deep copy is made, on a hit or a miss.
func (pp *partPlan) decode(f model.Fields, dv reflect.Value, share bool) error {
	if f.Len() == 0 {
		return nil // body(mo) has no such key
	}
	if hit := pp.lookup(f); hit.IsValid() {
		if share {
			dv.Set(hit.Elem())
		} else {
			pp.copyInto(hit, dv.Addr())
		}
		return nil
	}
	u, err := Unflatten(f)
	if err != nil {
		return err
	}
	if share && pp.copyInto != nil {
		kept := reflect.New(dv.Type())
		if err := pp.dec.dec(u, kept.Elem()); err != nil {
			return err
		}
		pp.keep(f, kept)
		dv.Set(kept.Elem())
		return nil
	}
	if err := pp.dec.dec(u, dv); err != nil {
		return err
	}
	if pp.copyInto != nil {
		kept := reflect.New(dv.Type())
		pp.copyInto(dv.Addr(), kept)
		pp.keep(f, kept)
	}
	return nil
}

// lookup returns the kept decode of content f, moved to the front, or the
// zero Value.
func (pp *partPlan) lookup(f model.Fields) reflect.Value {
	if pp.copyInto == nil {
		return reflect.Value{}
	}
	pp.mu.Lock()
	defer pp.mu.Unlock()
	for i, e := range pp.kept {
		if e.fields.Equal(f) {
			copy(pp.kept[1:i+1], pp.kept[:i])
			pp.kept[0] = e
			return e.value
		}
	}
	return reflect.Value{}
}

// keep puts a decode of content f at the front, dropping the least
// recently used beyond partEntries.
func (pp *partPlan) keep(f model.Fields, v reflect.Value) {
	pp.mu.Lock()
	defer pp.mu.Unlock()
	if len(pp.kept) < partEntries {
		pp.kept = append(pp.kept, partEntry{})
	}
	copy(pp.kept[1:], pp.kept[:len(pp.kept)-1])
	pp.kept[0] = partEntry{f, v}
}

// StatusEqual reports whether a and b, typed objects of one type whose
// body is a spec and a status, hold statuses that encode alike because
// they are the same value: equal field by field as reflect.DeepEqual
// compares them (nil and empty apart, unexported fields included), except
// that a metav1.Time or metav1.MicroTime compares by its instant, which is
// all its encoding keeps (a decoded time is in the local zone, a
// reconciler's often in UTC). The status StatusToModel encodes is a
// function of the status field alone, so two such objects without managed
// fields encode to the same status. False for any other pair.
func (c *Converter) StatusEqual(a, b client.Object) bool {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	if va.Type() != vb.Type() || va.Kind() != reflect.Pointer || va.IsNil() || vb.IsNil() {
		return false
	}
	p := c.partsOf(va.Type().Elem())
	if p == nil || p.status == nil {
		return false
	}
	i := p.status.index
	return sameValue(va.Elem().Field(i), vb.Elem().Field(i), 0)
}

// maxDepth bounds sameValue's walk; API types are trees, far shallower.
const maxDepth = 64

var (
	timeType      = reflect.TypeFor[metav1.Time]()
	microTimeType = reflect.TypeFor[metav1.MicroTime]()
)

// sameValue is StatusEqual's comparison of two values of one type.
func sameValue(a, b reflect.Value, depth int) bool {
	if depth > maxDepth {
		return false
	}
	switch a.Type() {
	case timeType, microTimeType:
		ta, tb := a.Field(0), b.Field(0) // the embedded time.Time
		if !ta.CanInterface() {
			return false
		}
		return ta.Interface().(time.Time).Equal(tb.Interface().(time.Time))
	}
	switch a.Kind() {
	case reflect.Bool:
		return a.Bool() == b.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return a.Int() == b.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return a.Uint() == b.Uint()
	case reflect.Float32, reflect.Float64:
		return math.Float64bits(a.Float()) == math.Float64bits(b.Float())
	case reflect.String:
		return a.String() == b.String()
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		return a.Pointer() == b.Pointer() || sameValue(a.Elem(), b.Elem(), depth+1)
	case reflect.Interface:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		return a.Elem().Type() == b.Elem().Type() && sameValue(a.Elem(), b.Elem(), depth+1)
	case reflect.Struct:
		for i := range a.NumField() {
			if !sameValue(a.Field(i), b.Field(i), depth+1) {
				return false
			}
		}
		return true
	case reflect.Array:
		for i := range a.Len() {
			if !sameValue(a.Index(i), b.Index(i), depth+1) {
				return false
			}
		}
		return true
	case reflect.Slice:
		if a.IsNil() != b.IsNil() || a.Len() != b.Len() {
			return false
		}
		for i := range a.Len() {
			if !sameValue(a.Index(i), b.Index(i), depth+1) {
				return false
			}
		}
		return true
	case reflect.Map:
		if a.IsNil() != b.IsNil() || a.Len() != b.Len() {
			return false
		}
		iter := a.MapRange()
		for iter.Next() {
			w := b.MapIndex(iter.Key())
			if !w.IsValid() || !sameValue(iter.Value(), w, depth+1) {
				return false
			}
		}
		return true
	}
	return false // func, chan, unsafe pointer, complex: not in an API type
}
