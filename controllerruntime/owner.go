package controllerruntime

import (
	"reflect"
	"strings"
	"sync"
	"unsafe"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// controller-runtime's EnqueueRequestForOwner (the handler of every Owns
// watch the builder makes, and of a Watches that names it) only reads an
// event's owner references, so its events may carry the memo's own
// objects (docs/design.md, "Reads that copy once"). It comes wrapped by
// handler.WithLowPriorityWhenUnchanged in a handler.TypedFuncs whose four
// functions are the method values u.Create, u.Update, u.Delete and
// u.Generic of the handler u inside: reflect shows a TypedFuncs of four
// functions, not whose they are.
//
// A method value is a closure whose code is a wrapper the compiler makes
// for that method of that interface type, and whose one captured value is
// the receiver, an interface. ownerHandler reads the receiver out of the
// closure, and does so only when the function's code is the very wrapper
// that handler.WithLowPriorityWhenUnchanged[client.Object,
// reconcile.Request] uses (the builder's instantiation), as this package
// finds by wrapping a handler of its own (ownerWrapper): the same code
// reads its closure the same way. ownerWrapper also checks that reading
// its own wrap gives back the handler it wrapped. If a later
// controller-runtime wraps differently, or a compiler lays closures out
// otherwise, nothing is recognised and such watches take copies: slower,
// never wrong.

// ownsReadOnly is false only in TestFastPathsGiveTheSameTraces, which
// checks that EnqueueRequestForOwner's events with the memo's own objects
// give the traces of its events with copies.
var ownsReadOnly = true

// wrappedHandler is the interface WithLowPriorityWhenUnchanged wraps, in
// the builder's instantiation.
type wrappedHandler = handler.TypedEventHandler[client.Object, reconcile.Request]

// funcsFields are the TypedFuncs fields WithLowPriorityWhenUnchanged sets,
// each to the method value of the method named by the field's prefix.
var funcsFields = []string{"CreateFunc", "UpdateFunc", "DeleteFunc", "GenericFunc"}

// wrapperCode holds what WithLowPriorityWhenUnchanged returns in the
// builder's instantiation: its type, the indices of funcsFields in it and
// the code of its four method values, in funcsFields' order; ok is false
// when its wrap cannot be read.
type wrapperCode struct {
	typ   reflect.Type
	index [4]int
	code  [4]uintptr
	ok    bool
}

var ownerWrapper = sync.OnceValue(func() wrapperCode {
	probe := &handler.EnqueueRequestForObject{}
	wrapped := reflect.ValueOf(handler.WithLowPriorityWhenUnchanged[client.Object, reconcile.Request](probe))
	if wrapped.Kind() != reflect.Struct || wrapped.Type().PkgPath() != handlerPackage {
		return wrapperCode{}
	}
	w := wrapperCode{typ: wrapped.Type()}
	for i, name := range funcsFields {
		sf, ok := w.typ.FieldByName(name)
		if !ok || len(sf.Index) != 1 || sf.Type.Kind() != reflect.Func {
			return wrapperCode{}
		}
		f := wrapped.Field(sf.Index[0])
		if f.IsNil() {
			return wrapperCode{}
		}
		// The closure's captured receiver must be the handler wrapped:
		// compared as words, before anything is read through them.
		iface, data := closureWords(f)
		var want wrappedHandler = probe
		words := (*[2]unsafe.Pointer)(unsafe.Pointer(&want))
		if iface != words[0] || data != words[1] {
			return wrapperCode{}
		}
		w.index[i], w.code[i] = sf.Index[0], f.Pointer()
	}
	w.ok = true
	return w
})

// closureWords returns the two words after the code pointer of the
// closure f: the receiver interface of a method value. A func value is
// one pointer, to its closure, and is stored in an interface as is.
func closureWords(f reflect.Value) (unsafe.Pointer, unsafe.Pointer) {
	e := f.Interface()
	closure := (*[2]unsafe.Pointer)(unsafe.Pointer(&e))[1]
	words := (*[3]unsafe.Pointer)(closure)
	return words[1], words[2]
}

// ownerHandler reports whether h, a watch's handler, is
// EnqueueRequestForOwner as its constructor returns it: a TypedFuncs
// whose four functions are WithLowPriorityWhenUnchanged's method values
// of one handler of the handler package's enqueueRequestForOwner type.
func ownerHandler(h reflect.Value) bool {
	w := ownerWrapper()
	if !w.ok || h.Type() != w.typ {
		return false
	}
	var receiver [2]unsafe.Pointer
	for i, index := range w.index {
		f := h.Field(index)
		if f.IsNil() || f.Pointer() != w.code[i] {
			return false
		}
		iface, data := closureWords(f)
		if i > 0 && (iface != receiver[0] || data != receiver[1]) {
			return false
		}
		receiver = [2]unsafe.Pointer{iface, data}
	}
	u := *(*wrappedHandler)(unsafe.Pointer(&receiver))
	ut := reflect.TypeOf(u)
	return ut != nil && ut.Kind() == reflect.Pointer && ut.Elem().PkgPath() == handlerPackage &&
		strings.HasPrefix(ut.Elem().Name(), "enqueueRequestForOwner[")
}
