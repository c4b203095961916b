package controllerruntime

import (
	"context"
	"errors"
	"reflect"
	"strconv"

	"github.com/converge-sim/converge/controllerruntime/convert"
	"github.com/converge-sim/converge/model"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
)

// modelClient is a controller-runtime client.Client over the model: reads
// from one reader (a controller's informer cache, or the API server),
// writes through a writer, and server-side patches and collection deletes
// as a live read and writes within one step (the model runs one step at a
// time, so nothing comes between them).
type modelClient struct {
	*env
	cache reader
	live  reader
	w     writer
	// name is the writer's name: the field manager of its writes unless
	// a FieldOwner option names another.
	name string
}

var _ client.WithWatch = (*modelClient)(nil)

// errReadOnly is returned by the writes of a read-only client.
var errReadOnly = errors.New("this client is read-only: goals and invariants only read")

// target converts a typed object for a call and returns its model form
// and group, version and kind.
func (cl *modelClient) target(obj client.Object) (*model.Object, schema.GroupVersionKind, error) {
	return cl.targetBy(obj, cl.conv.ToModel)
}

// named is target for a call that names obj without sending its body (a
// delete, a patch): only its kind and metadata are converted.
func (cl *modelClient) named(obj client.Object) (*model.Object, schema.GroupVersionKind, error) {
	return cl.targetBy(obj, cl.conv.MetaToModel)
}

// statusTarget is target for a write of the status subresource: the
// server takes only metadata and status from it (Server.UpdateStatus), so
// the spec is not converted.
func (cl *modelClient) statusTarget(obj client.Object) (*model.Object, schema.GroupVersionKind, error) {
	return cl.targetBy(obj, cl.statusToModel)
}

// statusToModel is conv.StatusToModel, without encoding a status that is
// still the one read: most status updates of a level-triggered reconciler
// write back the status it read (the API server finds nothing to change),
// and the memo keeps the encoding of each version's status once made
// (docs/design.md, "Reads that copy once").
func (cl *modelClient) statusToModel(obj client.Object) (*model.Object, error) {
	f, ok := cl.readStatus(obj)
	if !ok {
		return cl.conv.StatusToModel(obj)
	}
	mo, err := cl.conv.MetaToModel(obj)
	if err != nil {
		return nil, err
	}
	mo.Status = f
	return mo, nil
}

// readStatus returns the status StatusToModel gives obj, when obj is typed,
// without managed fields (which send StatusToModel down its general path),
// and its status deeply equals that of the version it names
// (uid, resourceVersion) as the memo has it: the memo's encoding of that
// version's status, made on first use. StatusToModel's status is a
// function of the status field alone, so it is the same.
func (cl *modelClient) readStatus(obj client.Object) (model.Fields, bool) {
	if !reuseStatus || cl.memo == nil || cl.versions != nil || len(obj.GetManagedFields()) > 0 {
		return model.Fields{}, false
	}
	if _, u := obj.(runtime.Unstructured); u {
		return model.Fields{}, false
	}
	rv, err := strconv.ParseUint(obj.GetResourceVersion(), 10, 64)
	if err != nil || obj.GetUID() == "" {
		return model.Fields{}, false
	}
	e := cl.memo.entry(model.UID(obj.GetUID()), rv, obj)
	if e == nil || !cl.conv.StatusEqual(obj, e.obj) {
		return model.Fields{}, false
	}
	if !e.statusEncoded {
		mo, err := cl.conv.StatusToModel(e.obj)
		if err != nil {
			return model.Fields{}, false
		}
		e.status, e.statusEncoded = mo.Status, true
	}
	return e.status, true
}

// targetBy is target with the conversion given.
func (cl *modelClient) targetBy(obj client.Object, conv func(client.Object) (*model.Object, error)) (*model.Object, schema.GroupVersionKind, error) {
	mo, err := conv(obj)
	if err != nil {
		return nil, schema.GroupVersionKind{}, apierrors.NewBadRequest(err.Error())
	}
	gvk, _ := cl.conv.GVK(mo.Kind)
	if cl.served != nil {
		if err := cl.served(mo.Kind); err != nil {
			return nil, gvk, err
		}
	}
	if !cl.mapper.namespaced(mo.Kind) {
		mo.Namespace = ""
	}
	return mo, gvk, nil
}

