package controllerruntime

import (
	"context"
	"reflect"

	"github.com/converge-sim/converge/controllerruntime/internal/shared"
	"github.com/converge-sim/converge/model"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The built-in controllers (package builtin) are the adapter's own code,
// and each only reads what it reads until it copies what it changes, so
// they read the memo's decoded objects themselves through package shared
// rather than the deep copy every other reader gets (docs/design.md,
// "Reads that copy once"; TestBuiltinControllersOnlyReadWhatTheyShare).

var _ shared.Reader = (*modelClient)(nil)

// GetShared is Get returning the memo's own decoded object, in like's
// type; the caller must not modify it.
func (cl *modelClient) GetShared(_ context.Context, key client.ObjectKey, like client.Object) (client.Object, error) {
	kind, err := cl.kind(like)
	if err != nil {
		return nil, err
	}
	if !cl.mapper.namespaced(kind) {
		key.Namespace = ""
	}
	mo, err := cl.cache.Get(kind, key.Namespace, key.Name)
	if err != nil {
		gvk, _ := cl.conv.GVK(kind)
		return nil, cl.apiError(err, gvk, key.Name)
	}
	return cl.decodeShared(mo, like)
}

// ListShared is List returning the memo's own decoded objects, of the
// list's typed item type, in the order List gives; the caller must not
// modify them. A list of another form is listed as List lists it.
func (cl *modelClient) ListShared(ctx context.Context, list client.ObjectList, opts ...client.ListOption) ([]client.Object, error) {
	kind, err := cl.kind(list)
	if err != nil {
		return nil, err
	}
	items, _, ok := cl.typedItems(kind, list)
	if !ok || isMetadata(list) {
		if err := cl.List(ctx, list, opts...); err != nil {
			return nil, err
		}
		return listObjects(list)
	}
	like := reflect.New(items.Type().Elem()).Interface().(client.Object)
	lo := (&client.ListOptions{}).ApplyOptions(opts)
	var out []client.Object
	read := func(mo *model.Object, _ int) (client.Object, error) { return cl.decodeShared(mo, like) }
	if err := cl.listRead(cl.cache, kind, list, lo, read, func(obj client.Object) { out = append(out, obj) }); err != nil {
		return nil, err
	}
	return out, nil
}

// listObjects returns a filled list's items.
func listObjects(list client.ObjectList) ([]client.Object, error) {
	items, err := meta.ExtractList(list)
	if err != nil {
		return nil, err
	}
	out := make([]client.Object, len(items))
	for i, it := range items {
		out[i] = it.(client.Object)
	}
	return out, nil
}

// decodeShared returns version mo decoded in like's type: the memo's own
// object (kept on a miss, as fromModel keeps it), or a fresh decode where
// fromModel would not use the memo or where decode adds managed fields.
func (cl *modelClient) decodeShared(mo *model.Object, like client.Object) (client.Object, error) {
	_, pom := like.(*metav1.PartialObjectMetadata)
	_, u := like.(runtime.Unstructured)
	if pom || u || cl.memo == nil || cl.versions != nil || mo.UID == "" || mo.ResourceVersion == 0 || cl.managed(mo.UID) {
		obj := reflect.New(reflect.TypeOf(like).Elem()).Interface().(client.Object)
		obj.GetObjectKind().SetGroupVersionKind(like.GetObjectKind().GroupVersionKind())
		return obj, cl.decode(mo, obj)
	}
	if e := cl.memo.entry(mo.UID, mo.ResourceVersion, like); e != nil {
		return e.obj, nil
	}
	kept, err := cl.decodeKept(mo, like)
	if err != nil {
		return nil, err
	}
	cl.memo.keep(mo.UID, mo.ResourceVersion, kept)
	return kept, nil
}

// managed reports whether decode would set managed fields on the object.
func (e *env) managed(uid model.UID) bool {
	if e.owners == nil {
		return false
	}
	_, ok := e.owners.fields[uid]
	return ok
}
