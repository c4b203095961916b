package timeline

import "github.com/converge-sim/converge/model"

// Every record is classified by its fields (Kind, Timer, Replay, Informer,
// Fault, Target, Writes) and its notes by their kinds: nothing in this
// package reads meaning out of the text of a trace.

// noteKind classifies one note of a record.
type noteKind int

const (
	notePlain    noteKind = iota
	noteError             // the reconcile or actor returned an error, or panicked
	noteConflict          // a call failed with Conflict
	noteFailed            // a call failed otherwise
	noteDropped           // a fault dropped the notification
	noteHeld              // a fault held the event back
	noteRequeue           // the reconcile asked to be requeued
	noteExpired           // the watch expired and the informer relisted
)

func classifyNote(n *model.Note) noteKind {
	switch n.Kind {
	case model.NoteError, model.NotePanic:
		return noteError
	case model.NoteFailed, model.NoteInjected:
		if n.Call.Reason == model.ReasonConflict {
			return noteConflict
		}
		return noteFailed
	case model.NoteDropped:
		return noteDropped
	case model.NoteHeld:
		return noteHeld
	case model.NoteRequeue, model.NoteRequeueAfter:
		return noteRequeue
	case model.NoteExpired:
		return noteExpired
	}
	return notePlain
}

// delivered reports whether the step delivered a watch event (not a
// resync's replay) to an informer.
func delivered(r *model.Record) bool {
	return r.Kind == model.ActDeliver && !r.Replay
}
