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
)

// StatusError is the error every API call returns.
type StatusError struct {
	Reason  Reason
	Message string
	// RetryAfter is the server's hint, in ticks, for TooManyRequests.
	RetryAfter Time
	// Causes name the offending fields of an Invalid error, when the
	// admission step that rejected the write knows them.
	Causes []Cause

	// format and args render Message on demand: controllers on stale
	// caches meet conflicts and not-founds often, and most never print them.
	format string
	args   []any
}

func (e *StatusError) Error() string {
	if e.Message == "" && e.format != "" {
		e.Message = fmt.Sprintf(e.format, e.args...)
	}
	return string(e.Reason) + ": " + e.Message
}

func statusErr(reason Reason, format string, args ...any) *StatusError {
	return &StatusError{Reason: reason, format: format, args: args}
}

// ReasonOf returns the reason of an API error, or "" for any other error.
func ReasonOf(err error) Reason {
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

// IsInvalid reports whether the server rejected the object as malformed.
func IsInvalid(err error) bool { return ReasonOf(err) == ReasonInvalid }
