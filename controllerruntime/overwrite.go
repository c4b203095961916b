package controllerruntime

import (
	"reflect"
	"unsafe"
)

// A copy into an object a reader already holds (deepCopyInto) must leave
// nothing of the object's old content. A DeepCopyInto written by
// controller-gen or deepcopy-gen begins with *out = *in and so overwrites
// every field; a hand-written one may fill only some fields, and for it
// the destination is zeroed first. Zeroing a custom resource costs about
// 1.3 % of a CronJob run (BENCHMARKS.md, "Custom resources' copies"), so
// each type is checked once, at its first copy, and zeroed only if the
// check cannot show that its DeepCopyInto overwrites every field
// (docs/design.md, "Reads that copy once").

// copyOverwrites reports whether copyInto, the DeepCopyInto method of t (a
// pointer to a struct), leaves nothing of its destination's old content.
// It copies two sources, t's zero value and one filled with values of its
// own, each into a zero destination and into one filled with other
// values, and asks that each pair come out equal (reflect.DeepEqual). The
// zero source finds a field the copy never writes, or writes only when the
// source's is set; the filled one a field written only when the source's
// is unset. The sources depend on t alone, so the answer does too: every
// process of a campaign copies a type the same way.
//
// It answers false, and the caller keeps zeroing, when a field holds what
// it cannot fill (a func, a channel, an interface only other types
// implement) or when the copy panics on one of its values.
func copyOverwrites(t reflect.Type, copyInto reflect.Method) (ok bool) {
	if t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		return false
	}
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	filled := reflect.New(t.Elem())
	if !fillValue(filled.Elem(), t, fillSource, nil) {
		return false
	}
	for _, src := range []reflect.Value{reflect.New(t.Elem()), filled} {
		clean, dirty := reflect.New(t.Elem()), reflect.New(t.Elem())
		if !fillValue(dirty.Elem(), t, fillDestination, nil) {
			return false
		}
		copyInto.Func.Call([]reflect.Value{src, clean})
		copyInto.Func.Call([]reflect.Value{src, dirty})
		if !reflect.DeepEqual(clean.Interface(), dirty.Interface()) {
			return false
		}
	}
	return true
}

// fillSalt tells the values copyOverwrites fills its source with from
// those it fills its destination with, so that a field the copy skips
// shows even where the source's value is set.
type fillSalt int

const (
	fillSource      fillSalt = 3
	fillDestination fillSalt = 5
)

// fillValue sets v, addressable and zero, to a value with no zero part it
// can reach, salted by salt: every number, string and bool set, every
// pointer, slice and map holding one filled element, unexported fields
// included. A struct type already being filled further up (a recursive
// type) stays zero where it recurs. An interface is filled with a string
// if it has no methods, with a zero root (a pointer to a struct) if root
// implements it. It reports false for what it cannot fill: a func, a
// channel, an unsafe pointer, another interface.
func fillValue(v reflect.Value, root reflect.Type, salt fillSalt, filling []reflect.Type) bool {
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(salt))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		v.SetUint(uint64(salt))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(float64(salt) + 0.5)
	case reflect.Complex64, reflect.Complex128:
		v.SetComplex(complex(float64(salt), 1))
	case reflect.String:
		v.SetString("filled-" + string(rune('0'+salt)))
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		if !fillValue(p.Elem(), root, salt, filling) {
			return false
		}
		v.Set(p)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 1, 1)
		if !fillValue(s.Index(0), root, salt, filling) {
			return false
		}
		v.Set(s)
	case reflect.Array:
		for i := range v.Len() {
			if !fillValue(v.Index(i), root, salt, filling) {
				return false
			}
		}
	case reflect.Map:
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		if !fillValue(k, root, salt, filling) || !fillValue(e, root, salt, filling) {
			return false
		}
		m := reflect.MakeMapWithSize(v.Type(), 1)
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.Struct:
		for _, f := range filling {
			if f == v.Type() {
				return true
			}
		}
		filling = append(filling, v.Type())
		for i := range v.NumField() {
			f := v.Field(i)
			if !f.CanSet() {
				f = reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem()
			}
			if !fillValue(f, root, salt, filling) {
				return false
			}
		}
	case reflect.Interface:
		switch {
		case v.NumMethod() == 0:
			v.Set(reflect.ValueOf("filled-" + string(rune('0'+salt))))
		case root.Implements(v.Type()):
			v.Set(reflect.New(root.Elem()))
		default:
			return false
		}
	default: // func, chan, unsafe pointer
		return false
	}
	return true
}
