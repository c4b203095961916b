package convert

import (
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/converge-sim/converge/model"
	"sigs.k8s.io/structured-merge-diff/v6/value"
)

// A typed object reaches the model through runtime's unstructured
// converter (a map per struct, each field's JSON name looked up in a
// shared cache on every visit) and then Flatten. An encoding plan does
// both at once: built once per Go type from the same rules (JSON names,
// omitempty, omitzero, inlining, the types that convert themselves), it
// walks a typed value and writes its leaves straight into model.Fields.
// A type the plan does not cover, and any value that fails to encode,
// takes the general path, so the model object is the same either way
// (TestPlansEncodeAsTheGeneralPath).

// errUnplanned marks a type an encoding plan does not cover.
var errUnplanned = errors.New("no encoding plan for this type")

// encoder adds the fields of v's unstructured form to out under path, as
// Flatten does, and reports whether that form is non-null (a null adds
// nothing).
type encoder func(out *model.FieldsBuilder, path string, v reflect.Value) (bool, error)

// typePlan is the encoder of one Go type; its encoder is set once the
// type's plan is built (a recursive type refers to its own plan).
type typePlan struct{ enc encoder }

// objectPlan encodes the body of one object type: its spec (or the body
// that stands for it) and its status, its metadata being converted field
// by field (metaToModel).
type objectPlan struct {
	// spec is set for a kind whose body is a spec: the spec's fields
	// are the model Spec.
	spec *member
	// sizes are the field counts of the last spec and status encoded,
	// a builder's first size (fuzzrun's workers share a plan).
	sizes [2]atomic.Int32
	// body lists the top-level fields other than apiVersion, kind,
	// metadata and status, for the other kinds.
	body   []member
	status *member
}

// member is one JSON field of a struct: a named field, or the fields of
// an inlined struct merged into its parent's.
type member struct {
	index     int
	name      string
	omitempty bool
	omitzero  func(reflect.Value) bool
	// inline, when set, lists the members of an inlined struct (or
	// pointer to one: ptr).
	inline []member
	ptr    bool
	plan   *typePlan
	// key and dotted are the path segments of name at the top and below.
	key, dotted string
}

// plans holds the object plans of a converter, by Go type; a nil plan
// marks a type that takes the general path.
type plans struct {
	mu       sync.Mutex
	byTyp    map[reflect.Type]*objectPlan
	decoders map[reflect.Type]*decodePlan
	parts    map[reflect.Type]*objectParts
}

// objectPlan returns the plan of object type t (a struct), building it
// on first use.
func (c *Converter) objectPlan(t reflect.Type, hoist bool) *objectPlan {
	c.plans.mu.Lock()
	defer c.plans.mu.Unlock()
	if p, ok := c.plans.byTyp[t]; ok {
		return p
	}
	p, err := buildObjectPlan(t, hoist)
	if err != nil {
		p = nil
	}
	if c.plans.byTyp == nil {
		c.plans.byTyp = map[reflect.Type]*objectPlan{}
	}
	c.plans.byTyp[t] = p
	return p
}

func buildObjectPlan(t reflect.Type, hoist bool) (*objectPlan, error) {
	if t.Kind() != reflect.Struct || value.TypeReflectEntryOf(t).CanConvertToUnstructured() {
		return nil, errUnplanned
	}
	b := planBuilder{types: map[reflect.Type]*typePlan{}}
	members, err := b.members(t)
	if err != nil {
		return nil, err
	}
	p := &objectPlan{}
	for i := range members {
		m := &members[i]
		switch m.name {
		case "":
			// An inlined struct at the top may only be the type meta.
			for _, im := range m.inline {
				if im.name != "apiVersion" && im.name != "kind" {
					return nil, errUnplanned
				}
			}
		case "apiVersion", "kind", "metadata":
		case "status":
			p.status = m
		default:
			p.body = append(p.body, *m)
		}
	}
	if hoist {
		if len(p.body) != 1 || p.body[0].name != "spec" || p.body[0].inline != nil {
			return nil, errUnplanned
		}
		p.spec, p.body = &p.body[0], nil
	}
	if p.status != nil && p.status.inline != nil {
		return nil, errUnplanned
	}
	for _, m := range p.body {
		if m.inline != nil {
			return nil, errUnplanned
		}
	}
	return p, nil
}

