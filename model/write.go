package model

import "strconv"

// Verb is the kind of write a caller makes.
type Verb uint8

// The write verbs of the API server.
const (
	VerbCreate Verb = iota + 1
	VerbUpdate
	VerbUpdateStatus
	VerbDelete
	VerbEvict
)

func (v Verb) String() string {
	switch v {
	case VerbCreate:
		return "create"
	case VerbUpdate:
		return "update"
	case VerbUpdateStatus:
		return "update-status"
	case VerbDelete:
		return "delete"
	case VerbEvict:
		return "evict"
	}
	return "Verb(" + strconv.Itoa(int(v)) + ")"
}

// Write records one effective write: a call that changed the store. A no-op
// update (nothing changed) is not a write, as in Kubernetes, where it does
// not bump the resourceVersion.
type Write struct {
	Caller string
	Verb   Verb
	// Old and New are the stored snapshots before and after; Old is nil for a
	// create, New is nil when the object left the store.
	Old, New *Object
	// Rev is the resourceVersion the write produced.
	Rev uint64
	// Unconditional is set on an update that carried no resourceVersion
	// precondition.
	Unconditional bool
	// FieldManager is the field manager the writer declared, if any
	// (Object.FieldManager).
	FieldManager string
	// Propagation is the propagation policy of a delete, as the caller
	// gave it (empty for Background by default).
	Propagation Propagation
}

// Ref names the written object.
func (w Write) Ref() Ref {
	if w.New != nil {
		return w.New.Ref()
	}
	return w.Old.Ref()
}

// RV is the resourceVersion the write produced.
func (w Write) RV() uint64 { return w.Rev }

// Intercept decides, before the server applies a write, whether the call
// fails. A nil error lets it through. With applied set, the server applies
// the write and still returns the error: the ambiguous timeout where the
// caller cannot tell whether its write landed. A server holds a chain of
// them (Server.AddIntercept).
type Intercept func(caller string, verb Verb, ref Ref) (err error, applied bool)
