package model

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Record is one step of a run: when, who acted, what it did, on which
// object (see Subject), the writes it made and notes (failed calls, dropped
// notifications, reconcile results). Its fields are data: Kind, Timer,
// Replay, Informer and Fault say what the step was, and readers (the
// diagnosis, the timeline) read them (docs/design.md, section "The
// oracle"). The step in words ("reconcile", "watch", a fault's name) is
// String's alone: there is one vocabulary to compare, ActionKind.
type Record struct {
	Step   int
	Time   Time
	Actor  string
	Writes []Write
	Notes  []Note
	// Target is the object the step was about: the event's object for a
	// delivery (with Event and RV), the reconciled key's object for a
	// reconcile; zero when the step had none.
	Target Ref
	Event  EventType
	// Kind is the kind of action the scheduler chose for the step (see
	// Enabled); a reconcile a property probes is ActReconcile too. It is
	// zero for a step no action made: the setup, the start, a heal, a
	// write between steps.
	Kind ActionKind
	// Timer says which timer a step of kind ActTimer fired.
	Timer TimerKind
	// Replay marks a delivery (ActDeliver) that replayed the informer's
	// cache for a resync instead of delivering a watch event.
	Replay bool
	RV     uint64
	// Informer is the kind of the informer the step was about: the one
	// that delivered, replayed, re-watched, resynced, stopped lagging or
	// released a held event; "" when the step concerned none.
	Informer string
	// Fault is the number of the fault the step injected, counted from 1
	// in the sorted schedule (see faults.Schedule.Inject, Faults.Mark); 0 for a step
	// that is not a fault's.
	Fault int
	// action is the step in words, for String; text is a subject already
	// in words (a timer's name).
	action, text string
}

// TimerKind says which timer fired in a step of kind ActTimer.
type TimerKind uint8

// The timers of the model. A delayed requeue's timer starts no step of its
// own: its step keeps the zero TimerKind, the action "timer" and the
// timer's name as its subject.
const (
	// TimerResync starts an informer's resync.
	TimerResync TimerKind = iota + 1
	// TimerRestart restarts a crashed controller.
	TimerRestart
	// TimerLagEnds ends an informer's lag (a stale fault).
	TimerLagEnds
	// TimerRelease releases an event a delay fault held back.
	TimerRelease
	// TimerPartitionEnds ends a controller's partition.
	TimerPartitionEnds
	// TimerScheduled is a timer set with At or Interrupt: a fault's, or
	// the harness's (the end of the fault phase).
	TimerScheduled
)

// NoteKind says what a note records.
type NoteKind uint8

// The kinds of note. A note of any other kind than NoteText renders its
// words from its fields (see Note.String).
const (
	// NoteText is a note in words only (Note.Text): what a fault armed, what
	// an informer listed.
	NoteText NoteKind = iota
	// NoteFailed is an API call that failed (Note.Call): a controller's, an
	// outside actor's, or a read through the APIReader.
	NoteFailed
	// NoteInjected is a fault making an API call fail (Note.Call), noted as
	// it strikes, before the NoteFailed note of the same call.
	NoteInjected
	// NoteError is an error a reconciler or actor returned (Note.Text).
	NoteError
	// NotePanic is user code panicking (Note.Text holds the value).
	NotePanic
	// NoteRequeue is a reconcile returning Requeue.
	NoteRequeue
	// NoteRequeueAfter is a reconcile returning RequeueAfter (Note.N ticks).
	NoteRequeueAfter
	// NoteDropped is a notification a drop fault took from the controller.
	NoteDropped
	// NoteHeld is an event a delay fault held back.
	NoteHeld
	// NoteExpired is a watch that expired, so the informer relisted
	// (Note.N objects).
	NoteExpired
)

// Note is one note of a record, as data.
type Note struct {
	Kind NoteKind
	// Call is the call of a NoteFailed or NoteInjected note.
	Call *Call
	// N counts: the ticks of NoteRequeueAfter, the objects of NoteExpired.
	N int64
	// Text is the words of a NoteText note, the error of a NoteError note,
	// the value of a NotePanic note.
	Text string
}

// Call is an API call that failed.
type Call struct {
	// Verb is the write's verb; zero for a read through the APIReader.
	Verb Verb
	// Object is the object called; a list names its kind only.
	Object Ref
	// List says the call was a read of a list.
	List bool
	// Reason is the reason of the error ("" for an error that is not an
	// API error).
	Reason Reason
	// Err is the error's text as the caller got it.
	Err string
	// Injected says a fault made the call fail (Cluster.FailWrites).
	Injected bool
	// Applied says the injected failure came after the write landed (the
	// ambiguous timeout).
	Applied bool
}

// String renders the note as the trace prints it.
func (n Note) String() string {
	var b strings.Builder
	n.write(&b)
	return b.String()
}

func (n *Note) write(b *strings.Builder) {
	switch n.Kind {
	case NoteFailed:
		c := n.Call
		if c.Verb == 0 {
			b.WriteString("read ")
			if c.List {
				b.WriteString(c.Object.Kind)
				b.WriteString(" list")
			} else {
				b.WriteString(c.Object.String())
			}
		} else {
			b.WriteString(c.Verb.String())
			b.WriteByte(' ')
			b.WriteString(c.Object.String())
		}
		b.WriteString(" failed: ")
		b.WriteString(c.Err)
	case NoteInjected:
		c := n.Call
		b.WriteString(c.Verb.String())
		b.WriteByte(' ')
		b.WriteString(c.Object.String())
		if c.Applied {
			b.WriteString(" applied, then")
		}
		b.WriteString(" failed: ")
		b.WriteString(string(c.Reason))
		b.WriteString(" (fault)")
	case NoteError:
		b.WriteString("error: ")
		b.WriteString(n.Text)
	case NotePanic:
		b.WriteString("panic: ")
		b.WriteString(n.Text)
	case NoteRequeue:
		b.WriteString("requeue")
	case NoteRequeueAfter:
		b.WriteString("requeue after ")
		b.WriteString(strconv.FormatInt(n.N, 10))
	case NoteDropped:
		b.WriteString("notification dropped (fault)")
	case NoteHeld:
		b.WriteString("held back (fault)")
	case NoteExpired:
		b.WriteString("expired: relisted ")
		b.WriteString(strconv.FormatInt(n.N, 10))
	default:
		b.WriteString(n.Text)
	}
}

