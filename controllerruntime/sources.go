package controllerruntime

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"unsafe"

	"github.com/converge-sim/converge/model"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	crsource "sigs.k8s.io/controller-runtime/pkg/source"
)

// This file reads what the real builder declared. ctrl.NewControllerManagedBy
// builds a controller-runtime controller (its internal Controller type) and
// hands it to Manager.Add before it calls Watch for each For, Owns and
// Watches; the controller keeps those sources until it starts. The model
// never starts it (starting would spawn controller-runtime's goroutines and
// its own work queue): it reads the kept sources, each a source.Kind with
// exported fields Type, Handler and Predicates, and runs their handlers and
// predicates itself when the model's informers notify. See
// docs/design.md, "Running users' projects as they are".

// internalPackage is where controller-runtime keeps the concrete types of
// its controller and Kind source.
const internalPackage = "sigs.k8s.io/controller-runtime/pkg/internal/"

// kindSource is one watch of a real controller: the model kind it watches,
// its event handler and predicates, as reflect values (their type
// parameter is the watched object type).
type kindSource struct {
	kind    string
	gvkOnly bool // a metadata-only watch (builder.OnlyMetadata)
	// unstructured: the watch was declared with an unstructured object,
	// so its handlers and predicates get unstructured objects.
	unstructured bool
	handler      reflect.Value
	predicates   reflect.Value
	owner        bool
	description  string
	// readOnly: only controller-runtime's own code sees its events.
	readOnly bool
	// calls are how each type of event reaches the handler and the
	// predicates, looked up on the first event of the type.
	calls [3]*eventCall
}

// eventCall is how one type of event (create, update, delete) reaches a
// watch's handler and predicates: their methods for it and the fields of
// its event struct, looked up once rather than by name at every event.
type eventCall struct {
	handler    reflect.Value
	predicates []reflect.Value
	event      reflect.Type
	// object, old and unknown are the indices of the event's Object (or
	// ObjectNew), ObjectOld and DeleteStateUnknown fields; -1 where the
	// event has none.
	object, old, unknown int
}

// eventKinds are the model's event types in the order of kindSource.calls,
// with the method controller-runtime's handlers and predicates take each by.
var eventKinds = [3]struct {
	typ    model.EventType
	method string
}{{model.Added, "Create"}, {model.Modified, "Update"}, {model.Deleted, "Delete"}}

// call returns how events of type t reach the watch, or nil for a type
// controller-runtime has no handler method for.
func (s *kindSource) call(t model.EventType) *eventCall {
	for i, k := range eventKinds {
		if k.typ != t {
			continue
		}
		if s.calls[i] == nil {
			s.calls[i] = s.lookUp(k.method)
		}
		return s.calls[i]
	}
	return nil
}

// lookUp finds the methods and fields events of a type take by method.
func (s *kindSource) lookUp(method string) *eventCall {
	h := s.handler.MethodByName(method)
	ec := &eventCall{handler: h, event: h.Type().In(1), object: -1, old: -1, unknown: -1}
	field := func(name string) int {
		if f, ok := ec.event.FieldByName(name); ok && len(f.Index) == 1 {
			return f.Index[0]
		}
		return -1
	}
	if method == "Update" {
		ec.object, ec.old = field("ObjectNew"), field("ObjectOld")
	} else {
		ec.object, ec.unknown = field("Object"), field("DeleteStateUnknown")
	}
	for i := range s.predicates.Len() {
		if p := s.predicates.Index(i); !p.IsNil() {
			ec.predicates = append(ec.predicates, p.MethodByName(method))
		}
	}
	return ec
}

// objectValue returns o as a value of type t, the type of an event's
// object field: a field of interface type is set from a value of that
// very type, which spares reflect a check that o implements it.
func objectValue(o client.Object, t reflect.Type) reflect.Value {
	if t == clientObjectType {
		return reflect.ValueOf(&o).Elem()
	}
	return reflect.ValueOf(o)
}

var clientObjectType = reflect.TypeFor[client.Object]()

// controllerValue returns the struct inside a controller-runtime
// controller, or an error naming what the model cannot run.
func controllerValue(c controller.Controller) (reflect.Value, error) {
	v := reflect.ValueOf(c)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct || !strings.HasPrefix(v.Elem().Type().PkgPath(), internalPackage+"controller") {
		return reflect.Value{}, fmt.Errorf("Add(%T): only controllers built by ctrl.NewControllerManagedBy or controller.New can run in the model", c)
	}
	return v.Elem(), nil
}

// startWatches reads the sources a controller keeps until it starts: an
// unexported field, read without starting the controller.
func startWatches(v reflect.Value) ([]crsource.TypedSource[reconcile.Request], error) {
	f := v.FieldByName("startWatches")
	want := reflect.TypeFor[[]crsource.TypedSource[reconcile.Request]]()
	if !f.IsValid() || f.Type() != want || !f.CanAddr() {
		return nil, fmt.Errorf("this controller-runtime version keeps its watches differently (no startWatches %v in %v)", want, v.Type())
	}
	return *(*[]crsource.TypedSource[reconcile.Request])(unsafe.Pointer(f.UnsafeAddr())), nil
}

