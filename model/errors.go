package model

import (
	"errors"
	"fmt"
)

// Reason classifies an API error the way Kubernetes' metav1.StatusReason
// does, so controllers can branch on it.
type Reason string

// The reasons the model's API server returns.
const (
	ReasonNotFound      Reason = "NotFound"
	ReasonAlreadyExists Reason = "AlreadyExists"
	ReasonConflict      Reason = "Conflict"
	ReasonInvalid       Reason = "Invalid"
	ReasonTimeout       Reason = "Timeout"
	ReasonTooManyReqs   Reason = "TooManyRequests"
	ReasonInternal      Reason = "InternalError"
	ReasonUnavailable   Reason = "ServiceUnavailable"
	ReasonExpired       Reason = "Expired"
	// ReasonForbidden is an admission step's refusal that names no field,
	// as a webhook's denial (403) is on a real server.
	ReasonForbidden Reason = "Forbidden"
)

// StatusError is the error every API call returns. A caller must not
// modify one: the server returns the same NotFound error for a ref again
// (a controller on a lagging cache deletes the same gone pods reconcile
// after reconcile), so a change would reach the next caller.
type StatusError struct {
	Reason  Reason
	Message string
	// RetryAfter is the server's hint, in ticks, for TooManyRequests.
	RetryAfter Time
	// Causes name the offending fields of an Invalid error, when the
	// admission step that rejected the write knows them.
	Causes []Cause

	// format and args, or missing, render Message on demand: controllers
	// on stale caches meet conflicts and not-founds often, and most never
	// print them.
	format  string
	args    []any
	missing Ref
}

// Detail returns the error's message, rendering it first if it is still
// to be rendered. Read it rather than Message, which stays empty until
// then.
func (e *StatusError) Detail() string {
	if e.Message == "" {
		switch {
		case e.format != "":
			e.Message = fmt.Sprintf(e.format, e.args...)
		case e.missing.Kind != "":
			e.Message = e.missing.String() + " not found"
		}
	}
	return e.Message
}

func (e *StatusError) Error() string { return string(e.Reason) + ": " + e.Detail() }

func statusErr(reason Reason, format string, args ...any) *StatusError {
	return &StatusError{Reason: reason, format: format, args: args}
}

// notFound is the NotFound error of ref, "<ref> not found".
func notFound(ref Ref) *StatusError { return &StatusError{Reason: ReasonNotFound, missing: ref} }

// ReasonOf returns the reason of an API error, or "" for any other error.
func ReasonOf(err error) Reason {
	if err == nil {
		return ""
	}
	if se, ok := err.(*StatusError); ok {
		return se.Reason
	}
	var se *StatusError
	if errors.As(err, &se) {
		return se.Reason
	}
	return ""
}

// IsNotFound reports whether err says the object does not exist.
func IsNotFound(err error) bool { return ReasonOf(err) == ReasonNotFound }

// IsAlreadyExists reports whether err says the name is taken.
func IsAlreadyExists(err error) bool { return ReasonOf(err) == ReasonAlreadyExists }

// IsConflict reports whether err is an optimistic-concurrency conflict.
func IsConflict(err error) bool { return ReasonOf(err) == ReasonConflict }

// IsExpired reports whether err says a watch asked for compacted history.
func IsExpired(err error) bool { return ReasonOf(err) == ReasonExpired }

// IsForbidden reports whether an admission step refused the write (a
// webhook's denial).
func IsForbidden(err error) bool { return ReasonOf(err) == ReasonForbidden }

// IsInvalid reports whether the server rejected the object as malformed.
func IsInvalid(err error) bool { return ReasonOf(err) == ReasonInvalid }
