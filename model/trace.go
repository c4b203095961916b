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
// notifications, reconcile results).
type Record struct {
	Step   int
	Time   Time
	Actor  string
	Action string
	Writes []Write
	Notes  []string
	// Target is the object the step was about: the event's object for a
	// delivery (with Event and RV), the reconciled key's object for a
	// reconcile; zero when the step had none.
	Target Ref
	Event  EventType
	RV     uint64
	// text is a subject already in words (a timer's name).
	text string
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
	b.WriteString(r.Action)
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
	for _, n := range r.Notes {
		b.WriteString(" [")
		b.WriteString(n)
		b.WriteByte(']')
	}
	return b.String()
}

// FormatWrite renders a write: "update ReplicaSet default/web@15
// {spec.replicas: 3→5}". Creates and deletes name the object only.
func FormatWrite(w Write) string {
	var b strings.Builder
	b.WriteString(w.Verb.String())
	b.WriteByte(' ')
	b.WriteString(w.Ref().String())
	b.WriteByte('@')
	b.WriteString(strconv.FormatUint(w.RV(), 10))
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
		jr := jsonRecord{Step: r.Step, Time: r.Time, Actor: r.Actor, Action: r.Action, Object: r.Subject(), Notes: r.Notes}
		for _, wr := range r.Writes {
			jw := jsonWrite{Verb: wr.Verb.String(), Object: wr.Ref().String(), RV: wr.RV(), Writer: wr.Caller}
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
