package convert

import (
	"reflect"
	"sync"

	"sigs.k8s.io/structured-merge-diff/v6/value"
)

// A merge patch of a part (spec or status) named by MergePatch is, on the
// path of mergeParts, the part's content unflattened (Unflatten), the
// patch merged into those maps (mergeObject) and the result decoded by the
// part's plan: about as costly as a first read of the part. But a part
// that was read is most often kept decoded by the converter (parts.go: the
// memo's decode of the stored version shares it). So where the kept
// decode of the stored part's content is at hand, mergeParts copies it
// and merges the patch into the copy's typed form instead (mergeTyped),
// touching only the fields the patch names (docs/design.md, "Patches").
//
// The result is the plan's decode of the merged maps, field for field
// (TestTypedMergeIsTheDecodeOfTheMerge), because the decode is
// compositional and the typed form tells, for every value the patch
// reaches, what mergeObject sees in the maps:
//
//   - a struct field is decoded from its key's value alone, so a key the
//     patch leaves alone keeps its decode, a null deletes the key (the
//     field's zero value), and a value replaces it (the plan's decode of
//     that value, from zero);
//   - an object merges into an object: a non-nil map was decoded from
//     one (the plan decodes nothing else into it), so the patch merges
//     into it key by key; a non-nil pointer passes the merge on to what
//     it points to; a nil map or pointer was decoded from a null or from
//     no key, which the object replaces, nulls pruned, as mergeObject
//     does;
//   - a struct of the plan (no decoder of its own) is decoded from an
//     object, or from a null or no key as the zero struct; merging an
//     object into the zero struct field by field gives the decode of that
//     object with its nulls pruned, which is what replacing a null gives.
//     A struct that inlines a pointer is the exception (the plan
//     allocates the pointer for any object), so mergeTyped declines it;
//   - anything else (a slice, a scalar, a type that decodes itself, an
//     interface) is replaced by the plan's decode of a patch's value that
//     is not an object, which is what mergeObject's replacement decodes
//     to. An array of the patch holds no object holding a null
//     (parseMergePatch declines those), so pruning never changes one. An
//     object there is declined: a type that decodes itself may have been
//     decoded from an object (runtime.RawExtension is), and an interface
//     holds one as it is, which the maps' merge merges into.
//
// Where it cannot tell (a key that names no field, content the plan does
// not decode), mergeTyped reports false and mergeParts takes its own
// path from the maps, which gives the result or declines.

// typedMerge is false only in tests that check that merging a patch into
// the kept decode gives what the merge of the maps gives
// (TestFastPathsGiveTheSameTraces, through SetTypedMerge).
var typedMerge = true

// SetTypedMerge turns on or off MergePatch's merge of a part's patch into
// a copy of the part's kept decode (rather than into its unflattened
// content), and returns the setting it replaced. For tests.
func SetTypedMerge(on bool) (was bool) {
	was, typedMerge = typedMerge, on
	return was
}

// mergeKind is how the plan decodes a type, as decodeBuilder.decoder
// chooses.
type mergeKind uint8

const (
	mergeReplace mergeKind = iota // decoded whole from a value that is not an object
	mergeStruct                   // a struct of the plan
	mergePointer
	mergeMap
)

// mergeType is what mergeTyped needs of one Go type.
type mergeType struct {
	kind mergeKind
	plan *decodePlan // the type's decoder, for a replaced value
	// fields are a struct's JSON names (inlined structs' included), for
	// mergeStruct; ok is false for a type mergeTyped declines.
	fields map[string]mergeField
	elem   *mergeType // a pointer's or a map's element
	ok     bool
}

type mergeField struct {
	index []int
	typ   *mergeType
}

// mergeTypes caches mergeTypeOf by Go type; the entries are a function of
// the type alone. mergeTypesMu serializes their building (a type may
// refer to itself).
var (
	mergeTypes   sync.Map // reflect.Type → *mergeType
	mergeTypesMu sync.Mutex
)

// mergeTypeOf returns mergeTyped's description of t, built on first use.
func mergeTypeOf(t reflect.Type) *mergeType {
	if m, ok := mergeTypes.Load(t); ok {
		return m.(*mergeType)
	}
	mergeTypesMu.Lock()
	defer mergeTypesMu.Unlock()
	if m, ok := mergeTypes.Load(t); ok {
		return m.(*mergeType)
	}
	b := mergeBuilder{dec: decodeBuilder{types: map[reflect.Type]*decodePlan{}}, types: map[reflect.Type]*mergeType{}}
	m := b.build(t)
	for t, m := range b.types {
		mergeTypes.Store(t, m)
	}
	return m
}