// encodeBody returns the model Spec and Status of obj, a pointer to a
// struct of the plan's type.
func (p *objectPlan) encodeBody(obj reflect.Value) (spec, status model.Fields, err error) {
	v := obj.Elem()
	if p.spec != nil {
		if spec, err = encodePart(*p.spec, v, &p.sizes[0]); err != nil {
			return model.Fields{}, model.Fields{}, err
		}
	} else {
		var vals model.FieldsBuilder
		vals.Grow(int(p.sizes[0].Load()))
		for _, m := range p.body {
			fv := v.Field(m.index)
			if m.omitted(fv) {
				continue
			}
			if _, err := m.plan.enc(&vals, m.key, fv); err != nil {
				return model.Fields{}, model.Fields{}, err
			}
		}
		p.sizes[0].Store(int32(vals.Len()))
		spec = vals.Fields()
	}
	if p.status != nil {
		if status, err = encodePart(*p.status, v, &p.sizes[1]); err != nil {
			return model.Fields{}, model.Fields{}, err
		}
	}
	return spec, status, nil
}

// encodePart encodes one member's value as a whole Spec or Status, its
// builder sized as the last one (size).
func encodePart(m member, v reflect.Value, size *atomic.Int32) (model.Fields, error) {
	fv := v.Field(m.index)
	if m.omitted(fv) {
		return model.Fields{}, nil
	}
	var f model.FieldsBuilder
	f.Grow(int(size.Load()))
	if _, err := m.plan.enc(&f, "", fv); err != nil {
		return model.Fields{}, err
	}
	size.Store(int32(f.Len()))
	return f.Fields(), nil
}

// omitted reports whether a field's value is left out by omitempty or
// omitzero.
func (m *member) omitted(fv reflect.Value) bool {
	return m.omitempty && isEmptyValue(fv) || m.omitzero != nil && m.omitzero(fv)
}

// isEmptyValue is omitempty's test as runtime's unstructured converter
// applies it.
func isEmptyValue(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.String:
		return v.Len() == 0
	case reflect.Bool:
		return !v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int() == 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return v.Uint() == 0
	case reflect.Float32, reflect.Float64:
		return v.Float() == 0
	case reflect.Map, reflect.Slice:
		return v.IsNil() || v.Len() == 0
	case reflect.Pointer, reflect.Interface:
		return v.IsNil()
	}
	return false
}

// planBuilder builds the encoders of the types one object type reaches.
type planBuilder struct {
	types map[reflect.Type]*typePlan
	// namesOnly lists members without encoders (for a decoding plan);
	// dash records a field named "-", which only encoding skips.
	namesOnly, dash bool
}

func (b *planBuilder) plan(t reflect.Type) (*typePlan, error) {
	if p, ok := b.types[t]; ok {
		return p, nil
	}
	p := &typePlan{}
	b.types[t] = p
	enc, err := b.encoder(t)
	if err != nil {
		return nil, err
	}
	p.enc = enc
	return p, nil
}

