package controllerruntime

import (
	"fmt"
	"mime"
	"net/http"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// The forms of an answer an Accept header asks for. The API server answers
// a request whose Accept names a transformation (`application/json;
// as=PartialObjectMetadata;g=meta.k8s.io;v=v1`, which client-go's metadata
// client and so controller-runtime's client for a PartialObjectMetadata
// send) with the object's metadata alone. The model's server serves the
// metadata forms of meta.k8s.io/v1; any other transformation (a Table,
// the v1beta1 forms) is not served, and a request that accepts nothing
// else is 406 Not Acceptable, as the API server answers a form it lacks.

// restForm is the form of a successful answer.
type restForm int

const (
	// formFull is the object or list as stored.
	formFull restForm = iota
	// formMetadata is a PartialObjectMetadata.
	formMetadata
	// formMetadataList is a PartialObjectMetadataList.
	formMetadataList
)

// acceptedForm reads an Accept header: its first entry the server can
// answer, in the client's order. An entry without `as` (JSON, or a media
// type the server does not speak, which it answers with JSON as ever) is
// the full form.
func acceptedForm(accept string) (restForm, error) {
	var unserved []string
	for _, entry := range strings.Split(accept, ",") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		mediaType, params, err := mime.ParseMediaType(entry)
		if err != nil {
			return formFull, apierrors.NewBadRequest(fmt.Sprintf("Accept %q: %v", accept, err))
		}
		as := params["as"]
		if as == "" {
			return formFull, nil
		}
		json := mediaType == "application/json" || mediaType == "application/*" || mediaType == "*/*"
		if json && params["g"] == metav1.GroupName && params["v"] == "v1" {
			switch as {
			case "PartialObjectMetadata":
				return formMetadata, nil
			case "PartialObjectMetadataList":
				return formMetadataList, nil
			}
		}
		unserved = append(unserved, entry)
	}
	if len(unserved) > 0 {
		return formFull, notAcceptable(fmt.Sprintf("converge's model API server serves objects as stored and as PartialObjectMetadata(List) of meta.k8s.io/v1 in JSON only, not %s",
			strings.Join(unserved, ", ")))
	}
	return formFull, nil
}

// notAcceptable is the API server's 406.
func notAcceptable(msg string) error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: http.StatusNotAcceptable,
		Reason: metav1.StatusReason("NotAcceptable"), Message: msg}}
}

// transform returns out, the body of a success, in form f. A Status (the
// answer of a delete) and text (a pod's log) are answered as they are.
func (f restForm) transform(out any) (any, error) {
	obj, ok := out.(runtime.Object)
	if f == formFull || !ok {
		return out, nil
	}
	if _, ok := obj.(*metav1.Status); ok {
		return out, nil
	}
	isList := meta.IsListType(obj)
	switch {
	case f == formMetadata && isList:
		return nil, notAcceptable(fmt.Sprintf("you requested PartialObjectMetadata, but the requested object is a list (%T)", obj))
	case f == formMetadataList && !isList:
		return nil, notAcceptable(fmt.Sprintf("you requested PartialObjectMetadataList, but the requested object is not a list (%T)", obj))
	case f == formMetadata:
		return partialOf(obj)
	}
	l, err := meta.ListAccessor(obj)
	if err != nil {
		return nil, err
	}
	list := &metav1.PartialObjectMetadataList{Items: []metav1.PartialObjectMetadata{}}
	list.SetGroupVersionKind(metav1.SchemeGroupVersion.WithKind("PartialObjectMetadataList"))
	list.ResourceVersion, list.Continue = l.GetResourceVersion(), l.GetContinue()
	err = meta.EachListItem(obj, func(item runtime.Object) error {
		p, err := partialOf(item)
		if err != nil {
			return err
		}
		list.Items = append(list.Items, *p)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return list, nil
}

// partialOf returns obj's metadata as a PartialObjectMetadata of
// meta.k8s.io/v1.
func partialOf(obj runtime.Object) (*metav1.PartialObjectMetadata, error) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, err
	}
	p := meta.AsPartialObjectMetadata(m)
	p.SetGroupVersionKind(metav1.SchemeGroupVersion.WithKind("PartialObjectMetadata"))
	return p, nil
}
