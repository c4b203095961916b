package controllerruntime

import (
	"errors"
	"fmt"
	"math"
	"net/http"

	"github.com/converge-sim/converge/model"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// apiError translates an error of the model's API server into the
// apierrors error Kubernetes returns for the same reason, so that
// apierrors.IsConflict, IsNotFound, IsTimeout and the rest recognise it.
// gvk and name say which object the call was about. Other errors pass
// through unchanged.
func (cl *modelClient) apiError(err error, gvk schema.GroupVersionKind, name string) error {
	var se *model.StatusError
	if !errors.As(err, &se) {
		return err
	}
	gr, _ := cl.mapper.resource(gvk)
	res := gr.GroupResource()
	msg := se.Detail()
	switch se.Reason {
	case model.ReasonNotFound:
		return apierrors.NewNotFound(res, name)
	case model.ReasonAlreadyExists:
		return apierrors.NewAlreadyExists(res, name)
	case model.ReasonConflict:
		return apierrors.NewConflict(res, name, errors.New(msg))
	case model.ReasonInvalid:
		if len(se.Causes) > 0 {
			return invalid(gvk, name, se)
		}
		return apierrors.NewInvalid(gvk.GroupKind(), name, field.ErrorList{field.Invalid(field.NewPath("metadata"), name, msg)})
	case model.ReasonTimeout:
		return apierrors.NewTimeoutError(msg, 0)
	case model.ReasonTooManyReqs:
		retry := cl.conv.Time(se.RetryAfter).Sub(cl.conv.Time(0).Time)
		return apierrors.NewTooManyRequests(msg, int(math.Ceil(retry.Seconds())))
	case model.ReasonInternal:
		return apierrors.NewInternalError(errors.New(msg))
	case model.ReasonUnavailable:
		return apierrors.NewServiceUnavailable(msg)
	case model.ReasonExpired:
		return apierrors.NewResourceExpired(msg)
	case model.ReasonForbidden:
		// A webhook's denial: the real server returns the webhook's
		// message as it is, not NewForbidden's "<resource> is forbidden"
		// (webhook.go).
		return &apierrors.StatusError{ErrStatus: metav1.Status{
			Status: metav1.StatusFailure, Code: http.StatusForbidden, Reason: metav1.StatusReasonForbidden,
			Details: &metav1.StatusDetails{Group: gvk.Group, Kind: res.Resource, Name: name}, Message: msg,
		}}
	}
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusInternalServerError,
		Reason: metav1.StatusReason(se.Reason), Message: fmt.Sprintf("%s: %s", se.Reason, msg),
	}}
}

// unsupported is the error for a feature the model does not have.
func unsupported(what string) error {
	return apierrors.NewBadRequest(what + " is not supported by converge's model API server")
}

// invalid is the API server's Invalid error (422) for a rejection whose
// causes name the fields, with the message the rejecting step wrote.
func invalid(gvk schema.GroupVersionKind, name string, se *model.StatusError) error {
	causes := make([]metav1.StatusCause, len(se.Causes))
	for i, c := range se.Causes {
		causes[i] = metav1.StatusCause{Type: metav1.CauseType(c.Type), Message: c.Message, Field: c.Field}
	}
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusUnprocessableEntity, Reason: metav1.StatusReasonInvalid,
		Details: &metav1.StatusDetails{Group: gvk.Group, Kind: gvk.Kind, Name: name, Causes: causes},
		Message: se.Detail(),
	}}
}