func (b *planBuilder) encoder(t reflect.Type) (encoder, error) {
	if entry := value.TypeReflectEntryOf(t); entry.CanConvertToUnstructured() {
		return func(out *model.FieldsBuilder, path string, v reflect.Value) (bool, error) {
			u, err := entry.ToUnstructured(v)
			if err != nil || u == nil {
				return false, err
			}
			return true, flatten(path, u, out)
		}, nil
	}
	switch t.Kind() {
	case reflect.String:
		return func(out *model.FieldsBuilder, path string, v reflect.Value) (bool, error) {
			return true, setLeaf(out, path, v.String())
		}, nil
	case reflect.Bool:
		return func(out *model.FieldsBuilder, path string, v reflect.Value) (bool, error) {
			return true, setLeaf(out, path, v.Bool())
		}, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return func(out *model.FieldsBuilder, path string, v reflect.Value) (bool, error) {
			return true, setLeaf(out, path, v.Int())
		}, nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return func(out *model.FieldsBuilder, path string, v reflect.Value) (bool, error) {
			u := v.Uint()
			if u > math.MaxInt64 {
				return false, fmt.Errorf("unsigned value %d does not fit into int64 (overflow)", u)
			}
			return true, setLeaf(out, path, int64(u))
		}, nil
	case reflect.Float32, reflect.Float64:
		return func(out *model.FieldsBuilder, path string, v reflect.Value) (bool, error) {
			return true, flatten(path, v.Float(), out)
		}, nil
	case reflect.Pointer:
		elem, err := b.plan(t.Elem())
		if err != nil {
			return nil, err
		}
		return func(out *model.FieldsBuilder, path string, v reflect.Value) (bool, error) {
			if v.IsNil() {
				return false, nil
			}
			return elem.enc(out, path, v.Elem())
		}, nil
	case reflect.Map:
		return b.mapEncoder(t)
	case reflect.Slice:
		return b.sliceEncoder(t)
	case reflect.Struct:
		members, err := b.members(t)
		if err != nil {
			return nil, err
		}
		return func(out *model.FieldsBuilder, path string, v reflect.Value) (bool, error) {
			some, err := encodeMembers(members, out, path, v)
			if err != nil {
				return false, err
			}
			if !some && path != "" {
				out.Set(path+markEmptyObject, true)
			}
			return true, nil
		}, nil
	}
	return nil, errUnplanned
}

// setLeaf adds a scalar; a scalar cannot be a whole spec or status.
func setLeaf(out *model.FieldsBuilder, path string, v any) error {
	if path == "" {
		return fmt.Errorf("a scalar %v cannot stand at the top of spec or status", v)
	}
	out.Set(path, v)
	return nil
}

func (b *planBuilder) mapEncoder(t reflect.Type) (encoder, error) {
	if t.Key().Kind() != reflect.String {
		return nil, errUnplanned
	}
	elem, err := b.plan(t.Elem())
	if err != nil {
		return nil, err
	}
	return func(out *model.FieldsBuilder, path string, v reflect.Value) (bool, error) {
		if v.IsNil() {
			return false, nil
		}
		empty := true
		for it := v.MapRange(); it.Next(); {
			ok, err := elem.enc(out, appendKey(path, it.Key().String()), it.Value())
			if err != nil {
				return false, err
			}
			empty = empty && !ok
		}
		if empty && path != "" {
			out.Set(path+markEmptyObject, true)
		}
		return true, nil
	}, nil
}

func (b *planBuilder) sliceEncoder(t reflect.Type) (encoder, error) {
	if t.Elem().Kind() == reflect.Uint8 {
		// Bytes are their base64 string, as in JSON.
		return func(out *model.FieldsBuilder, path string, v reflect.Value) (bool, error) {
			if v.IsNil() {
				return false, nil
			}
			return true, setLeaf(out, path, base64.StdEncoding.EncodeToString(v.Bytes()))
		}, nil
	}
	elem, err := b.plan(t.Elem())
	if err != nil {
		return nil, err
	}
	return func(out *model.FieldsBuilder, path string, v reflect.Value) (bool, error) {
		if v.IsNil() {
			return false, nil
		}
		if v.Len() == 0 {
			out.Set(path+markEmptyList, true)
			return true, nil
		}
		for i := range v.Len() {
			p := path + "[" + strconv.Itoa(i) + "]"
			ok, err := elem.enc(out, p, v.Index(i))
			if err != nil {
				return false, err
			}
			if !ok {
				out.Set(p+markNull, true)
			}
		}
		return true, nil
	}, nil
}

