package crd

import (
	"slices"
	"sync"

	"github.com/converge-sim/converge/controllerruntime/convert"
	"github.com/converge-sim/converge/model"
)

// admissionMemo remembers what admitting writes of one version through
// one converter gave. Admission is a function of the verb and the two
// objects alone (the schema, its defaults and its rules are the
// version's), and runs meet the same writes again and again: an
// exploration replays a prefix of its path for every branch it takes
// (docs/design.md, "Bounded exhaustive exploration"), a search starts
// every run from the same world. Pruning, defaulting and validating
// against the OpenAPI schema and the CEL rules is most of the cost of a
// custom resource's write, and a third of an exploration of an operator
// whose controller writes its status every reconcile.
//
// A write is looked up by its verb, its object's name and the versions
// both objects carry, and found only where every field of both objects is
// equal to a remembered write's: never a hash alone. The memo is safe for
// runs in several goroutines (exploration workers, search workers), which
// share the Set of a scenario's world.
type admissionMemo struct {
	mu      sync.Mutex
	entries map[admissionKey][]admission
	n       int
}

// maxAdmissions bounds the writes a memo remembers; once it holds that
// many it starts again from none.
const maxAdmissions = 1 << 14

// admissionKey narrows the lookup; the objects decide.
type admissionKey struct {
	conv            *convert.Converter
	verb            model.Verb
	namespace, name string
	oldRV, rv       uint64
}

// admission is one remembered write: its two objects as they were
// admitted, and what admitting them gave, the rejection or the spec and
// status admission left on the object. Spec and status are copied on
// write (model.Fields), so handing them out shares nothing a caller can
// change.
type admission struct {
	old, obj     *model.Object
	err          *model.StatusError
	spec, status model.Fields
}

func keyOf(conv *convert.Converter, verb model.Verb, old, obj *model.Object) admissionKey {
	k := admissionKey{conv: conv, verb: verb, namespace: obj.Namespace, name: obj.Name, rv: obj.ResourceVersion}
	if old != nil {
		k.oldRV = old.ResourceVersion
	}
	return k
}

// admitted applies the outcome of an admission of the same write, if one
// is remembered: it reports whether it found one, and the error to return.
func (m *admissionMemo) admitted(k admissionKey, old, obj *model.Object) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, a := range m.entries[k] {
		if !SameObject(a.old, old) || !SameObject(a.obj, obj) {
			continue
		}
		if a.err != nil {
			err := *a.err
			err.Causes = slices.Clone(a.err.Causes)
			return true, &err
		}
		obj.Spec, obj.Status = a.spec, a.status
		return true, nil
	}
	return false, nil
}

// remember records what admitting the write of old and in gave: err, or
// out's spec and status. in is the object as it was before admission.
func (m *admissionMemo) remember(k admissionKey, old, in, out *model.Object, err error) {
	a := admission{old: old.DeepCopy(), obj: in}
	if err != nil {
		se, ok := err.(*model.StatusError)
		if !ok {
			return
		}
		c := *se
		c.Causes = slices.Clone(se.Causes)
		a.err = &c
	} else {
		a.spec, a.status = out.Spec, out.Status
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.entries == nil || m.n >= maxAdmissions {
		m.entries, m.n = map[admissionKey][]admission{}, 0
	}
	m.entries[k] = append(m.entries[k], a)
	m.n++
}

// SameObject reports whether a and b are equal in every field a write
// carries to admission: what a memo keyed by an object must compare
// before it hands out what it remembered (the adapter's apply memo
// compares the live object an apply starts from the same way).
func SameObject(a, b *model.Object) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Kind == b.Kind && a.Namespace == b.Namespace && a.Name == b.Name &&
		a.GenerateName == b.GenerateName && a.UID == b.UID &&
		a.ResourceVersion == b.ResourceVersion && a.Generation == b.Generation &&
		a.CreationTimestamp == b.CreationTimestamp &&
		sameTime(a.DeletionTimestamp, b.DeletionTimestamp) &&
		slices.Equal(a.Finalizers, b.Finalizers) && a.Labels.Equal(b.Labels) &&
		slices.Equal(a.OwnerReferences, b.OwnerReferences) &&
		a.Spec.Equal(b.Spec) && a.Status.Equal(b.Status) && a.FieldManager == b.FieldManager
}

func sameTime(a, b *model.Time) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}
