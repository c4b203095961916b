package controllerruntime

import (
	"bytes"
	"reflect"
	"sync"

	"github.com/converge-sim/converge/controllerruntime/convert"
	"github.com/converge-sim/converge/controllerruntime/crd"
	"github.com/converge-sim/converge/model"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// memoApplies turns the apply memo on (docs/design.md, "Applies
// remembered"); off, every apply runs the field manager.
var memoApplies = true

// applyMemo remembers what the API server's field manager gave for an
// apply. Its Apply is a function of the live object it starts from (the
// stored object with the managed fields recorded for it), the applied
// configuration, the manager and force alone: the field manager keeps no
// state between calls, and the only other input, the wall clock it stamps
// changed entries with, is replaced by virtual time afterwards
// (modelClient.managedOf). A controller that applies the same
// configuration every reconcile, as trust-manager's does, asks it the same
// question again and again within a run, and every run of a search or an
// exploration asks it again: the field manager was 42 % of a random run of
// trust-manager (BENCHMARKS.md, "Issue 21's suite: where the time goes").
//
// An apply is looked up by its converter, kind, subresource, manager,
// force, object name and the stored object's resourceVersion, and found
// only where the stored object is equal in every field
// (crd.SameObject), the recorded managed fields are deeply equal and the
// applied bytes are the same: never a hash alone. Only applies that
// succeed are remembered; a conflict runs the field manager again. What
// is remembered is a deep copy, and each hit hands out a deep copy, so
// no caller shares an object with another. The memo is safe for runs in
// several goroutines.
var applyMemo struct {
	mu      sync.Mutex
	entries map[applyKey][]appliedEntry
	n, hits int
}

// maxApplies bounds the applies the memo remembers; once it holds that
// many it starts again from none.
const maxApplies = 1 << 12

// applyKey narrows the lookup; the objects decide.
type applyKey struct {
	conv                     *convert.Converter
	kind                     string
	status, force            bool
	manager, namespace, name string
	rv                       uint64
}

// appliedEntry is one remembered apply: the stored object it started
// from (nil for a create), the managed fields recorded for it, the
// applied bytes, and the field manager's result.
type appliedEntry struct {
	cur  *model.Object
	prev []metav1.ManagedFieldsEntry
	data []byte
	out  runtime.Object
}

func applyKeyOf(conv *convert.Converter, kind, namespace, name, manager string, force, status bool, cur *model.Object) applyKey {
	k := applyKey{conv: conv, kind: kind, status: status, force: force, manager: manager, namespace: namespace, name: name}
	if cur != nil {
		k.rv = cur.ResourceVersion
	}
	return k
}

// appliedBefore returns a copy of what the field manager gave for the
// same apply, if the memo holds one.
func appliedBefore(k applyKey, cur *model.Object, prev []metav1.ManagedFieldsEntry, data []byte) (runtime.Object, bool) {
	if !memoApplies {
		return nil, false
	}
	applyMemo.mu.Lock()
	defer applyMemo.mu.Unlock()
	for _, e := range applyMemo.entries[k] {
		if crd.SameObject(e.cur, cur) && sameManaged(e.prev, prev) && bytes.Equal(e.data, data) {
			applyMemo.hits++
			return e.out.DeepCopyObject(), true
		}
	}
	return nil, false
}

// rememberApply keeps copies of an apply's inputs and of what the field
// manager gave for it.
func rememberApply(k applyKey, cur *model.Object, prev []metav1.ManagedFieldsEntry, data []byte, out runtime.Object) {
	if !memoApplies {
		return
	}
	e := appliedEntry{prev: cloneManaged(prev), data: bytes.Clone(data), out: out.DeepCopyObject()}
	if cur != nil {
		e.cur = cur.DeepCopy()
	}
	applyMemo.mu.Lock()
	defer applyMemo.mu.Unlock()
	if applyMemo.entries == nil || applyMemo.n >= maxApplies {
		applyMemo.entries, applyMemo.n = map[applyKey][]appliedEntry{}, 0
	}
	applyMemo.entries[k] = append(applyMemo.entries[k], e)
	applyMemo.n++
}

// sameManaged reports whether two records of managed fields are equal,
// none and empty alike.
func sameManaged(a, b []metav1.ManagedFieldsEntry) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	return reflect.DeepEqual(a, b)
}
