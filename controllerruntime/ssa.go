package controllerruntime

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sync"

	"github.com/converge-sim/converge/model"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured/unstructuredscheme"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apimachinery/pkg/util/validation/field"
	clientgoapply "k8s.io/client-go/applyconfigurations"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
)

// Server-side apply runs the API server's own field manager
// (managedfields.FieldManager, over structured-merge-diff): an apply
// merges the applied configuration into the live object, records which
// manager owns which fields, and fails with a 409 Conflict naming the
// other managers of a field it would change, unless it forces ownership.
// The model stores objects without managedFields; each manager keeps
// them beside the model, per object UID, from the object's first apply
// on. Updates and patches of such an object by other writers are recorded
// as Update operations, as the API server records them, so that an apply
// conflicts with them too. Times in managedFields are virtual.

// fieldOwnership is a manager's record of managed fields.
type fieldOwnership struct {
	managers map[fmKey]*managedfields.FieldManager
	// fields holds the managed fields of every object that has been
	// applied to, by UID.
	fields map[model.UID][]metav1.ManagedFieldsEntry
}

type fmKey struct {
	gvk    schema.GroupVersionKind
	status bool
}

// typeConverter knows the built-in kinds' schemas (with their list and
// map merge keys) and deduces the rest (custom resources: every field
// granular, every list atomic).
var typeConverter = sync.OnceValue(func() managedfields.TypeConverter {
	return multiConverter{clientgoapply.NewTypeConverter(clientgoscheme.Scheme), managedfields.NewDeducedTypeConverter()}
})

// multiConverter tries each type converter in order.
type multiConverter []managedfields.TypeConverter

func (m multiConverter) ObjectToTyped(obj runtime.Object, opts ...typed.ValidationOptions) (*typed.TypedValue, error) {
	var first error
	for _, c := range m {
		v, err := c.ObjectToTyped(obj, opts...)
		if err == nil {
			return v, nil
		}
		if first == nil {
			first = err
		}
	}
	return nil, first
}

func (m multiConverter) TypedToObject(v *typed.TypedValue) (runtime.Object, error) {
	var first error
	for _, c := range m {
		obj, err := c.TypedToObject(v)
		if err == nil {
			return obj, nil
		}
		if first == nil {
			first = err
		}
	}
	return nil, first
}

// noDefaults is the field manager's defaulter: the model's admission
// chain defaults on write.
type noDefaults struct{}

func (noDefaults) Default(runtime.Object) {}

func (e *env) ownership() *fieldOwnership {
	if e.owners == nil {
		e.owners = &fieldOwnership{managers: map[fmKey]*managedfields.FieldManager{}, fields: map[model.UID][]metav1.ManagedFieldsEntry{}}
	}
	return e.owners
}

// fieldManager returns the field manager of a kind's main resource or
// status subresource. The main resource's manager leaves status alone,
// and the status manager everything but status, as the API server's reset
// fields say for kinds with a status subresource.
func (e *env) fieldManager(gvk schema.GroupVersionKind, status bool) (*managedfields.FieldManager, error) {
	o := e.ownership()
	k := fmKey{gvk, status}
	if fm := o.managers[k]; fm != nil {
		return fm, nil
	}
	sub := ""
	reset := fieldpath.NewSet(fieldpath.MakePathOrDie("status"))
	if status {
		sub = "status"
		reset = fieldpath.NewSet(fieldpath.MakePathOrDie("spec"), fieldpath.MakePathOrDie("metadata"))
	}
	var resetFields map[fieldpath.APIVersion]fieldpath.Filter
	if e.conv.HasStatus(gvk.Kind) {
		resetFields = map[fieldpath.APIVersion]fieldpath.Filter{fieldpath.APIVersion(gvk.GroupVersion().String()): fieldpath.NewExcludeSetFilter(reset)}
	}
	scheme := e.conv.Scheme()
	var fm *managedfields.FieldManager
	var err error
	if scheme.Recognizes(gvk) {
		fm, err = managedfields.NewDefaultFieldManager(typeConverter(), scheme, noDefaults{}, scheme, gvk, gvk.GroupVersion(), sub, resetFields)
	} else {
		// A custom resource without a Go type, as the API server serves
		// every custom resource: unstructured, one version.
		fm, err = managedfields.NewDefaultCRDFieldManager(typeConverter(), sameVersion{}, noDefaults{}, unstructuredscheme.NewUnstructuredCreator(), gvk, gvk.GroupVersion(), sub, resetFields)
	}
	if err != nil {
		return nil, err
	}
	o.managers[k] = fm
	return fm, nil
}

