// Package shared lets the adapter's own built-in controllers
// (controllerruntime/builtin) read the manager's decoded objects themselves,
// without the deep copy every other reader gets (docs/design.md, "Reads
// that copy once"). A reader that gets a shared object must not modify it:
// it copies what it is about to change. Users' code never sees this
// package; a user's reconciler owns what it reads.
//
// Log checks that promise in tests: while one is installed, every shared
// object handed out is recorded with a deep copy, and Changed reports the
// ones modified since.
package shared

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Reader is implemented by the adapter's clients: Get and List that hand
// back the manager's decoded objects themselves. ReadShared reports
// whether they do (false: the objects returned are the caller's own).
type Reader interface {
	GetShared(ctx context.Context, key client.ObjectKey, like client.Object) (client.Object, error)
	ListShared(ctx context.Context, list client.ObjectList, opts ...client.ListOption) ([]client.Object, error)
}

// Enabled turns shared reads on; false only in the test that checks they
// give the traces copies give (TestFastPathsGiveTheSameTraces).
var Enabled = true

// KeepHashes lets the built-in Deployment controller keep the template
// hash of each Deployment version it read; false only in the test that
// checks it gives the traces hashing every time gives.
var KeepHashes = true

// Get reads the object key names, of T's type, through c: the decoded
// object itself when c is a Reader, a fresh one otherwise. The caller must
// not modify it.
func Get[T client.Object](ctx context.Context, c client.Reader, key client.ObjectKey) (T, error) {
	like := newObject[T]()
	if r, ok := c.(Reader); ok && Enabled {
		obj, err := r.GetShared(ctx, key, like)
		if err != nil {
			var zero T
			return zero, err
		}
		t, ok := obj.(T)
		if !ok {
			var zero T
			return zero, fmt.Errorf("shared get of %T returned %T", like, obj)
		}
		record(t)
		return t, nil
	}
	if err := c.Get(ctx, key, like); err != nil {
		var zero T
		return zero, err
	}
	return like, nil
}

// List reads the objects of list's item type (T) through c, as c.List
// would fill list: the decoded objects themselves when c is a Reader,
// list's own items otherwise. The caller must not modify them.
func List[T client.Object](ctx context.Context, c client.Reader, list client.ObjectList, opts ...client.ListOption) ([]T, error) {
	if r, ok := c.(Reader); ok && Enabled {
		objs, err := r.ListShared(ctx, list, opts...)
		if err != nil {
			return nil, err
		}
		out := make([]T, len(objs))
		for i, o := range objs {
			t, ok := o.(T)
			if !ok {
				return nil, fmt.Errorf("shared list of %T returned %T", list, o)
			}
			record(t)
			out[i] = t
		}
		return out, nil
	}
	if err := c.List(ctx, list, opts...); err != nil {
		return nil, err
	}
	items, err := meta.ExtractList(list)
	if err != nil {
		return nil, err
	}
	out := make([]T, len(items))
	for i, it := range items {
		t, ok := it.(T)
		if !ok {
			return nil, fmt.Errorf("list %T holds %T", list, it)
		}
		out[i] = t
	}
	return out, nil
}

// newObject returns a new zero object of T, a pointer type.
func newObject[T client.Object]() T {
	return reflect.New(reflect.TypeFor[T]().Elem()).Interface().(T)
}

// Log records the shared objects handed out while it is installed.
type Log struct {
	mu   sync.Mutex
	seen map[client.Object]client.Object
	n    int
}

// current is the Log installed, if any.
var current atomic.Pointer[Log]

// Install starts recording every shared object handed out, with a deep
// copy of it, and returns the log and a func that stops recording.
func Install() (*Log, func()) {
	l := &Log{seen: map[client.Object]client.Object{}}
	current.Store(l)
	return l, func() { current.CompareAndSwap(l, nil) }
}

func record(obj client.Object) {
	l := current.Load()
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.n++
	if _, ok := l.seen[obj]; !ok {
		l.seen[obj] = obj.DeepCopyObject().(client.Object)
	}
}

// Reads is how many shared objects were handed out.
func (l *Log) Reads() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.n
}

// Changed names the shared objects handed out that differ from what they
// were when first handed out (reflect.DeepEqual).
func (l *Log) Changed() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for obj, was := range l.seen {
		if !reflect.DeepEqual(obj, was) {
			out = append(out, fmt.Sprintf("%T %s/%s (resourceVersion %s)", obj, obj.GetNamespace(), obj.GetName(), obj.GetResourceVersion()))
		}
	}
	slices.Sort(out)
	return out
}
