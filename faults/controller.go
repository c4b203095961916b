package faults

import (
	"fmt"
	"slices"

	"github.com/converge-sim/converge/internal/echo"
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

// ApplyRestartsLater arms one of fs, restarts all aimed at one controller
// and all after at least one write, deciding which only at that
// controller's next write, where choose picks its index
// (model.Faults.CrashAfterWritesLater): until then each would have left
// the cluster the same. name names the set in the cluster's fingerprint,
// and must tell it from any other set.
func ApplyRestartsLater(c *model.Cluster, fs []Restart, name string, choose func(n int) int) error {
	if len(fs) == 0 {
		return fmt.Errorf("faults: no restarts to arm")
	}
	for _, f := range fs {
		if f.Controller != fs[0].Controller {
			return fmt.Errorf("faults: restarts later: %s and %s aim at different controllers", fs[0], f)
		}
		if f.AfterWrites < 1 {
			return fmt.Errorf("faults: restarts later: %s strikes now, not at a write", f)
		}
	}
	fs = slices.Clone(fs)
	return c.Faults().CrashAfterWritesLater(fs[0].Controller, name, func() (int, model.Time) {
		i := chosen(choose, len(fs))
		return fs[i].AfterWrites, fs[i].Down
	})
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
	return nil, false, fmt.Errorf("unknown API error kind %s", echo.Quote(string(k)))
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

// ApplyAPIErrorsLater arms one of fs, API errors all aimed at one
// controller, deciding which only at that controller's next write, where
// choose picks its index (model.Faults.FailWritesLater): until then each
// would have left the cluster the same. name names the set in the
// cluster's fingerprint, and must tell it from any other set.
func ApplyAPIErrorsLater(c *model.Cluster, fs []APIError, name string, choose func(n int) int) error {
	if len(fs) == 0 {
		return fmt.Errorf("faults: no API errors to arm")
	}
	type armed struct {
		err     *model.StatusError
		applied bool
		n       int
	}
	var all []armed
	for _, f := range fs {
		if f.Controller != fs[0].Controller {
			return fmt.Errorf("faults: API errors later: %s and %s aim at different controllers", fs[0], f)
		}
		err, applied, bad := f.Error.status()
		if bad != nil {
			return bad
		}
		all = append(all, armed{err, applied, f.Count})
	}
	return c.Faults().FailWritesLater(fs[0].Controller, name, func() (*model.StatusError, int, bool) {
		a := all[chosen(choose, len(all))]
		return a.err, a.n, a.applied
	})
}

func (f APIError) String() string {
	return fmt.Sprintf("fail the next %d writes of %s with %s", f.Count, f.Controller, f.Error)
}
