package convert

import (
	"encoding/base64"
	"fmt"
	"math"
	"reflect"

	"sigs.k8s.io/structured-merge-diff/v6/value"
)

// A decoding plan fills a typed object from its unstructured content as
// runtime's unstructured converter does, with every JSON name, inlining
// and self-converting type worked out once per Go type instead of on
// every visit. A type the plan does not cover, and any content that fails
// to decode, take the general path (TestPlansDecodeAsTheGeneralPath).

// decoder sets dv, a zero value, from src, an unstructured value that is
// not nil.
type decoder func(src any, dv reflect.Value) error

// decodePlan is the decoder of one Go type, set once built.
type decodePlan struct{ dec decoder }

// fieldRef is where a JSON name of a struct lands: a field, possibly
// through inlined structs.
type fieldRef struct {
	index []int
	plan  *decodePlan
}

// decodeBuilder builds the decoders of the types one object type reaches.
type decodeBuilder struct {
	types map[reflect.Type]*decodePlan
}

// decodePlanOf returns the decoder of object type t, building it on first
// use; nil for a type that takes the general path.
func (c *Converter) decodePlanOf(t reflect.Type) *decodePlan {
	c.plans.mu.Lock()
	defer c.plans.mu.Unlock()
	if p, ok := c.plans.decoders[t]; ok {
		return p
	}
	var p *decodePlan
	if t.Kind() == reflect.Struct && !value.TypeReflectEntryOf(t).CanConvertFromUnstructured() {
		b := decodeBuilder{types: map[reflect.Type]*decodePlan{}}
		var err error
		if p, err = b.plan(t); err != nil {
			p = nil
		}
	}
	if c.plans.decoders == nil {
		c.plans.decoders = map[reflect.Type]*decodePlan{}
	}
	c.plans.decoders[t] = p
	return p
}

func (b *decodeBuilder) plan(t reflect.Type) (*decodePlan, error) {
	if p, ok := b.types[t]; ok {
		return p, nil
	}
	p := &decodePlan{}
	b.types[t] = p
	dec, err := b.decoder(t)
	if err != nil {
		return nil, err
	}
	p.dec = dec
	return p, nil
}

// errCannotDecode stands for any error of the general path: the caller
// takes that path and gets its error.
var errCannotDecode = fmt.Errorf("content does not decode by plan")

