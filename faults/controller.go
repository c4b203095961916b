package faults

import (
	"fmt"

	"github.com/converge-sim/converge/model"
)

// Faults of a controller process and its connection to the API server.

// Restart crashes Controller and keeps it down for Down ticks; it comes
// back with no memory, an empty cache and an empty queue, and relists. With
// AfterWrites > 0 the crash strikes right after that many more writes of the
// controller, in the middle of a reconcile: the intermediate-state bug class.
type Restart struct {
	Controller  string
	Down        model.Time
	AfterWrites int
}

// Kind returns KindRestart.
func (Restart) Kind() Kind { return KindRestart }

// Target returns the controller that crashes.
func (f Restart) Target() string { return f.Controller }

// Apply crashes the controller, now or after its next writes.
func (f Restart) Apply(c *model.Cluster) error {
	return c.Faults().CrashAfterWrites(f.Controller, f.AfterWrites, f.Down)
}

func (f Restart) String() string {
	if f.AfterWrites > 0 {
		return fmt.Sprintf("restart %s right after its next %d writes (down %d ticks)", f.Controller, f.AfterWrites, f.Down)
	}
	return fmt.Sprintf("restart %s (down %d ticks)", f.Controller, f.Down)
}

// Partition cuts Controller off from the API server for For ticks: its
// writes fail with ServiceUnavailable and its watches break; it keeps
// reading its caches, and rewatches (or relists) once the partition ends.
type Partition struct {
	Controller string
	For        model.Time
}

// Kind returns KindPartition.
func (Partition) Kind() Kind { return KindPartition }

// Target returns the controller cut off.
func (f Partition) Target() string { return f.Controller }

// Apply starts the partition.
func (f Partition) Apply(c *model.Cluster) error { return c.Faults().Partition(f.Controller, f.For) }

func (f Partition) String() string {
	return fmt.Sprintf("partition %s from the API server for %d ticks", f.Controller, f.For)
}

// ErrorKind is the kind of API error an APIError fault injects.
type ErrorKind string

// The API errors.
const (
	ErrConflict ErrorKind = "conflict"
	ErrTimeout  ErrorKind = "timeout"
	ErrThrottle ErrorKind = "throttle"
	ErrInternal ErrorKind = "internal"
	// ErrAmbiguous is a timeout after the write was applied: the caller
	// cannot tell whether it landed.
	ErrAmbiguous ErrorKind = "ambiguous-timeout"
)

// ErrorKinds lists the API errors in the order generators draw them.
func ErrorKinds() []ErrorKind {
	return []ErrorKind{ErrConflict, ErrTimeout, ErrThrottle, ErrInternal, ErrAmbiguous}
}

// throttleRetryAfter is the retry-after hint of an injected 429, in ticks.
const throttleRetryAfter = 5

func (k ErrorKind) status() (*model.StatusError, bool, error) {
	switch k {
	case ErrConflict:
		return &model.StatusError{Reason: model.ReasonConflict, Message: "the object has been modified (injected)"}, false, nil
	case ErrTimeout:
		return &model.StatusError{Reason: model.ReasonTimeout, Message: "the server was unable to return a response in the time allotted (injected)"}, false, nil
	case ErrThrottle:
		return &model.StatusError{Reason: model.ReasonTooManyReqs, Message: "too many requests (injected)", RetryAfter: throttleRetryAfter}, false, nil
	case ErrInternal:
		return &model.StatusError{Reason: model.ReasonInternal, Message: "internal error (injected)"}, false, nil
	case ErrAmbiguous:
		return &model.StatusError{Reason: model.ReasonTimeout, Message: "timeout after the write was applied (injected)"}, true, nil
	}
	return nil, false, fmt.Errorf("unknown API error kind %q", k)
}

// APIError makes Controller's next Count writes fail with Error.
type APIError struct {
	Controller string
	Error      ErrorKind
	Count      int
}

// Kind returns KindAPIError.
func (APIError) Kind() Kind { return KindAPIError }

// Target returns the controller whose writes fail.
func (f APIError) Target() string { return f.Controller }

// Apply arms the failures.
func (f APIError) Apply(c *model.Cluster) error {
	err, applied, bad := f.Error.status()
	if bad != nil {
		return bad
	}
	return c.Faults().FailWrites(f.Controller, err, f.Count, applied)
}

func (f APIError) String() string {
	return fmt.Sprintf("fail the next %d writes of %s with %s", f.Count, f.Controller, f.Error)
}