// decode converts mo into into, with its managed fields when it has
// any: what a client reads. (Objects handed to event handlers carry none,
// as with a cache that strips them.)
func (cl *modelClient) decode(mo *model.Object, into client.Object) error {
	if err := cl.fromModel(mo, into); err != nil {
		return err
	}
	cl.attachManaged(mo, into)
	return nil
}

// attachManaged sets into's managedFields from the record, if its object
// has been applied to.
func (e *env) attachManaged(mo *model.Object, into client.Object) {
	if e.owners == nil {
		return
	}
	if f, ok := e.owners.fields[mo.UID]; ok {
		into.SetManagedFields(cloneManaged(f))
	}
}

func cloneManaged(f []metav1.ManagedFieldsEntry) []metav1.ManagedFieldsEntry {
	out := make([]metav1.ManagedFieldsEntry, len(f))
	for i := range f {
		f[i].DeepCopyInto(&out[i])
	}
	return out
}

// tracked reports whether the object with this UID has managed fields.
func (e *env) tracked(uid model.UID) bool {
	if e.owners == nil || uid == "" {
		return false
	}
	_, ok := e.owners.fields[uid]
	return ok
}

// managedOf takes the managed fields out of an object the field manager
// returned. The field manager stamps an entry it changed with the wall
// clock; such an entry gets virtual time now instead, and every other
// entry keeps the virtual time it had in prev, the object's record.
func (cl *modelClient) managedOf(obj runtime.Object, prev []metav1.ManagedFieldsEntry) ([]metav1.ManagedFieldsEntry, error) {
	acc, ok := obj.(metav1.Object)
	if !ok {
		return nil, fmt.Errorf("the field manager returned a %T", obj)
	}
	f := acc.GetManagedFields()
	acc.SetManagedFields(nil)
	had := map[string]*metav1.Time{}
	for _, p := range prev {
		had[p.Manager+"\x00"+string(p.Operation)+"\x00"+p.Subresource] = p.Time
	}
	now := cl.conv.Time(cl.now())
	for i := range f {
		if t, ok := had[f[i].Manager+"\x00"+string(f[i].Operation)+"\x00"+f[i].Subresource]; ok && t != nil && f[i].Time != nil && t.Equal(f[i].Time) {
			continue
		}
		f[i].Time = &now
	}
	return f, nil
}

// typedFrom returns obj as a typed object of kind: the field manager
// hands back unstructured objects for some kinds.
func (cl *modelClient) typedFrom(obj runtime.Object, kind string) (client.Object, error) {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		into, err := cl.conv.New(kind)
		if err != nil {
			return nil, err
		}
		if _, untyped := into.(runtime.Unstructured); untyped {
			return u, nil
		}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, into); err != nil {
			return nil, err
		}
		return into, nil
	}
	co, ok := obj.(client.Object)
	if !ok {
		return nil, fmt.Errorf("the field manager returned a %T", obj)
	}
	return co, nil
}

// apply is server-side apply of data, an applied configuration, to the
// object of kind, namespace and name, as manager: on the status
// subresource with status set. It returns the stored result.
func (cl *modelClient) apply(kind, namespace, name string, data []byte, manager string, force, status bool, dst client.Object) error {
	if cl.w == nil {
		return errReadOnly
	}
	gvk, err := cl.conv.GVK(kind)
	if err != nil {
		return err
	}
	if manager == "" {
		return apierrors.NewInvalid(schema.GroupKind{Group: "meta.k8s.io", Kind: "PatchOptions"}, "",
			field.ErrorList{field.Required(field.NewPath("fieldManager"), "is required for apply patch")})
	}
	if cl.served != nil {
		if err := cl.served(kind); err != nil {
			return err
		}
	}
	if !cl.mapper.namespaced(kind) {
		namespace = ""
	}
	applied := &unstructured.Unstructured{}
	if err := json.Unmarshal(data, &applied.Object); err != nil {
		return apierrors.NewBadRequest("the applied configuration does not decode: " + err.Error())
	}
	fm, err := cl.fieldManager(gvk, status)
	if err != nil {
		return err
	}
	cur, err := cl.live.Get(kind, namespace, name)
	exists := err == nil
	if !exists && (!model.IsNotFound(err) || status) {
		return cl.apiError(err, gvk, name)
	}
	var from *model.Object
	var prev []metav1.ManagedFieldsEntry
	if exists {
		from, prev = cur, cl.owners.fields[cur.UID]
	}
	key := applyKeyOf(cl.conv, kind, namespace, name, manager, force, status, from)
	out, found := appliedBefore(key, from, prev, data)
	if !found {
		if out, err = cl.applyAnew(kind, namespace, name, gvk, fm, from, applied, manager, force, status); err != nil {
			return err
		}
		rememberApply(key, from, prev, data, out)
	}
	next, err := cl.typedFrom(out, kind)
	if err != nil {
		return err
	}
	next.SetNamespace(namespace)
	next.SetName(name)
	fields, err := cl.managedOf(next, prev)
	if err != nil {
		return err
	}
	if exists && reflect.DeepEqual(fields, cl.owners.fields[cur.UID]) && cl.sameStored(next, cur, status) {
		return cl.decode(cur, dst) // a no-op apply writes nothing
	}
	write := func(o *model.Object) error {
		o.FieldManager = manager
		if !exists {
			return cl.w.Create(o)
		}
		if status {
			return cl.w.UpdateStatus(o)
		}
		return cl.w.Update(o)
	}
	if err := cl.writeAs(next, dst, write); err != nil {
		return err
	}
	cl.owners.fields[model.UID(dst.GetUID())] = fields
	dst.SetManagedFields(cloneManaged(fields))
	return nil
}

