package convert

import (
	"bytes"
	"encoding"
	"encoding/json"
	"io"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/converge-sim/converge/model"
	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/structured-merge-diff/v6/value"
)

// A JSON merge patch (RFC 7386) of a typed object is, in the API server
// and in the adapter's general path, three passes of JSON: the stored
// object encoded, the patch merged into that document, the result
// decoded into a new typed object. MergePatch merges the patch into the
// stored object's unstructured body instead (the maps FromModel decodes
// from) and decodes the result with the type's decoding plan. It takes a
// patch only where the two give the same object as the model sees it
// (the same ToModel); anywhere encoding/json and the plan could part, it
// declines and the caller takes the general path, which gives today's
// result and today's errors (docs/design.md, "Patches"):
//
//   - a key at a struct level must be exactly a field's JSON name:
//     encoding/json also matches names case-insensitively, the plan does
//     not;
//   - numbers must be integer literals that fit the field: encoding/json
//     rejects 1.0 or 1e3 for an integer field and an out-of-range value,
//     where the plan would convert or wrap;
//   - no object inside an array of the patch may hold a null (the JSON
//     merge prunes those nulls in some places and not in others);
//   - no interface-typed field, no basic type that decodes itself, and
//     no apiVersion or kind in the patch;
//   - timestamps must survive encoding/json's second precision (an epoch
//     and a tick of whole seconds).
//   - every string of the stored object must be valid UTF-8 (encoding/json
//     replaces the bytes of one that is not).
//
// A patch of the metadata is merged into the metadata's own JSON, as the
// general path does, so that only the (small) metadata passes through
// JSON.

// MergePatch sets into, a new typed object of cur's kind, to what a JSON
// merge patch, data, makes of cur, the stored object, and reports true; or
// reports false, leaving into in an unspecified state, where the patch
// takes the general path (encode cur, merge, decode), whose result or
// error it would not be sure to give.
func (c *Converter) MergePatch(cur *model.Object, data []byte, into client.Object) bool {
	if c.epoch.Nanosecond() != 0 || c.tick%time.Second != 0 {
		return false
	}
	if _, u := into.(runtime.Unstructured); u {
		return false
	}
	kind, err := c.Kind(into)
	if err != nil || kind != cur.Kind {
		return false
	}
	v := reflect.ValueOf(into)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return false
	}
	t := v.Type().Elem()
	dec := c.decodePlanOf(t)
	fields := structFields(t)
	if dec == nil || fields == nil {
		return false
	}
	patch, ok := parseMergePatch(data)
	if !ok || !validUTF8(cur) {
		return false
	}
	var meta map[string]any
	body := make(map[string]any, len(patch))
	for k, x := range patch {
		switch k {
		case "metadata":
			m, ok := x.(map[string]any)
			if !ok || fields[k] != reflect.TypeFor[metav1.ObjectMeta]() {
				return false
			}
			meta = m
		case "apiVersion", "kind":
			return false
		default:
			ft, ok := fields[k]
			if !ok || !fits(x, ft) {
				return false
			}
			body[k] = x
		}
	}
	v.Elem().SetZero()
	if !c.mergeParts(cur, body, v.Elem()) {
		u, err := c.body(cur)
		if err != nil {
			return false
		}
		mergeObject(u, body)
		v.Elem().SetZero()
		if dec.dec(u, v.Elem()) != nil {
			return false
		}
	}
	c.metaFromModel(cur, into)
	into.GetObjectKind().SetGroupVersionKind(c.kinds[kind])
	if meta != nil {
		acc, ok := into.(metav1.ObjectMetaAccessor)
		if !ok {
			return false
		}
		om, ok := acc.GetObjectMeta().(*metav1.ObjectMeta)
		if !ok || !mergeMeta(om, meta) {
			return false
		}
	}
	return true
}

// mergeParts is MergePatch's merge and decode for a kind whose body is a
// spec (parts.go): a part the patch leaves alone (most often the status)
// is decoded by its content, a copy of the converter's kept decode when
// there is one, as FromModel decodes it; only a part the patch names is
// unflattened, merged and decoded. It reports false where the whole body
// is to be merged and decoded instead (which then gives the result or
// declines).
func (c *Converter) mergeParts(cur *model.Object, body map[string]any, v reflect.Value) bool {
	if !c.hoist[c.kinds[cur.Kind]] {
		return false
	}
	parts := c.partsOf(v.Type())
	if parts == nil {
		return false
	}
	for k := range body {
		if k != "spec" && k != "status" {
			return false
		}
	}
	for _, part := range []struct {
		name string
		plan *partPlan
		f    model.Fields
	}{{"spec", parts.spec, cur.Spec}, {"status", parts.status, cur.Status}} {
		p, named := body[part.name]
		if part.plan == nil {
			if named || part.f.Len() > 0 {
				return false
			}
			continue
		}
		dv := v.Field(part.plan.index)
		if !named {
			if part.plan.decode(part.f, dv, false) != nil {
				return false
			}
			continue
		}
		if part.plan.mergeKept(part.f, p, dv) {
			continue
		}
		doc := map[string]any{}
		if part.f.Len() > 0 {
			u, err := Unflatten(part.f)
			if err != nil {
				return false
			}
			doc[part.name] = u
		}
		mergeObject(doc, map[string]any{part.name: p})
		if x := doc[part.name]; x != nil && part.plan.dec.dec(x, dv) != nil {
			return false
		}
	}
	return true
}