type mergeBuilder struct {
	dec   decodeBuilder
	types map[reflect.Type]*mergeType
}

func (b *mergeBuilder) build(t reflect.Type) *mergeType {
	if m, ok := b.types[t]; ok {
		return m
	}
	m := &mergeType{}
	b.types[t] = m
	plan, err := b.dec.plan(t)
	if err != nil {
		return m // not ok
	}
	m.plan = plan
	m.ok = true
	if basic(t.Kind()) || value.TypeReflectEntryOf(t).CanConvertFromUnstructured() {
		return m // decoded as decodeBuilder.decoder does, before anything else
	}
	switch t.Kind() {
	case reflect.Pointer:
		m.kind, m.elem = mergePointer, b.build(t.Elem())
	case reflect.Map:
		m.kind, m.elem = mergeMap, b.build(t.Elem())
	case reflect.Struct:
		m.kind = mergeStruct
		names := planBuilder{namesOnly: true}
		members, err := names.members(t)
		// A field tagged "-" (names.dash) needs no care: the plan fails
		// on a key "-", but the patch's keys are fields and the stored
		// content decoded.
		if err != nil {
			m.ok = false
			return m
		}
		m.fields = map[string]mergeField{}
		var walk func(ms []member, prefix []int, inner reflect.Type) bool
		walk = func(ms []member, prefix []int, inner reflect.Type) bool {
			for _, mb := range ms {
				idx := append(append([]int(nil), prefix...), mb.index)
				f := inner.Field(mb.index)
				if mb.inline != nil {
					if mb.ptr {
						return false // allocated by any decode of an object
					}
					if !walk(mb.inline, idx, f.Type) {
						return false
					}
					continue
				}
				m.fields[mb.name] = mergeField{index: idx, typ: b.build(f.Type)}
			}
			return true
		}
		if !walk(members, nil, t) {
			m.ok = false
		}
	}
	return m
}

// mergeTyped merges p, a patch's value (not nil, its numbers int64),
// into v, addressable, the plan's decode of some content d, so that v
// becomes the plan's decode of mergeObject's merge of p into d; false
// where it cannot tell, leaving v in an unspecified state.
func mergeTyped(v reflect.Value, p any, mt *mergeType) bool {
	if !mt.ok {
		return false
	}
	pm, object := p.(map[string]any)
	if object {
		switch mt.kind {
		case mergeStruct:
			for k, x := range pm {
				f, ok := mt.fields[k]
				if !ok {
					return false
				}
				fv := fieldAt(v, f.index)
				if x == nil {
					fv.SetZero()
					continue
				}
				if !mergeTyped(fv, x, f.typ) {
					return false
				}
			}
			return true
		case mergePointer:
			if !v.IsNil() {
				return mergeTyped(v.Elem(), p, mt.elem)
			}
		case mergeMap:
			if !v.IsNil() {
				return mergeMapTyped(v, pm, mt)
			}
		default:
			// A type that decodes itself may have been decoded from an
			// object (runtime.RawExtension is), and an interface holds
			// one as it is: the maps' merge merges into those.
			return false
		}
	}
	// Replaced: the decode of the value, its objects' nulls pruned.
	v.SetZero()
	return mt.plan.dec(pruneNulls(p), v) == nil
}

// mergeMapTyped merges pm into the non-nil map v, as mergeObject merges an
// object into an object: a null deletes a key, a key not in v takes the
// decode of its value (nulls pruned), and a value merges into v's.
func mergeMapTyped(v reflect.Value, pm map[string]any, mt *mergeType) bool {
	kt := v.Type().Key()
	plainKey := kt == reflect.TypeFor[string]()
	for k, x := range pm {
		key := reflect.ValueOf(k)
		if !plainKey {
			key = key.Convert(kt)
		}
		if x == nil {
			v.SetMapIndex(key, reflect.Value{})
			continue
		}
		e := reflect.New(v.Type().Elem()).Elem()
		if cur := v.MapIndex(key); cur.IsValid() {
			e.Set(cur)
			if !mergeTyped(e, x, mt.elem) {
				return false
			}
		} else if !mt.elem.ok || mt.elem.plan.dec(pruneNulls(x), e) != nil {
			return false
		}
		v.SetMapIndex(key, e)
	}
	return true
}