// kindOf reads one source.Kind: the object type it watches, its handler
// and predicates. Other sources (channels, funcs, a user's own Source)
// are not run by the model.
func (e *env) kindOf(src crsource.TypedSource[reconcile.Request]) (*kindSource, error) {
	v := reflect.ValueOf(src)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct || !strings.HasPrefix(v.Elem().Type().PkgPath(), internalPackage+"source") || !strings.HasPrefix(v.Elem().Type().Name(), "Kind[") {
		return nil, fmt.Errorf("WatchesRawSource(%T): only source.Kind sources run in the model; channel and func sources are not supported", src)
	}
	s := v.Elem()
	typ, handler, preds := s.FieldByName("Type"), s.FieldByName("Handler"), s.FieldByName("Predicates")
	if !typ.IsValid() || !handler.IsValid() || !preds.IsValid() {
		return nil, fmt.Errorf("this controller-runtime version's source.Kind has no Type, Handler and Predicates fields")
	}
	if handler.IsNil() {
		return nil, fmt.Errorf("source %v has no event handler", src)
	}
	obj, ok := typ.Interface().(client.Object)
	if !ok || typ.IsNil() {
		return nil, fmt.Errorf("source %v has no object type", src)
	}
	_, isUnstructured := obj.(runtime.Unstructured)
	ks := &kindSource{handler: handler.Elem(), predicates: preds, description: fmt.Sprint(src), unstructured: isUnstructured}
	if pom, ok := obj.(*metav1.PartialObjectMetadata); ok {
		gvk := pom.GroupVersionKind()
		full, err := e.conv.Scheme().New(gvk)
		if err != nil {
			return nil, fmt.Errorf("metadata-only watch of %v: %w", gvk, err)
		}
		obj = full.(client.Object)
		ks.gvkOnly = true
	}
	if e.pin != nil {
		conv, err := e.pin(obj)
		if err != nil {
			return nil, fmt.Errorf("watch of %T: %w", obj, err)
		}
		e.conv = conv
	}
	kind, err := e.conv.Kind(obj)
	if err != nil {
		return nil, fmt.Errorf("watch of %T: %w", obj, err)
	}
	ks.kind = kind
	ks.owner = strings.Contains(handler.Elem().Type().String(), "enqueueRequestForOwner")
	ks.readOnly = readOnly(ks.handler, preds)
	return ks, nil
}

// handlerPackage is where controller-runtime's own event handlers live.
const handlerPackage = "sigs.k8s.io/controller-runtime/pkg/handler"

// readOnly reports whether a watch runs no code but controller-runtime's
// own: its handler is EnqueueRequestForObject, which reads the object's
// name and namespace (or a handler.Funcs with no functions), or
// EnqueueRequestForOwner, which reads its owner references (recognised
// inside its wrapper by ownerHandler), and it has no predicates. Its
// events may then carry the memo's own decoded objects, uncopied.
func readOnly(handler, preds reflect.Value) bool {
	if !noPredicates(preds) {
		return false
	}
	if ownerHandler(handler) {
		return ownsReadOnly
	}
	t := handler.Type()
	if t.Kind() == reflect.Pointer {
		return t.Elem().PkgPath() == handlerPackage && strings.HasPrefix(t.Elem().Name(), "TypedEnqueueRequestForObject[")
	}
	if t.Kind() != reflect.Struct || t.PkgPath() != handlerPackage || !strings.HasPrefix(t.Name(), "TypedFuncs[") {
		return false
	}
	for i := range t.NumField() {
		if f := handler.Field(i); f.Kind() != reflect.Func || !f.IsNil() {
			return false
		}
	}
	return true
}

// noPredicates reports whether a watch's predicates (a slice) are all nil.
func noPredicates(preds reflect.Value) bool {
	for i := range preds.Len() {
		if !preds.Index(i).IsNil() {
			return false
		}
	}
	return true
}