// mergeKept sets dv, the zero part, to what merging p, the patch of the
// part, into content f gives, from a copy of the kept decode of f
// (mergetyped.go); false, leaving dv zero, where there is none or the
// typed merge cannot tell.
func (pp *partPlan) mergeKept(f model.Fields, p any, dv reflect.Value) bool {
	if !typedMerge || f.Len() == 0 {
		return false
	}
	if _, object := p.(map[string]any); !object {
		return false
	}
	mt := mergeTypeOf(dv.Type())
	if !mt.ok || mt.kind != mergeStruct {
		return false
	}
	hit := pp.lookup(f)
	if !hit.IsValid() {
		return false
	}
	pp.copyInto(hit, dv.Addr())
	if mergeTyped(dv, p, mt) {
		return true
	}
	dv.SetZero()
	return false
}

// validUTF8 reports whether every string of mo, its paths' keys
// included, is valid UTF-8, as encoding/json leaves it.
func validUTF8(mo *model.Object) bool {
	for _, s := range []string{mo.Namespace, mo.Name, mo.GenerateName} {
		if !utf8.ValidString(s) {
			return false
		}
	}
	for _, s := range mo.Finalizers {
		if !utf8.ValidString(s) {
			return false
		}
	}
	for _, r := range mo.OwnerReferences {
		if !utf8.ValidString(r.Kind) || !utf8.ValidString(r.Name) || !utf8.ValidString(string(r.UID)) {
			return false
		}
	}
	for k, v := range mo.Labels.All() {
		if !utf8.ValidString(k) || !utf8.ValidString(v) {
			return false
		}
	}
	for _, f := range []model.Fields{mo.Spec, mo.Status} {
		for k, v := range f.All() {
			if !utf8.ValidString(k) {
				return false
			}
			if s, ok := v.(string); ok && !utf8.ValidString(s) {
				return false
			}
		}
	}
	return true
}

// mergeMeta merges patch into om through om's JSON, as the general path
// merges the whole object's.
func mergeMeta(om *metav1.ObjectMeta, patch map[string]any) bool {
	orig, err := json.Marshal(om)
	if err != nil {
		return false
	}
	pd, err := json.Marshal(patch)
	if err != nil {
		return false
	}
	merged, err := jsonpatch.MergePatch(orig, pd)
	if err != nil {
		return false
	}
	var next metav1.ObjectMeta
	if json.Unmarshal(merged, &next) != nil {
		return false
	}
	*om = next
	return true
}

// parseMergePatch decodes a patch that is one JSON object, its numbers
// integer literals (as int64); false for anything else, which the general
// path answers.
func parseMergePatch(data []byte) (map[string]any, bool) {
	if scanPatch {
		if m, ok := scanMergePatch(data); ok {
			return m, true
		}
	}
	return decodeMergePatch(data)
}

// decodeMergePatch is parseMergePatch through encoding/json.
func decodeMergePatch(data []byte) (map[string]any, bool) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var m map[string]any
	if d.Decode(&m) != nil || m == nil {
		return nil, false
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, false
	}
	return m, integers(m, false)
}

// integers replaces every json.Number under x by its int64, in place, and
// reports false for a number that is not an integer literal of int64's
// range, or, inArray, an object holding a null.
func integers(x any, inArray bool) bool {
	switch x := x.(type) {
	case map[string]any:
		for k, e := range x {
			switch e := e.(type) {
			case nil:
				if inArray {
					return false
				}
			case json.Number:
				n, ok := integer(e)
				if !ok {
					return false
				}
				x[k] = n
			default:
				if !integers(e, inArray) {
					return false
				}
			}
		}
	case []any:
		for i, e := range x {
			if n, isNum := e.(json.Number); isNum {
				v, ok := integer(n)
				if !ok {
					return false
				}
				x[i] = v
			} else if !integers(e, true) {
				return false
			}
		}
	}
	return true
}