// applyAnew runs the field manager's Apply of applied over cur, the
// stored object (nil for a create), with the managed fields recorded for
// it; a conflict is reported to the model's fault record.
func (cl *modelClient) applyAnew(kind, namespace, name string, gvk schema.GroupVersionKind, fm *managedfields.FieldManager, cur *model.Object, applied *unstructured.Unstructured, manager string, force, status bool) (runtime.Object, error) {
	live, err := cl.conv.New(kind)
	if err != nil {
		return nil, err
	}
	if cur != nil {
		if err := cl.decode(cur, live); err != nil {
			return nil, err
		}
	} else {
		live.GetObjectKind().SetGroupVersionKind(gvk)
	}
	out, err := fm.Apply(live, applied, manager, force)
	if err != nil {
		if apierrors.IsConflict(err) && cl.reject != nil && cl.name != "" {
			verb := model.VerbUpdate
			if status {
				verb = model.VerbUpdateStatus
			}
			cl.reject(cl.name, verb, model.Ref{Kind: kind, Namespace: namespace, Name: name}, conflictOf(err))
		}
		return nil, err
	}
	return out, nil
}

// conflictOf is the model form of an apply conflict: one cause per
// conflicting field, naming its manager.
func conflictOf(err error) *model.StatusError {
	se := &model.StatusError{Reason: model.ReasonConflict, Message: err.Error()}
	var status apierrors.APIStatus
	if errors.As(err, &status) && status.Status().Details != nil {
		for _, c := range status.Status().Details.Causes {
			se.Causes = append(se.Causes, model.Cause{Type: string(c.Type), Field: c.Field, Message: c.Message})
		}
	}
	return se
}

// sameStored reports whether next converts to what cur already stores.
func (cl *modelClient) sameStored(next client.Object, cur *model.Object, status bool) bool {
	mo, err := cl.conv.ToModel(next)
	if err != nil {
		return false
	}
	if status {
		return mo.Status.Equal(cur.Status)
	}
	return mo.Spec.Equal(cur.Spec) && reflect.DeepEqual(mo.Labels, cur.Labels) &&
		reflect.DeepEqual(mo.Finalizers, cur.Finalizers) && reflect.DeepEqual(mo.OwnerReferences, cur.OwnerReferences)
}

// recordUpdate records a non-apply write of src over the live object as
// the API server's field manager does (an Update operation of manager),
// when the live object has managed fields. It returns the function that
// commits the record once the write has succeeded.
func (cl *modelClient) recordUpdate(src client.Object, kind string, manager string, status bool) (func(uid model.UID), error) {
	gvk, err := cl.conv.GVK(kind)
	if err != nil {
		return nil, err
	}
	namespace := src.GetNamespace()
	if !cl.mapper.namespaced(kind) {
		namespace = ""
	}
	cur, err := cl.live.Get(kind, namespace, src.GetName())
	if err != nil || !cl.tracked(cur.UID) {
		return func(model.UID) {}, nil // not applied to, or the write fails the same way
	}
	live, err := cl.conv.New(kind)
	if err != nil {
		return nil, err
	}
	if err := cl.decode(cur, live); err != nil {
		return nil, err
	}
	fm, err := cl.fieldManager(gvk, status)
	if err != nil {
		return nil, err
	}
	next := src.DeepCopyObject().(client.Object)
	next.SetManagedFields(nil)
	next.GetObjectKind().SetGroupVersionKind(gvk)
	out, err := fm.Update(live, next, manager)
	if err != nil {
		return nil, err
	}
	fields, err := cl.managedOf(out, cl.owners.fields[cur.UID])
	if err != nil {
		return nil, err
	}
	return func(uid model.UID) { cl.owners.fields[uid] = fields }, nil
}