// Subject renders what the step was about: "Added Pod default/web-x@9",
// "ReplicaSet default/web", a timer's name, or "".
func (r *Record) Subject() string {
	if r.text != "" {
		return r.text
	}
	if r.Target.Kind == "" {
		return ""
	}
	var b strings.Builder
	if r.Event != 0 {
		b.WriteString(r.Event.String())
		b.WriteByte(' ')
	}
	b.WriteString(r.Target.String())
	if r.RV != 0 {
		b.WriteByte('@')
		b.WriteString(strconv.FormatUint(r.RV, 10))
	}
	return b.String()
}

// String renders the record on one line.
func (r *Record) String() string {
	var b strings.Builder
	b.WriteByte('#')
	b.WriteString(strconv.Itoa(r.Step))
	b.WriteString(" t=")
	b.WriteString(strconv.FormatInt(int64(r.Time), 10))
	b.WriteByte(' ')
	b.WriteString(r.Actor)
	b.WriteByte(' ')
	b.WriteString(r.action)
	if subject := r.Subject(); subject != "" {
		b.WriteByte(' ')
		b.WriteString(subject)
	}
	for i, w := range r.Writes {
		if i == 0 {
			b.WriteString(" => ")
		} else {
			b.WriteString("; ")
		}
		b.WriteString(FormatWrite(w))
	}
	for i := range r.Notes {
		b.WriteString(" [")
		r.Notes[i].write(&b)
		b.WriteByte(']')
	}
	return b.String()
}

// FormatWrite renders a write: "update ReplicaSet default/web@15
// {spec.replicas: 3→5}". Creates and deletes name the object only, and a
// delete its propagation policy unless it is Background: "delete
// StatefulSet default/web@9 (orphan) (deletion pending on finalizers)".
func FormatWrite(w Write) string {
	var b strings.Builder
	b.WriteString(w.Verb.String())
	b.WriteByte(' ')
	b.WriteString(w.Ref().String())
	b.WriteByte('@')
	b.WriteString(strconv.FormatUint(w.RV(), 10))
	if l := w.Propagation.label(); l != "" {
		b.WriteString(" (" + l + ")")
	}
	switch {
	case w.Old != nil && w.New != nil:
		changes := Diff(w.Old, w.New)
		if w.New.Deleting() && !w.Old.Deleting() {
			b.WriteString(" (deletion pending on finalizers)")
		}
		if len(changes) > 0 {
			b.WriteString(" {")
			for i, c := range changes {
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString(c.String())
			}
			b.WriteByte('}')
		}
	case w.New == nil && w.Verb != VerbDelete:
		b.WriteString(" (deleted: last finalizer removed)")
	}
	return b.String()
}

// Trace is the list of records of a run. A cluster configured with
// DiscardTrace keeps only the step count.
type Trace struct {
	Records []Record
}

// WriteText writes one line per record.
func (t *Trace) WriteText(w io.Writer) error {
	for i := range t.Records {
		if _, err := io.WriteString(w, t.Records[i].String()+"\n"); err != nil {
			return err
		}
	}
	return nil
}

// jsonWrite is the JSON form of a write.
type jsonWrite struct {
	Verb    string   `json:"verb"`
	Object  string   `json:"object"`
	RV      uint64   `json:"rv"`
	Writer  string   `json:"writer"`
	Changes []string `json:"changes,omitempty"`
	// Propagation is a delete's policy unless Background: "orphan",
	// "foreground".
	Propagation string `json:"propagation,omitempty"`
}

// jsonRecord is the JSON form of a record.
type jsonRecord struct {
	Step   int         `json:"step"`
	Time   Time        `json:"t"`
	Actor  string      `json:"actor"`
	Action string      `json:"action"`
	Object string      `json:"object,omitempty"`
	Writes []jsonWrite `json:"writes,omitempty"`
	Notes  []string    `json:"notes,omitempty"`
}

// WriteJSON writes one JSON object per record, one per line.
func (t *Trace) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	for i := range t.Records {
		r := &t.Records[i]
		jr := jsonRecord{Step: r.Step, Time: r.Time, Actor: r.Actor, Action: r.action, Object: r.Subject()}
		for _, n := range r.Notes {
			jr.Notes = append(jr.Notes, n.String())
		}
		for _, wr := range r.Writes {
			jw := jsonWrite{Verb: wr.Verb.String(), Object: wr.Ref().String(), RV: wr.RV(), Writer: wr.Caller, Propagation: wr.Propagation.label()}
			if wr.Old != nil && wr.New != nil {
				for _, c := range Diff(wr.Old, wr.New) {
					jw.Changes = append(jw.Changes, c.String())
				}
			}
			jr.Writes = append(jr.Writes, jw)
		}
		if err := enc.Encode(jr); err != nil {
			return err
		}
	}
	return nil
}

// Hash returns a SHA-256 of the trace's text, for determinism checks.
func (t *Trace) Hash() string {
	h := sha256.New()
	if err := t.WriteText(h); err != nil {
		panic(fmt.Sprintf("model: hashing a trace: %v", err))
	}
	return hex.EncodeToString(h.Sum(nil))
}