// Get reads one object from the client's reader.
func (cl *modelClient) Get(_ context.Context, key client.ObjectKey, obj client.Object, _ ...client.GetOption) error {
	kind, err := cl.kind(obj)
	if err != nil {
		return err
	}
	if !cl.mapper.namespaced(kind) {
		key.Namespace = ""
	}
	mo, err := cl.cache.Get(kind, key.Namespace, key.Name)
	if err != nil {
		gvk, _ := cl.conv.GVK(kind)
		return cl.apiError(err, gvk, key.Name)
	}
	return cl.decode(mo, obj)
}

// Create creates obj; on success obj holds what the server stored.
func (cl *modelClient) Create(_ context.Context, obj client.Object, opts ...client.CreateOption) error {
	if len((&client.CreateOptions{}).ApplyOptions(opts).DryRun) > 0 {
		return unsupported("dry run")
	}
	if err := refuseMetadata(obj, "create"); err != nil {
		return err
	}
	if obj.GetResourceVersion() != "" {
		return apierrors.NewBadRequest("resourceVersion can not be set for Create requests")
	}
	return cl.write(obj, func(mo *model.Object) error { return cl.w.Create(mo) })
}

// Update writes obj's metadata and spec, with obj's resourceVersion as
// precondition when it has one (a custom resource must have one: see
// requireResourceVersion); on success obj holds what the server stored,
// status included.
func (cl *modelClient) Update(_ context.Context, obj client.Object, opts ...client.UpdateOption) error {
	uo := (&client.UpdateOptions{}).ApplyOptions(opts)
	if len(uo.DryRun) > 0 {
		return unsupported("dry run")
	}
	if err := refuseMetadata(obj, "update"); err != nil {
		return err
	}
	if err := cl.requireResourceVersion(obj, model.VerbUpdate); err != nil {
		return err
	}
	return cl.writeRecorded(obj, obj, uo.FieldManager, false, func(mo *model.Object) error { return cl.w.Update(mo) })
}

// write converts obj, makes one write and copies the stored result back.
// On an error obj is left as it was, even when the server applied the
// write (an ambiguous timeout).
func (cl *modelClient) write(obj client.Object, call func(*model.Object) error) error {
	return cl.writeAs(obj, obj, call)
}

// writeAs writes src and copies the stored result into dst.
func (cl *modelClient) writeAs(src, dst client.Object, call func(*model.Object) error) error {
	return cl.writeBy(false, src, dst, call)
}

// writeBy is writeAs with the conversion of src named: target, or for a
// status write, statusTarget. The server's write makes the model object
// what it stored (spec included), and that is what dst gets.
func (cl *modelClient) writeBy(status bool, src, dst client.Object, call func(*model.Object) error) error {
	if cl.w == nil {
		return errReadOnly
	}
	target := cl.target
	if status {
		target = cl.statusTarget
	}
	mo, gvk, err := target(src)
	if err != nil {
		return err
	}
	name := mo.Name
	if name == "" {
		name = mo.GenerateName
	}
	sent := convert.Sent{Object: src, Spec: mo.Spec, Status: mo.Status, SpecSent: !status, StatusSent: true}
	if err := call(mo); err != nil {
		return cl.apiError(err, gvk, name)
	}
	return cl.decodeWritten(mo, dst, sent)
}

// decodeWritten is decode for mo, the version a write stored, given what
// the write sent: a part (spec or status) stored as it was sent is made
// from the sent object's part by its round trip
// (convert.Converter.FromModelWritten; docs/design.md, "The written
// version without a decode") instead of Unflatten and a decode, and the
// memo keeps the version as a read would. The result is what decode
// gives.
func (cl *modelClient) decodeWritten(mo *model.Object, dst client.Object, sent convert.Sent) error {
	_, u := dst.(runtime.Unstructured)
	_, pom := dst.(*metav1.PartialObjectMetadata)
	if !sentDecode || !sharedDecode || u || pom || cl.memo == nil || cl.versions != nil || mo.UID == "" || mo.ResourceVersion == 0 ||
		reflect.TypeOf(sent.Object) != reflect.TypeOf(dst) {
		return cl.decode(mo, dst)
	}
	written := func(mo *model.Object, like client.Object) (client.Object, error) {
		kept := reflect.New(reflect.TypeOf(like).Elem()).Interface().(client.Object)
		return kept, cl.conv.FromModelWritten(mo, kept, sent)
	}
	if err := cl.throughMemo(mo, dst, written); err != nil {
		return err
	}
	cl.attachManaged(mo, dst)
	return nil
}