// members lists the JSON fields of struct type t by the rules of
// runtime's unstructured converter: a field's name is its JSON tag's, or
// its Go name when the tag names none; an untagged embedded field, or one
// whose tag names none, is inlined; "-" is skipped.
func (b *planBuilder) members(t reflect.Type) ([]member, error) {
	var out []member
	seen := map[string]bool{}
	for i := range t.NumField() {
		f := t.Field(i)
		m := member{index: i}
		tag, tagged := f.Tag.Lookup("json")
		if !tagged || tag == "" {
			if !f.Anonymous {
				m.name = f.Name
			}
		} else {
			items := strings.Split(tag, ",")
			m.name = items[0]
			if m.name == "" && !f.Anonymous {
				m.name = f.Name
			}
			for _, o := range items[1:] {
				switch o {
				case "omitempty":
					m.omitempty = true
				case "omitzero":
					m.omitzero = value.OmitZeroFunc(f.Type)
				case "embed":
					return nil, errUnplanned // inlining by tag depends on the Go version
				}
			}
		}
		if m.name == "-" {
			b.dash = true
			continue
		}
		if !f.IsExported() {
			return nil, errUnplanned
		}
		if m.name == "" {
			inner := f.Type
			if inner.Kind() == reflect.Pointer {
				inner, m.ptr = inner.Elem(), true
			}
			if inner.Kind() != reflect.Struct || converts(f.Type) || (m.ptr && converts(inner)) {
				return nil, errUnplanned
			}
			inline, err := b.members(inner)
			if err != nil {
				return nil, err
			}
			for _, im := range inline {
				if err := claim(seen, im); err != nil {
					return nil, err
				}
			}
			m.inline = inline
			out = append(out, m)
			continue
		}
		if err := claim(seen, m); err != nil {
			return nil, err
		}
		if !b.namesOnly {
			p, err := b.plan(f.Type)
			if err != nil {
				return nil, err
			}
			m.plan = p
		}
		m.key = appendKey("", m.name)
		if isIdent(m.name) {
			m.dotted = "." + m.name
		} else {
			m.dotted = m.key
		}
		out = append(out, m)
	}
	return out, nil
}

// converts reports whether values of t convert themselves to or from
// their unstructured form.
func converts(t reflect.Type) bool {
	e := value.TypeReflectEntryOf(t)
	return e.CanConvertToUnstructured() || e.CanConvertFromUnstructured()
}

// claim records the names a member adds to its struct's JSON object; two
// members of one name (through inlining) are left to the general path.
func claim(seen map[string]bool, m member) error {
	if m.inline != nil {
		for _, im := range m.inline {
			if err := claim(seen, im); err != nil {
				return err
			}
		}
		return nil
	}
	if seen[m.name] {
		return errUnplanned
	}
	seen[m.name] = true
	return nil
}

// encodeMembers adds the members of a struct value at path and reports
// whether any was non-null.
func encodeMembers(members []member, out *model.FieldsBuilder, path string, v reflect.Value) (bool, error) {
	some := false
	for i := range members {
		m := &members[i]
		fv := v.Field(m.index)
		if m.omitted(fv) {
			continue
		}
		if m.inline != nil {
			if m.ptr {
				if fv.IsNil() {
					continue
				}
				fv = fv.Elem()
			}
			ok, err := encodeMembers(m.inline, out, path, fv)
			if err != nil {
				return false, err
			}
			some = some || ok
			continue
		}
		p := m.key
		if path != "" {
			p = path + m.dotted
		}
		ok, err := m.plan.enc(out, p, fv)
		if err != nil {
			return false, err
		}
		some = some || ok
	}
	return some, nil
}
