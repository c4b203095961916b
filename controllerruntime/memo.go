package controllerruntime

import (
	"reflect"

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

// fromModel converts mo into into, through the memo when there is one.
func (e *env) fromModel(mo *model.Object, into client.Object) error {
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
