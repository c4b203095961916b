package model

import (
	"slices"
	"strconv"
)

// EventType is the type of a watch event.
type EventType uint8

// Watch event types, as in Kubernetes.
const (
	Added EventType = iota + 1
	Modified
	Deleted
)

func (t EventType) String() string {
	switch t {
	case Added:
		return "Added"
	case Modified:
		return "Modified"
	case Deleted:
		return "Deleted"
	}
	return "EventType(" + strconv.Itoa(int(t)) + ")"
}

// Event is one entry of the server's history and of a watch stream. Object
// is the server's snapshot after the write (for Deleted, the last state,
// carrying the deletion's resourceVersion); it is shared and never mutated.
type Event struct {
	Type   EventType
	Object *Object
	// Old is the stored state the write replaced: nil for Added. With it
	// the history can be undone back to any retained resourceVersion
	// (Server.ViewAt).
	Old *Object
	// At is the virtual time of the write.
	At Time
}

// RV is the resourceVersion the event brings its object to.
func (e Event) RV() uint64 { return e.Object.ResourceVersion }

// String renders "Deleted Pod default/web-1@9".
func (e Event) String() string { return e.Type.String() + " " + e.Object.String() }

func (s *Server) emit(t EventType, o *Object, w Write) {
	o.writer = w.Caller
	e := Event{Type: t, Object: o, Old: w.Old, At: s.now()}
	w.Rev = o.ResourceVersion
	s.history = append(s.history, e)
	if len(s.history) >= 2*s.window {
		// Compacted in place: a copy of the kept window left an array of
		// exactly the window, which the next event's append grew again
		// (two arrays a window, every window's events; BENCHMARKS.md,
		// "Fifth round: the step loop"). Nothing holds the history across
		// a write.
		cut := len(s.history) - s.window
		s.compactedRV = s.history[cut-1].RV()
		n := copy(s.history, s.history[cut:])
		clear(s.history[n:])
		s.history = s.history[:n]
	}
	for _, wt := range s.watches {
		if wt.kind == o.Kind {
			wt.pending = append(wt.pending, e)
		}
	}
	for _, fn := range s.onWrite {
		fn(w)
	}
}

// Stream is a server-side watch stream: the events of one kind after a
// resourceVersion, in order, waiting to be delivered. It is plain data that
// faults may edit.
type Stream struct {
	kind    string
	pending []Event
	stopped bool
	// room is pending's first array: a stream rarely holds more than a
	// few undelivered events, and delivery removes them from the front
	// in place, so most streams never allocate for their events.
	room [4]Event
}

// Pending returns the number of undelivered events.
func (w *Stream) Pending() int { return len(w.pending) }

// Watch opens a stream of kind's events after fromRV. It fails with Expired
// when the history from fromRV has been compacted away.
func (s *Server) Watch(kind string, fromRV uint64) (*Stream, error) {
	if fromRV < s.compactedRV {
		return nil, statusErr(ReasonExpired, "too old resource version: %d (%d)", fromRV, s.compactedRV)
	}
	w := &Stream{kind: kind}
	w.pending = w.room[:0]
	for _, e := range s.history {
		if e.Object.Kind == kind && e.RV() > fromRV {
			w.pending = append(w.pending, e)
		}
	}
	s.watches = append(s.watches, w)
	return w, nil
}

// StopWatch closes w; its undelivered events are discarded.
func (s *Server) StopWatch(w *Stream) {
	if w == nil || w.stopped {
		return
	}
	w.stopped = true
	w.pending = nil
	s.watches = slices.DeleteFunc(s.watches, func(x *Stream) bool { return x == w })
}

// CompactedRV returns the highest resourceVersion no longer in the history.
func (s *Server) CompactedRV() uint64 { return s.compactedRV }
