package controllerruntime

import (
	"reflect"
	"strings"
	"sync"

	"github.com/converge-sim/converge/model"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// memoLimit bounds the objects a memo keeps versions of; past it the memo
// starts afresh.
const memoLimit = 4096

// memoVersions is how many versions (in each form, typed or unstructured)
// a memo keeps of one object: the newest ones it has seen. An update
// notification carries two; an informer held back by a fault may lag a
// version behind another's.
const memoVersions = 4

// memoEntry is one decoded version of an object.
type memoEntry struct {
	rv  uint64
	obj client.Object
	// status is the status StatusToModel gives obj, once encoded
	// (statusEncoded): what a status update of an object read at this
	// version sends when its status is still the one read (readStatus).
	status        model.Fields
	statusEncoded bool
}

// memo keeps the typed form of the stored versions a manager's clients
// and event handlers have decoded, since decoding is the costliest step of
// a reconcile and the same version is read again and again. Within one
// cluster a UID and a resourceVersion name exactly one content: every
// write gives the object a new resourceVersion, so a write never leaves a
// stale entry behind, and an entry is never handed out itself, only a
// deep copy, so a reader that modifies what it read cannot change it. A
// memo belongs to one cluster: across clusters the same UID and
// resourceVersion name different contents. It keeps the few newest
// versions of each object and forgets a deleted object.
type memo map[model.UID][]memoEntry

// get copies the memoized version rv of an object into into, if the memo
// has it in into's form.
func (m memo) get(uid model.UID, rv uint64, into client.Object) bool {
	for _, e := range m[uid] {
		if e.rv == rv && reflect.TypeOf(e.obj) == reflect.TypeOf(into) {
			deepCopyInto(e.obj, into)
			return true
		}
	}
	return false
}

// peek returns the memoized version rv of an object itself, not a copy,
// in the unstructured form or a typed one; the caller must not modify it.
func (m memo) peek(uid model.UID, rv uint64, asUnstructured bool) client.Object {
	for _, e := range m[uid] {
		if _, u := e.obj.(*unstructured.Unstructured); e.rv == rv && u == asUnstructured {
			return e.obj
		}
	}
	return nil
}

// keep keeps obj, version rv of an object nobody will modify, itself (not
// a copy), unless the memo holds memoVersions newer versions of it in
// obj's form.
func (m memo) keep(uid model.UID, rv uint64, obj client.Object) {
	entries, ok := m[uid]
	if !ok && len(m) >= memoLimit {
		clear(m)
	}
	oldest, same := -1, 0
	for i, e := range entries {
		if reflect.TypeOf(e.obj) != reflect.TypeOf(obj) {
			continue
		}
		same++
		if oldest < 0 || e.rv < entries[oldest].rv {
			oldest = i
		}
	}
	switch {
	case same < memoVersions:
		m[uid] = append(entries, memoEntry{rv: rv, obj: obj})
	case entries[oldest].rv < rv:
		entries[oldest] = memoEntry{rv: rv, obj: obj}
	}
}

// entry returns the memoized version rv of an object in like's type, or
// nil; the pointer is valid until the memo is next written.
func (m memo) entry(uid model.UID, rv uint64, like client.Object) *memoEntry {
	entries := m[uid]
	for i := range entries {
		if entries[i].rv == rv && reflect.TypeOf(entries[i].obj) == reflect.TypeOf(like) {
			return &entries[i]
		}
	}
	return nil
}

// forget drops every version of a deleted object.
func (m memo) forget(uid model.UID) { delete(m, uid) }

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

// fromModel converts mo into into, through the memo when there is one; a
// metav1.PartialObjectMetadata gets the metadata alone (metadata.go).
func (e *env) fromModel(mo *model.Object, into client.Object) error {
	if pom, ok := into.(*metav1.PartialObjectMetadata); ok {
		return e.conv.MetadataFromModel(mo, pom)
	}
	if e.versions != nil {
		return e.versions.fromModel(e, mo, into)
	}
	if e.memo == nil || mo.UID == "" || mo.ResourceVersion == 0 {
		return e.conv.FromModel(mo, into)
	}
	return e.throughMemo(mo, into, e.decodeKept)
}

// throughMemo gives into the memo's typed form of mo, made by decode and
// kept on a miss: a reader gets one deep copy either way.
func (e *env) throughMemo(mo *model.Object, into client.Object, decode func(*model.Object, client.Object) (client.Object, error)) error {
	if e.memo.get(mo.UID, mo.ResourceVersion, into) {
		return nil
	}
	kept, err := decode(mo, into)
	if err != nil {
		return err
	}
	e.memo.keep(mo.UID, mo.ResourceVersion, kept)
	deepCopyInto(kept, into)
	return nil
}

// decodeKept decodes mo into a new object of into's type for a memo to
// keep: through FromModelShared, so the parts the converter decoded before
// are shared, not copied, and the reader gets the one deep copy it would
// get from the memo anyway (docs/design.md, "Reads that copy once"). Before,
// a memo's first read of a version copied its parts out of the converter,
// then copied the whole object into the memo.
func (e *env) decodeKept(mo *model.Object, into client.Object) (client.Object, error) {
	kept := reflect.New(reflect.TypeOf(into).Elem()).Interface().(client.Object)
	// An unstructured object names its kind only by its content.
	kept.GetObjectKind().SetGroupVersionKind(into.GetObjectKind().GroupVersionKind())
	if sharedDecode {
		if err := e.conv.FromModelShared(mo, kept); err != nil {
			return nil, err
		}
	} else if err := e.conv.FromModel(mo, kept); err != nil {
		return nil, err
	}
	return kept, nil
}

// sharedDecode, reuseStatus and memoDefaults (admit.Defaults and
// admit.Builtin rather than admit.DefaultsFresh and admit.BuiltinFresh)
// are false only in tests that check that the paths they turn on give
// what the plain paths give (TestFastPathsGiveTheSameTraces).
var sharedDecode, reuseStatus, memoDefaults = true, true, true

// fromModel converts a stored version mo into into, through the memo.
func (vm *versionMemo) fromModel(e *env, mo *model.Object, into client.Object) error {
	vm.mu.Lock()
	cached, ok := vm.m[mo]
	vm.mu.Unlock()
	if ok && reflect.TypeOf(cached) == reflect.TypeOf(into) {
		deepCopyInto(cached, into)
		return nil
	}
	kept, err := e.decodeKept(mo, into)
	if err != nil {
		return err
	}
	vm.mu.Lock()
	if len(vm.m) >= memoLimit {
		clear(vm.m)
	}
	vm.m[mo] = kept
	vm.mu.Unlock()
	deepCopyInto(kept, into)
	return nil
}

// generated reports whether t is a type of Kubernetes' own API packages,
// whose DeepCopyInto is generated by deepcopy-gen and begins with
// *out = *in: it overwrites every field, so into need not be zeroed first.
func generated(t reflect.Type) bool {
	p := t.PkgPath()
	return strings.HasPrefix(p, "k8s.io/api/") || strings.HasPrefix(p, "k8s.io/apimachinery/pkg/apis/")
}

// copyBuiltin is deepCopyInto for the kinds controllers read most, called
// directly rather than through reflection; false for any other type. A
// generated DeepCopyInto overwrites every field (see generated).
func copyBuiltin(src, into client.Object) bool {
	switch s := src.(type) {
	case *corev1.Pod:
		s.DeepCopyInto(into.(*corev1.Pod))
	case *appsv1.ReplicaSet:
		s.DeepCopyInto(into.(*appsv1.ReplicaSet))
	case *appsv1.Deployment:
		s.DeepCopyInto(into.(*appsv1.Deployment))
	case *appsv1.StatefulSet:
		s.DeepCopyInto(into.(*appsv1.StatefulSet))
	case *corev1.ConfigMap:
		s.DeepCopyInto(into.(*corev1.ConfigMap))
	case *corev1.Secret:
		s.DeepCopyInto(into.(*corev1.Secret))
	case *corev1.Service:
		s.DeepCopyInto(into.(*corev1.Service))
	case *corev1.PersistentVolumeClaim:
		s.DeepCopyInto(into.(*corev1.PersistentVolumeClaim))
	case *batchv1.Job:
		s.DeepCopyInto(into.(*batchv1.Job))
	case *batchv1.CronJob:
		s.DeepCopyInto(into.(*batchv1.CronJob))
	default:
		return false
	}
	return true
}

// deepCopyIntos holds, by type, a copyMethod: the type's DeepCopyInto
// method if it has one (generated code has it on every API type).
var deepCopyIntos sync.Map

// copyMethod is how reflectCopyInto copies one type.
type copyMethod struct {
	// method is the type's DeepCopyInto; its Func is not valid when the
	// type has none.
	method reflect.Method
	// zero says the destination is zeroed before the call: the type is
	// neither generated nor shown by copyOverwrites to overwrite every
	// field.
	zero bool
}

// deepCopyInto overwrites into, of src's type, with a deep copy of src:
// through the type's DeepCopyInto, which fills into in place, or else
// by copying DeepCopyObject's result in.
func deepCopyInto(src, into client.Object) {
	if !copyBuiltin(src, into) {
		reflectCopyInto(src, into)
	}
}

// unzeroedCopies is false only in the test that checks that copying
// without zeroing the types copyOverwrites passes gives the same traces.
var unzeroedCopies = true

// reflectCopyInto is deepCopyInto for any type, through reflection.
func reflectCopyInto(src, into client.Object) {
	t := reflect.TypeOf(src)
	m, ok := deepCopyIntos.Load(t)
	if !ok {
		m, _ = deepCopyIntos.LoadOrStore(t, newCopyMethod(t))
	}
	if c := m.(copyMethod); c.method.Func.IsValid() {
		if c.zero || !unzeroedCopies {
			reflect.ValueOf(into).Elem().SetZero() // for a hand-written DeepCopyInto that fills only some fields
		}
		c.method.Func.Call([]reflect.Value{reflect.ValueOf(src), reflect.ValueOf(into)})
		return
	}
	reflect.ValueOf(into).Elem().Set(reflect.ValueOf(src.DeepCopyObject()).Elem())
}

// newCopyMethod is how reflectCopyInto copies t, a pointer type: through
// its DeepCopyInto if it has one, zeroing the destination first unless
// the type is generated or its DeepCopyInto passes copyOverwrites.
func newCopyMethod(t reflect.Type) copyMethod {
	method, has := t.MethodByName("DeepCopyInto")
	if !has || method.Type.NumIn() != 2 || method.Type.In(1) != t || method.Type.NumOut() != 0 {
		return copyMethod{}
	}
	return copyMethod{method: method, zero: !generated(t.Elem()) && !copyOverwrites(t, method)}
}
