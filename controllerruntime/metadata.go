package controllerruntime

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Metadata-only reads and writes. A client's Get and List of a
// metav1.PartialObjectMetadata or PartialObjectMetadataList, whose
// apiVersion and kind name the objects' kind, read the objects' metadata
// alone (convert.MetadataFromModel): from the informer cache through
// mgr.GetClient() (the model keeps one informer per kind, so a
// metadata-only read sees what a typed one sees), from the API server
// through mgr.GetAPIReader(). Patch, Delete and DeleteAllOf take the
// metadata form too, and a patch is applied to the whole stored object, so
// it keeps the body; Create and Update of metadata alone are refused, as
// controller-runtime's client refuses them. Over HTTP, rest_metadata.go
// answers an Accept of as=PartialObjectMetadata as the API server does.
// README.md, "What the reconciler gets", says so.

// isMetadata reports whether obj, an object or a list, is in the
// metadata-only form.
func isMetadata(obj runtime.Object) bool {
	switch obj.(type) {
	case *metav1.PartialObjectMetadata, *metav1.PartialObjectMetadataList:
		return true
	}
	return false
}

// newMetadata returns an empty PartialObjectMetadata naming kind.
func (e *env) newMetadata(kind string) (client.Object, error) {
	gvk, err := e.conv.GVK(kind)
	if err != nil {
		return nil, err
	}
	pom := &metav1.PartialObjectMetadata{}
	pom.SetGroupVersionKind(gvk)
	return pom, nil
}

// refuseMetadata is the error of a create or an update (verb) of obj in
// the metadata-only form, which has no body to write; nil for any other
// object.
func refuseMetadata(obj client.Object, verb string) error {
	if !isMetadata(obj) {
		return nil
	}
	return fmt.Errorf("cannot %s %s/%s from its metadata alone (a PartialObjectMetadata): read it typed or unstructured, or patch its metadata",
		verb, obj.GetNamespace(), obj.GetName())
}
