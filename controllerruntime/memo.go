package controllerruntime

import (
	"reflect"
	"sync"

	"github.com/converge-sim/converge/model"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// memoLimit bounds a memo; past it the memo starts afresh.
const memoLimit = 4096

// memoKey names one stored version of one object. Within one cluster a
// UID and a resourceVersion name exactly one content: every write to an
// object gives it a new resourceVersion.
type memoKey struct {
	uid model.UID
	rv  uint64
}

// memo keeps the typed form of the stored versions a manager's clients
// and event handlers have decoded, since decoding is the costliest step of
// a reconcile and the same version is read again and again. It belongs to
// one cluster: across clusters the same UID and resourceVersion name
// different contents.
type memo map[memoKey]client.Object

// versionMemo keeps the typed form of stored versions by their identity:
// the API server never modifies a stored version (a write stores a new
// one), so one pointer names one content in every cluster, and a memo of
// them may outlive a cluster, as an invariant's does. Holding the pointer
// keeps it from being reused. It is safe for concurrent use: a scenario's
// invariants are shared by fuzzrun's workers.
type versionMemo struct {
	mu sync.Mutex
	m  map[*model.Object]client.Object
}

func newVersionMemo() *versionMemo {
	return &versionMemo{m: map[*model.Object]client.Object{}}
}

// fromModel converts mo into into, through the memo when there is one.
func (e *env) fromModel(mo *model.Object, into client.Object) error {
	if e.versions != nil {
		return e.versions.fromModel(e, mo, into)
	}
	if e.memo == nil || mo.UID == "" || mo.ResourceVersion == 0 {
		return e.conv.FromModel(mo, into)
	}
	k := memoKey{mo.UID, mo.ResourceVersion}
	if cached, ok := e.memo[k]; ok && reflect.TypeOf(cached) == reflect.TypeOf(into) {
		reflect.ValueOf(into).Elem().Set(reflect.ValueOf(cached.DeepCopyObject()).Elem())
		return nil
	}
	if err := e.conv.FromModel(mo, into); err != nil {
		return err
	}
	if len(e.memo) >= memoLimit {
		clear(e.memo)
	}
	e.memo[k] = into.DeepCopyObject().(client.Object)
	return nil
}

// fromModel converts a stored version mo into into, through the memo.
func (vm *versionMemo) fromModel(e *env, mo *model.Object, into client.Object) error {
	vm.mu.Lock()
	cached, ok := vm.m[mo]
	vm.mu.Unlock()
	if ok && reflect.TypeOf(cached) == reflect.TypeOf(into) {
		reflect.ValueOf(into).Elem().Set(reflect.ValueOf(cached.DeepCopyObject()).Elem())
		return nil
	}
	if err := e.conv.FromModel(mo, into); err != nil {
		return err
	}
	vm.mu.Lock()
	defer vm.mu.Unlock()
	if len(vm.m) >= memoLimit {
		clear(vm.m)
	}
	vm.m[mo] = into.DeepCopyObject().(client.Object)
	return nil
}