func integer(n json.Number) (int64, bool) {
	if strings.ContainsAny(string(n), ".eE") {
		return 0, false
	}
	v, err := strconv.ParseInt(string(n), 10, 64)
	return v, err == nil
}

// mergeObject merges patch into doc as gopkg.in/evanphx/json-patch.v4's
// MergePatch does (the API server's and the general path's): a null
// deletes a key; an object merges into an object; anything else replaces
// the value, with the nulls of its objects pruned unless it is a
// non-object replacing an object. It takes patch's values into doc.
func mergeObject(doc, patch map[string]any) {
	for k, p := range patch {
		if p == nil {
			delete(doc, k)
			continue
		}
		cur, ok := doc[k].(map[string]any)
		if !ok || cur == nil {
			doc[k] = pruneNulls(p)
			continue
		}
		pm, ok := p.(map[string]any)
		if !ok {
			doc[k] = p
			continue
		}
		mergeObject(cur, pm)
	}
}

// pruneNulls deletes the null values of x's objects, at every depth, in
// place; a null element of an array stays.
func pruneNulls(x any) any {
	switch x := x.(type) {
	case map[string]any:
		for k, e := range x {
			if e == nil {
				delete(x, k)
				continue
			}
			pruneNulls(e)
		}
	case []any:
		for _, e := range x {
			if e != nil {
				pruneNulls(e)
			}
		}
	}
	return x
}

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// fits reports whether x, a patch's value (integers as int64), lands on a
// field of type t as encoding/json would land it: every key of a struct
// level exactly a field's name, every integer in the range of its field,
// and nothing that encoding/json decodes by other rules than the plan.
// A value of the wrong shape fits: the plan fails on it, as
// encoding/json does, and the general path names the error.
func fits(x any, t reflect.Type) bool {
	if x == nil {
		return true
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	pt := reflect.PointerTo(t)
	if pt.Implements(jsonUnmarshaler) || pt.Implements(textUnmarshaler) {
		// Both decode it by its UnmarshalJSON (the plan through
		// structured-merge-diff's reflect cache), unless the plan reads
		// a basic kind directly.
		return pt.Implements(jsonUnmarshaler) && !basic(t.Kind()) && value.TypeReflectEntryOf(t).CanConvertFromUnstructured()
	}
	switch t.Kind() {
	case reflect.Struct:
		m, ok := x.(map[string]any)
		if !ok {
			return true
		}
		fields := structFields(t)
		if fields == nil {
			return false
		}
		for k, e := range m {
			ft, ok := fields[k]
			if !ok || !fits(e, ft) {
				return false
			}
		}
		return true
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return false
		}
		if m, ok := x.(map[string]any); ok {
			for _, e := range m {
				if !fits(e, t.Elem()) {
					return false
				}
			}
		}
		return true
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return true
		}
		if l, ok := x.([]any); ok {
			for _, e := range l {
				if !fits(e, t.Elem()) {
					return false
				}
			}
		}
		return true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, ok := x.(int64)
		return !ok || !reflect.Zero(t).OverflowInt(n)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		n, ok := x.(int64)
		return !ok || (n >= 0 && !reflect.Zero(t).OverflowUint(uint64(n)))
	case reflect.Float32, reflect.Float64:
		n, ok := x.(int64)
		return !ok || (n < 1<<53 && n > -1<<53)
	case reflect.String, reflect.Bool:
		return true
	}
	return false
}

func basic(k reflect.Kind) bool {
	return k == reflect.String || k == reflect.Bool || (k >= reflect.Int && k <= reflect.Float64)
}

// fieldTables caches structFields by type (a function of the type alone).
var fieldTables sync.Map // reflect.Type → map[string]reflect.Type (nil: no plan)

// structFields maps the JSON names of struct type t, inlined fields'
// included, to their types, by the rules the decoding plan uses; nil for
// a type without a plan.
func structFields(t reflect.Type) map[string]reflect.Type {
	if f, ok := fieldTables.Load(t); ok {
		return f.(map[string]reflect.Type)
	}
	b := planBuilder{namesOnly: true}
	members, err := b.members(t)
	var out map[string]reflect.Type
	if err == nil {
		out = map[string]reflect.Type{}
		var walk func(ms []member, inner reflect.Type)
		walk = func(ms []member, inner reflect.Type) {
			for _, m := range ms {
				f := inner.Field(m.index)
				if m.inline != nil {
					it := f.Type
					if m.ptr {
						it = it.Elem()
					}
					walk(m.inline, it)
					continue
				}
				out[m.name] = f.Type
			}
		}
		walk(members, t)
	}
	fieldTables.Store(t, out)
	return out
}