// sentDecode is false only in tests that check that the written version
// made from what was sent is what a decode gives
// (TestFastPathsGiveTheSameTraces, TestTheAnswerToAWriteIsAFreshDecode).
var sentDecode = true

// Delete deletes obj, with the UID and resourceVersion preconditions and
// the propagation policy the options carry (client.PropagationPolicy, or
// the PropagationPolicy of a client.DeleteOptions; as controller-runtime's
// own client sends them, a policy in Raw alone is overwritten). An unknown
// policy is Invalid. The grace period is ignored.
func (cl *modelClient) Delete(_ context.Context, obj client.Object, opts ...client.DeleteOption) error {
	do := (&client.DeleteOptions{}).ApplyOptions(opts)
	if len(do.DryRun) > 0 {
		return unsupported("dry run")
	}
	if cl.w == nil {
		return errReadOnly
	}
	mo, gvk, err := cl.named(obj)
	if err != nil {
		return err
	}
	var pre model.DeleteOptions
	if p := do.PropagationPolicy; p != nil {
		pre.Propagation = model.Propagation(*p)
	}
	if p := do.Preconditions; p != nil {
		if p.UID != nil {
			pre.UID = model.UID(*p.UID)
		}
		if p.ResourceVersion != nil {
			rv, err := strconv.ParseUint(*p.ResourceVersion, 10, 64)
			if err != nil {
				return apierrors.NewBadRequest("precondition resourceVersion " + *p.ResourceVersion + " was not issued by this server")
			}
			pre.ResourceVersion = rv
		}
	}
	return cl.apiError(cl.w.Delete(mo.Ref(), pre), gvk, mo.Name)
}

// DeleteAllOf deletes every object of obj's kind that matches the options,
// as the API server finds them now (not as the cache has them), one delete
// at a time. Objects already gone meanwhile are skipped.
func (cl *modelClient) DeleteAllOf(ctx context.Context, obj client.Object, opts ...client.DeleteAllOfOption) error {
	dao := (&client.DeleteAllOfOptions{}).ApplyOptions(opts)
	if len(dao.DryRun) > 0 {
		return unsupported("dry run")
	}
	if cl.w == nil {
		return errReadOnly
	}
	kind, err := cl.conv.Kind(obj)
	if err != nil {
		return err
	}
	items, err := cl.list(cl.live, kind, obj, &dao.ListOptions)
	if err != nil {
		return err
	}
	for _, it := range items {
		err := cl.Delete(ctx, it, &dao.DeleteOptions)
		if err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	return nil
}

// Apply is server-side apply of an apply configuration (typed, from
// client-go's applyconfigurations, or client.ApplyConfigurationFromUnstructured);
// on success obj holds what the server stored. See ssa.go.
func (cl *modelClient) Apply(_ context.Context, obj runtime.ApplyConfiguration, opts ...client.ApplyOption) error {
	ao := (&client.ApplyOptions{}).ApplyOptions(opts)
	if len(ao.DryRun) > 0 {
		return unsupported("dry run")
	}
	return cl.applyConfiguration(obj, ao, false)
}

// Watch is not offered: controllers see changes through their informers.
func (cl *modelClient) Watch(context.Context, client.ObjectList, ...client.ListOption) (watch.Interface, error) {
	return nil, unsupported("watch through the client")
}

// Status returns the writer of the status subresource.
func (cl *modelClient) Status() client.SubResourceWriter { return statusWriter{cl} }

// SubResource returns the client of a subresource; only status exists.
func (cl *modelClient) SubResource(sub string) client.SubResourceClient {
	return subResourceClient{cl: cl, name: sub}
}

// Scheme returns the scheme of the manager.
func (cl *modelClient) Scheme() *runtime.Scheme { return cl.conv.Scheme() }

// RESTMapper returns the manager's REST mapper.
func (cl *modelClient) RESTMapper() meta.RESTMapper { return cl.mapper }

// GroupVersionKindFor returns the group, version and kind of obj.
func (cl *modelClient) GroupVersionKindFor(obj runtime.Object) (schema.GroupVersionKind, error) {
	return apiutil.GVKForObject(obj, cl.conv.Scheme())
}

// IsObjectNamespaced reports whether obj's kind is namespaced.
func (cl *modelClient) IsObjectNamespaced(obj runtime.Object) (bool, error) {
	kind, err := cl.conv.Kind(obj)
	if err != nil {
		return false, err
	}
	return cl.mapper.namespaced(kind), nil
}
