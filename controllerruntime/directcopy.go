package controllerruntime

import (
	"reflect"
	"unsafe"
)

// A custom resource's DeepCopyInto is found through reflection, since
// its type is the user's; called through reflect.Value.Call, each copy
// pays the call machinery (the arguments' []reflect.Value, the frame
// reflect builds and copies the registers through) on top of the copy
// itself (BENCHMARKS.md, "Custom resources copied without reflection").
// A method expression of a pointer type, func(*T, *T), is called exactly
// as a func(unsafe.Pointer, unsafe.Pointer): both arguments are one
// pointer word. So each type's method is turned into that func once, and
// called with the objects' pointers. The conversion is checked at the
// type's first copy against reflect.Value.Call, and a type that fails the
// check keeps the reflective call (docs/design.md, "Reads that copy
// once").

// copyFunc is a DeepCopyInto of some pointer type T called with two *T
// as plain pointers: src, then the destination.
type copyFunc func(src, into unsafe.Pointer)

// directCopyFunc returns copyInto, the DeepCopyInto method of t (a
// pointer to a struct, the method checked by newCopyMethod to take one
// t besides its receiver and return nothing), as a copyFunc, or nil
// when t is not a pointer to a struct or the self-check fails: a source
// filled with values of its own (fillValue; a zero one where it cannot
// be filled) copied by the copyFunc must come out equal
// (reflect.DeepEqual) to the same source copied by reflect.Value.Call,
// without a panic.
func directCopyFunc(t reflect.Type, copyInto reflect.Method) (f copyFunc) {
	if t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct ||
		copyInto.Func.Kind() != reflect.Func || copyInto.Type.NumIn() != 2 ||
		copyInto.Type.In(0) != t || copyInto.Type.In(1) != t || copyInto.Type.NumOut() != 0 {
		return nil
	}
	defer func() {
		if recover() != nil {
			f = nil
		}
	}()
	method := copyInto.Func.Interface() // a func(*T, *T), held in the interface's data word
	word := (*[2]unsafe.Pointer)(unsafe.Pointer(&method))[1]
	f = *(*copyFunc)(unsafe.Pointer(&word))
	src := reflect.New(t.Elem())
	if !fillValue(src.Elem(), t, fillSource, nil) {
		src = reflect.New(t.Elem())
	}
	viaCall, direct := reflect.New(t.Elem()), reflect.New(t.Elem())
	copyInto.Func.Call([]reflect.Value{src, viaCall})
	f(src.UnsafePointer(), direct.UnsafePointer())
	if !reflect.DeepEqual(viaCall.Interface(), direct.Interface()) {
		return nil
	}
	return f
}

// pointerOf is the pointer an object holds: every client.Object of the
// API machinery is a pointer to a struct.
func pointerOf(obj any) unsafe.Pointer {
	return reflect.ValueOf(obj).UnsafePointer()
}