// dispatch runs one model notification through a controller's sources of
// its kind, in the order the builder declared them, as controller-runtime's
// event handler does: every predicate must pass, then the handler enqueues
// into q.
func (e *env) dispatch(ctx context.Context, sources []*kindSource, note model.Notification, q *collector) {
	// The handler's parameters are interfaces: values of those very types
	// spare reflect a check at each call that ours implement them.
	var queue workqueue.TypedRateLimitingInterface[reconcile.Request] = q
	ctxValue, queueValue := reflect.ValueOf(&ctx).Elem(), reflect.ValueOf(&queue).Elem()
	var forms eventForms
	for _, s := range sources {
		if s.kind != note.Kind {
			continue
		}
		obj, old := forms.get(e, note, s.unstructured && !s.gvkOnly, s.readOnly || s.gvkOnly)
		o, ol := obj, old
		if ol == nil {
			ol = o
		}
		if s.gvkOnly {
			o, ol = metadataOf(obj), metadataOf(old)
		}
		call := s.call(note.Type)
		if call == nil {
			continue
		}
		ev := reflect.New(call.event).Elem()
		set := func(i int, o client.Object) {
			if i >= 0 {
				f := ev.Field(i)
				f.Set(objectValue(o, f.Type()))
			}
		}
		set(call.object, o)
		set(call.old, ol)
		if call.unknown >= 0 {
			ev.Field(call.unknown).SetBool(note.FinalStateUnknown)
		}
		args := []reflect.Value{ev}
		pass := true
		for _, p := range call.predicates {
			if pass = p.Call(args)[0].Bool(); !pass {
				break
			}
		}
		if pass {
			call.handler.Call([]reflect.Value{ctxValue, ev, queueValue})
		}
	}
	if note.Type == model.Deleted && e.memo != nil && note.Object != nil {
		e.memo.forget(note.Object.UID)
	}
}

// eventForms decodes a notification's objects once per form a watch
// asks for: typed, or unstructured as controller-runtime's unstructured
// informer hands them over; each either a private copy, for watches that
// run users' code, or the memo's own, for watches that only read them.
type eventForms [2][2]struct{ obj, old client.Object }

// get returns the notification's new and old object in the form asked for.
func (f *eventForms) get(e *env, note model.Notification, unstructured, shared bool) (obj, old client.Object) {
	i, j := 0, 0
	if unstructured {
		i = 1
	}
	decode := e.eventObject
	if shared {
		j, decode = 1, e.sharedObject
	}
	form := &f[i][j]
	if form.obj == nil {
		form.obj = decode(note.Object, unstructured)
		switch {
		case note.Old == note.Object:
			form.old = form.obj
		case note.Old != nil:
			form.old = decode(note.Old, unstructured)
		}
	}
	return form.obj, form.old
}

// sharedObject returns the memo's own decoded version of a stored object,
// uncopied, for code that only reads it; or, when the memo lacks it, a
// fresh decode.
func (e *env) sharedObject(mo *model.Object, asUnstructured bool) client.Object {
	if e.memo == nil || e.versions != nil || mo.UID == "" || mo.ResourceVersion == 0 {
		return e.eventObject(mo, asUnstructured)
	}
	if obj := e.memo.peek(mo.UID, mo.ResourceVersion, asUnstructured); obj != nil {
		return obj
	}
	// A fresh decode, which the memo keeps itself rather than a copy of
	// it: its readers only read it, as they read the memo's own.
	obj := e.decodeEvent(mo, asUnstructured, func(mo *model.Object, into client.Object) error {
		if sharedDecode {
			return e.conv.FromModelShared(mo, into)
		}
		return e.conv.FromModel(mo, into)
	})
	e.memo.keep(mo.UID, mo.ResourceVersion, obj)
	return obj
}

// eventObject decodes a stored object the informer handed over, typed or
// unstructured (a kind without a Go type is unstructured either way);
// failing to decode it is a finding (a real informer would log and drop
// it).
func (e *env) eventObject(mo *model.Object, asUnstructured bool) client.Object {
	return e.decodeEvent(mo, asUnstructured, e.fromModel)
}

// decodeEvent decodes mo into a new object, typed or unstructured, with
// decode; failing to decode it is a finding.
func (e *env) decodeEvent(mo *model.Object, asUnstructured bool, decode func(*model.Object, client.Object) error) client.Object {
	var like runtime.Object
	if asUnstructured {
		like = &unstructured.Unstructured{}
	}
	obj, err := e.newObject(mo.Kind, like)
	if err == nil {
		err = decode(mo, obj)
	}
	if err != nil {
		panic(fmt.Sprintf("controllerruntime: cannot decode %s: %v", mo.Ref(), err))
	}
	return obj
}

// metadataOf is obj as a metadata-only watch sees it.
func metadataOf(obj client.Object) client.Object {
	if obj == nil {
		return nil
	}
	pom := &metav1.PartialObjectMetadata{}
	pom.SetGroupVersionKind(obj.GetObjectKind().GroupVersionKind())
	if m, err := metaAccessor(obj); err == nil {
		pom.ObjectMeta = *m.DeepCopy()
	}
	return pom
}

// metaAccessor returns the ObjectMeta of a typed object.
func metaAccessor(obj client.Object) (*metav1.ObjectMeta, error) {
	v := reflect.ValueOf(obj)
	if v.Kind() == reflect.Pointer && v.Elem().Kind() == reflect.Struct {
		if f := v.Elem().FieldByName("ObjectMeta"); f.IsValid() && f.Type() == reflect.TypeFor[metav1.ObjectMeta]() {
			return f.Addr().Interface().(*metav1.ObjectMeta), nil
		}
	}
	return nil, fmt.Errorf("%T has no ObjectMeta", obj)
}