// writeRecorded writes src as writeAs does, and for an object with
// managed fields, records the write as an Update operation of manager
// (the FieldOwner option, or the client's name). A manager named by the
// option is passed to the model as the write's field manager.
func (cl *modelClient) writeRecorded(src, dst client.Object, owner string, status bool, call func(*model.Object) error) error {
	manager := owner
	if manager == "" {
		manager = cl.name
	}
	commit := func(model.UID) {}
	if cl.owners != nil && len(cl.owners.fields) > 0 {
		kind, err := cl.conv.Kind(src)
		if err != nil {
			return err
		}
		if commit, err = cl.recordUpdate(src, kind, manager, status); err != nil {
			return err
		}
	}
	err := cl.writeBy(status, src, dst, func(o *model.Object) error {
		o.FieldManager = owner
		return call(o)
	})
	if err != nil {
		return err
	}
	commit(model.UID(dst.GetUID()))
	cl.attachManagedTo(dst)
	return nil
}

// attachManagedTo sets obj's managedFields from the record.
func (cl *modelClient) attachManagedTo(obj client.Object) {
	if cl.owners == nil {
		return
	}
	if f, ok := cl.owners.fields[model.UID(obj.GetUID())]; ok {
		obj.SetManagedFields(cloneManaged(f))
	}
}

// applyConfiguration is client.Client.Apply: server-side apply of an
// apply configuration, whose kind, namespace and name it carries; on
// success the configuration holds what the server stored.
func (cl *modelClient) applyConfiguration(ac runtime.ApplyConfiguration, ao *client.ApplyOptions, status bool) error {
	data, err := json.Marshal(ac)
	if err != nil {
		return apierrors.NewBadRequest("the apply configuration does not encode: " + err.Error())
	}
	var u unstructured.Unstructured
	if err := json.Unmarshal(data, &u.Object); err != nil {
		return apierrors.NewBadRequest("the apply configuration does not decode: " + err.Error())
	}
	gvk := u.GroupVersionKind()
	want, err := cl.conv.GVK(gvk.Kind)
	if err != nil {
		return err
	}
	if want != gvk {
		return apierrors.NewBadRequest(fmt.Sprintf("kind %s is served as %s, not %s", gvk.Kind, want.GroupVersion(), gvk.GroupVersion()))
	}
	dst, err := cl.conv.New(gvk.Kind)
	if err != nil {
		return err
	}
	if err := cl.apply(gvk.Kind, u.GetNamespace(), u.GetName(), data, ao.FieldManager, ao.Force != nil && *ao.Force, status, dst); err != nil {
		return err
	}
	out, err := json.Marshal(dst)
	if err != nil {
		return err
	}
	// The stored object replaces the configuration, as the client
	// decodes the server's answer into it.
	v := reflect.ValueOf(ac)
	if v.Kind() == reflect.Pointer && !v.IsNil() {
		if uac, ok := ac.(interface{ UnstructuredContent() map[string]any }); ok {
			clear(uac.UnstructuredContent())
		} else {
			v.Elem().SetZero()
		}
	}
	return json.Unmarshal(out, ac)
}

// sameVersion converts unstructured objects of a kind served in one
// version: there is nothing to convert.
type sameVersion struct{}

func (sameVersion) Convert(in, out, _ any) error {
	u, ok := in.(*unstructured.Unstructured)
	o, ok2 := out.(*unstructured.Unstructured)
	if !ok || !ok2 {
		return fmt.Errorf("cannot convert %T to %T", in, out)
	}
	u.DeepCopyInto(o)
	return nil
}

func (sameVersion) ConvertToVersion(in runtime.Object, gv runtime.GroupVersioner) (runtime.Object, error) {
	return in, nil
}

func (sameVersion) ConvertFieldLabel(_ schema.GroupVersionKind, label, value string) (string, string, error) {
	return label, value, nil
}