func (b *decodeBuilder) decoder(t reflect.Type) (decoder, error) {
	entry := value.TypeReflectEntryOf(t)
	custom := func(src any, dv reflect.Value) error {
		if !entry.CanConvertFromUnstructured() {
			return errCannotDecode
		}
		return entry.FromUnstructured(reflect.ValueOf(src), dv)
	}
	switch t.Kind() {
	case reflect.String:
		return func(src any, dv reflect.Value) error {
			switch x := src.(type) {
			case string:
				dv.SetString(x)
				return nil
			case int64, float64:
				return errCannotDecode // convertible, but not in JSON
			}
			return custom(src, dv)
		}, nil
	case reflect.Bool:
		return func(src any, dv reflect.Value) error {
			if x, ok := src.(bool); ok {
				dv.SetBool(x)
				return nil
			}
			return custom(src, dv)
		}, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		signed := t.Kind() <= reflect.Int64
		return func(src any, dv reflect.Value) error {
			switch x := src.(type) {
			case int64:
				if signed {
					dv.SetInt(x)
				} else {
					dv.SetUint(uint64(x))
				}
				return nil
			case float64:
				if x == math.Trunc(x) {
					dv.Set(reflect.ValueOf(x).Convert(t))
					return nil
				}
				return errCannotDecode
			}
			return custom(src, dv)
		}, nil
	case reflect.Float32, reflect.Float64:
		return func(src any, dv reflect.Value) error {
			switch x := src.(type) {
			case float64:
				dv.SetFloat(x)
				return nil
			case int64:
				dv.SetFloat(float64(x))
				return nil
			}
			return custom(src, dv)
		}, nil
	}
	if entry.CanConvertFromUnstructured() {
		return custom, nil
	}
	switch t.Kind() {
	case reflect.Pointer:
		elem, err := b.plan(t.Elem())
		if err != nil {
			return nil, err
		}
		return func(src any, dv reflect.Value) error {
			p := reflect.New(t.Elem())
			dv.Set(p)
			return elem.dec(src, p.Elem())
		}, nil
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return nil, errUnplanned
		}
		elem, err := b.plan(t.Elem())
		if err != nil {
			return nil, err
		}
		plainKey := t.Key() == reflect.TypeFor[string]()
		return func(src any, dv reflect.Value) error {
			m, ok := src.(map[string]any)
			if !ok {
				return errCannotDecode
			}
			if m == nil {
				return nil
			}
			dv.Set(reflect.MakeMapWithSize(t, len(m)))
			for k, x := range m {
				v := reflect.New(t.Elem()).Elem()
				if x != nil {
					if err := elem.dec(x, v); err != nil {
						return err
					}
				}
				key := reflect.ValueOf(k)
				if !plainKey {
					key = key.Convert(t.Key())
				}
				dv.SetMapIndex(key, v)
			}
			return nil
		}, nil
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return func(src any, dv reflect.Value) error {
				s, ok := src.(string)
				if !ok {
					return errCannotDecode
				}
				if s == "" {
					dv.Set(reflect.MakeSlice(t, 0, 0))
					return nil
				}
				data, err := base64.StdEncoding.DecodeString(s)
				if err != nil {
					return err
				}
				dv.SetBytes(data)
				return nil
			}, nil
		}
		elem, err := b.plan(t.Elem())
		if err != nil {
			return nil, err
		}
		return func(src any, dv reflect.Value) error {
			l, ok := src.([]any)
			if !ok {
				return errCannotDecode
			}
			if l == nil {
				return nil
			}
			dv.Set(reflect.MakeSlice(t, len(l), cap(l)))
			for i, x := range l {
				if x == nil {
					continue
				}
				if err := elem.dec(x, dv.Index(i)); err != nil {
					return err
				}
			}
			return nil
		}, nil
	case reflect.Struct:
		return b.structDecoder(t)
	case reflect.Interface:
		if t.NumMethod() != 0 {
			return nil, errUnplanned
		}
		return func(src any, dv reflect.Value) error {
			dv.Set(reflect.ValueOf(src))
			return nil
		}, nil
	}
	return nil, errUnplanned
}

// structDecoder decodes a struct from a JSON object by the names
// members gives (inlined fields included); an inlined pointer is
// allocated whether or not any of its fields is present, as runtime's
// converter does.
func (b *decodeBuilder) structDecoder(t reflect.Type) (decoder, error) {
	names := planBuilder{namesOnly: true}
	members, err := names.members(t)
	if err != nil {
		return nil, err
	}
	hasDash := names.dash
	fields := map[string]fieldRef{}
	var inlinePtrs [][]int
	var walk func(ms []member, prefix []int, inner reflect.Type) error
	walk = func(ms []member, prefix []int, inner reflect.Type) error {
		for _, m := range ms {
			idx := append(append([]int(nil), prefix...), m.index)
			f := inner.Field(m.index)
			if m.inline != nil {
				it := f.Type
				if m.ptr {
					inlinePtrs = append(inlinePtrs, idx)
					it = it.Elem()
				}
				if err := walk(m.inline, idx, it); err != nil {
					return err
				}
				continue
			}
			p, err := b.plan(f.Type)
			if err != nil {
				return err
			}
			fields[m.name] = fieldRef{index: idx, plan: p}
		}
		return nil
	}
	if err := walk(members, nil, t); err != nil {
		return nil, err
	}
	return func(src any, dv reflect.Value) error {
		m, ok := src.(map[string]any)
		if !ok || m == nil {
			return errCannotDecode
		}
		if hasDash {
			if _, ok := m["-"]; ok {
				return errCannotDecode
			}
		}
		for _, idx := range inlinePtrs {
			f := fieldAt(dv, idx)
			f.Set(reflect.New(f.Type().Elem()))
		}
		for k, x := range m {
			ref, ok := fields[k]
			if !ok || x == nil {
				continue
			}
			if err := ref.plan.dec(x, fieldAt(dv, ref.index)); err != nil {
				return err
			}
		}
		return nil
	}, nil
}

// fieldAt is the field of struct v at index, through inlined pointers
// (already allocated).
func fieldAt(v reflect.Value, index []int) reflect.Value {
	for i, x := range index {
		if i > 0 && v.Kind() == reflect.Pointer {
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v
}
