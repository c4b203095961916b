package controllerruntime

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// indexKey names the informer a field index belongs to. controller-runtime's
// cache keeps one informer per kind and form: typed objects, unstructured
// ones and metadata-only ones each have their own, and IndexField adds the
// index to the informer of obj's form alone. So an index registered with
// &corev1.ConfigMap{} serves List with a typed ConfigMapList only, and
// one registered with an unstructured ConfigMap serves unstructured lists
// only; the other form's List answers "index with name field:… does not
// exist", as the real cache does. The model keeps one informer per kind,
// so the form is part of the index's key instead.
type indexKey struct {
	kind         string
	unstructured bool
	// metadata is the metadata-only form (metav1.PartialObjectMetadata).
	metadata bool
}

// indexKeyOf is the index key of kind read through like, the caller's
// object or list.
func indexKeyOf(kind string, like runtime.Object) indexKey {
	_, u := like.(runtime.Unstructured)
	return indexKey{kind: kind, unstructured: u, metadata: isMetadata(like)}
}

// indexField registers extract as the index of field for obj's kind in
// obj's form (see indexKey).
func (e *env) indexField(obj client.Object, field string, extract client.IndexerFunc) error {
	kind, err := e.conv.Kind(obj)
	if err != nil {
		return err
	}
	if extract == nil {
		return fmt.Errorf("IndexField(%s, %q): nil extractor", kind, field)
	}
	k := indexKeyOf(kind, obj)
	if e.indexes[k] == nil {
		e.indexes[k] = map[string]client.IndexerFunc{}
	}
	if e.indexes[k][field] != nil {
		return fmt.Errorf("indexer conflict: field %s of %s is already indexed", field, kind)
	}
	e.indexes[k][field] = extract
	return nil
}
