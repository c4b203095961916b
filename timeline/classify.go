package timeline

import (
	"strconv"
	"strings"

	"github.com/converge-sim/converge/model"
)

// This file is the only place that reads meaning out of the text of a
// trace record: model.Record carries the action and its notes as strings.
// Everything else in the package classifies records by their fields (Actor,
// Target, Event, RV, Writes).

// noteKind classifies one note of a record.
type noteKind int

const (
	notePlain    noteKind = iota
	noteError             // the reconcile or actor returned an error, or panicked
	noteConflict          // a write failed with Conflict
	noteFailed            // a call failed otherwise
	noteDropped           // a fault dropped the notification
	noteHeld              // a fault held the event back
	noteRequeue           // the reconcile asked to be requeued
	noteExpired           // the watch expired and the informer relisted
)

func classifyNote(n string) noteKind {
	switch {
	case strings.HasPrefix(n, "error: "), strings.HasPrefix(n, "panic: "):
		return noteError
	case strings.Contains(n, " failed: Conflict"):
		return noteConflict
	case strings.Contains(n, " failed: "), strings.Contains(n, " failed (fault)"):
		return noteFailed
	case n == "notification dropped (fault)":
		return noteDropped
	case n == "held back (fault)":
		return noteHeld
	case strings.HasPrefix(n, "requeue"):
		return noteRequeue
	case strings.HasPrefix(n, "expired: "):
		return noteExpired
	}
	return notePlain
}

// informerKind returns the kind of the informer a controller's step was
// about: the delivered object's kind for a delivery, the kind named in the
// action ("lag ends Pod", "release held Pod") or subject (a resync or a
// rewatch) otherwise; "" when the step concerns no single informer.
func informerKind(r *model.Record) string {
	switch {
	case r.Action == "watch":
		return r.Target.Kind
	case r.Action == "resync" && r.Target.Kind != "":
		return r.Target.Kind
	case r.Action == "resync", r.Action == "rewatch":
		return r.Subject()
	case strings.HasPrefix(r.Action, "lag ends "):
		return strings.TrimPrefix(r.Action, "lag ends ")
	case strings.HasPrefix(r.Action, "release held "):
		return strings.TrimPrefix(r.Action, "release held ")
	}
	return ""
}

// faultNumber returns N of a fault step, whose action reads "#N <fault>"
// (N counts the sorted schedule from 1), or 0.
func faultNumber(r *model.Record) int {
	rest, ok := strings.CutPrefix(r.Action, "#")
	if !ok {
		return 0
	}
	num, _, _ := strings.Cut(rest, " ")
	n, err := strconv.Atoi(num)
	if err != nil || n < 1 {
		return 0
	}
	return n
}
