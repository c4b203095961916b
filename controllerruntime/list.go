package controllerruntime

import (
	"context"
	"fmt"
	"reflect"
	"slices"

	"github.com/converge-sim/converge/model"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/selection"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// List reads the objects of the list's item kind that match the options
// from the client's reader, in namespace/name order, as controller-runtime's
// cache does: any label selector; field selectors of exact matches only, on
// metadata.name, metadata.namespace or a field indexed with the manager's
// field indexer; Limit; no Continue.
func (cl *modelClient) List(_ context.Context, list client.ObjectList, opts ...client.ListOption) error {
	kind, err := cl.kind(list)
	if err != nil {
		return err
	}
	lo := (&client.ListOptions{}).ApplyOptions(opts)
	if items, gvk, ok := cl.typedItems(kind, list); ok {
		// Decode straight into the list's items, as meta.SetList would
		// leave them: a new slice of exactly the matching objects.
		var backing reflect.Value
		n := 0
		slot := func(candidates int) (client.Object, error) {
			if !backing.IsValid() {
				backing = reflect.MakeSlice(items.Type(), candidates, candidates)
			}
			obj := backing.Index(n).Addr().Interface().(client.Object)
			if isMetadata(list) {
				obj.GetObjectKind().SetGroupVersionKind(gvk)
			}
			return obj, nil
		}
		if err := cl.listEach(cl.cache, kind, list, lo, slot, func(client.Object) { n++ }); err != nil {
			return err
		}
		if !backing.IsValid() {
			backing = reflect.MakeSlice(items.Type(), 0, 0)
		}
		items.Set(backing.Slice3(0, n, n))
	} else {
		items, err := cl.list(cl.cache, kind, list, lo)
		if err != nil {
			return err
		}
		objs := make([]runtime.Object, len(items))
		for i, it := range items {
			objs[i] = it
		}
		if err := meta.SetList(list, objs); err != nil {
			return err
		}
	}
	list.SetResourceVersion("")
	list.SetContinue("continue-not-supported")
	return nil
}

// typedItems returns the items slice of a typed list whose items are the
// typed objects of kind, or of a metav1.PartialObjectMetadataList, and the
// group, version and kind of kind.
func (cl *modelClient) typedItems(kind string, list client.ObjectList) (reflect.Value, schema.GroupVersionKind, bool) {
	if _, ok := list.(runtime.Unstructured); ok {
		return reflect.Value{}, schema.GroupVersionKind{}, false
	}
	ptr, err := meta.GetItemsPtr(list)
	if err != nil {
		return reflect.Value{}, schema.GroupVersionKind{}, false
	}
	items := reflect.ValueOf(ptr).Elem()
	gvk, err := cl.conv.GVK(kind)
	if err != nil || items.Kind() != reflect.Slice {
		return reflect.Value{}, schema.GroupVersionKind{}, false
	}
	if isMetadata(list) {
		return items, gvk, true
	}
	// The scheme's type of the kind, as conv.New would make it.
	if t, ok := cl.conv.Scheme().AllKnownTypes()[gvk]; !ok || t != items.Type().Elem() {
		return reflect.Value{}, schema.GroupVersionKind{}, false
	}
	return items, gvk, true
}

// list reads, converts and filters the objects of kind from r.
// Items are unstructured when like, the caller's list or object, is.
func (cl *modelClient) list(r reader, kind string, like runtime.Object, lo *client.ListOptions) ([]client.Object, error) {
	var out []client.Object
	slot := func(int) (client.Object, error) {
		if isMetadata(like) {
			return cl.newMetadata(kind)
		}
		return cl.newObject(kind, like)
	}
	err := cl.listEach(r, kind, like, lo, slot, func(obj client.Object) { out = append(out, obj) })
	return out, err
}

// listEach reads the objects of kind from r and decodes each into an
// object slot gives (told how many candidates there are), handing keep
// those that match the options.
func (cl *modelClient) listEach(r reader, kind string, like runtime.Object, lo *client.ListOptions,
	slot func(candidates int) (client.Object, error), keep func(client.Object)) error {
	return cl.listRead(r, kind, like, lo, func(mo *model.Object, candidates int) (client.Object, error) {
		obj, err := slot(candidates)
		if err != nil {
			return nil, err
		}
		return obj, cl.decode(mo, obj)
	}, keep)
}

// listRead is listEach with the read of each object given: read returns
// it decoded (told how many candidates there are).
func (cl *modelClient) listRead(r reader, kind string, like runtime.Object, lo *client.ListOptions,
	read func(mo *model.Object, candidates int) (client.Object, error), keep func(client.Object)) error {
	if lo.Continue != "" {
		return fmt.Errorf("continue list option is not supported by the cache")
	}
	if lo.FieldSelector != nil {
		if err := cl.checkFields(indexKeyOf(kind, like), lo.FieldSelector); err != nil {
			return err
		}
	}
	opts := model.ListOptions{Namespace: lo.Namespace}
	if !cl.mapper.namespaced(kind) {
		opts.Namespace = ""
	}
	if lo.LabelSelector != nil {
		opts.Selector = equalities(lo.LabelSelector)
	}
	mos, err := r.List(kind, opts)
	if err != nil {
		gvk, _ := cl.conv.GVK(kind)
		return cl.apiError(err, gvk, "")
	}
	kept := int64(0)
	for _, mo := range mos {
		if lo.Limit > 0 && kept >= lo.Limit {
			break
		}
		obj, err := read(mo, len(mos))
		if err != nil {
			return err
		}
		if lo.LabelSelector != nil && !lo.LabelSelector.Matches(labels.Set(obj.GetLabels())) {
			continue
		}
		if lo.FieldSelector != nil && !cl.matchFields(indexKeyOf(kind, like), obj, lo.FieldSelector) {
			continue
		}
		kept++
		keep(obj)
	}
	return nil
}

// equalities extracts the label=value requirements of a selector, which
// the model's label index can serve; the full selector is applied after.
func equalities(sel labels.Selector) model.Selector {
	reqs, _ := sel.Requirements()
	var out model.Selector
	for _, r := range reqs {
		op := r.Operator()
		if op != selection.Equals && op != selection.DoubleEquals && op != selection.In {
			continue
		}
		// One distinct value (an In of one value, perhaps repeated),
		// read without the sorted set Values builds.
		vals := r.ValuesUnsorted()
		if len(vals) == 0 || slices.ContainsFunc(vals[1:], func(v string) bool { return v != vals[0] }) {
			continue
		}
		if out == nil {
			out = model.Selector{}
		}
		out[r.Key()] = vals[0]
	}
	return out
}

// checkFields rejects what controller-runtime's cache rejects: a field
// selector that is not all exact matches, or on a field nobody indexed
// for the kind in the caller's form (typed or unstructured: see indexKey).
func (cl *modelClient) checkFields(k indexKey, sel fields.Selector) error {
	for _, r := range sel.Requirements() {
		if r.Operator != selection.Equals && r.Operator != selection.DoubleEquals {
			return fmt.Errorf("non-exact field matches are not supported by the cache")
		}
		if r.Field != "metadata.name" && r.Field != "metadata.namespace" && cl.indexes[k][r.Field] == nil {
			return fmt.Errorf("index with name field:%s does not exist", r.Field)
		}
	}
	return nil
}

// matchFields reports whether obj has every field value sel asks for.
func (cl *modelClient) matchFields(k indexKey, obj client.Object, sel fields.Selector) bool {
	for _, r := range sel.Requirements() {
		var values []string
		switch r.Field {
		case "metadata.name":
			values = []string{obj.GetName()}
		case "metadata.namespace":
			values = []string{obj.GetNamespace()}
		default:
			values = cl.indexes[k][r.Field](obj)
		}
		if !slices.Contains(values, r.Value) {
			return false
		}
	}
	return true
}
