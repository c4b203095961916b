package model

import (
	"fmt"

	"go.uber.org/zap"
)

// Note adds a note to the current step's record.
func (c *Cluster) Note(format string, args ...any) { c.notef(format, args...) }

// begin starts the record of a step, or relabels the current one (a timer
// step takes the name of what its timer does).
func (c *Cluster) begin(actor, action, object string) {
	if c.cur == nil {
		c.step++
		if c.cfg.DiscardTrace {
			c.scratch = Record{Writes: c.scratch.Writes[:0], Notes: c.scratch.Notes[:0]}
		} else {
			c.scratch = Record{}
		}
		c.cur = &c.scratch
		c.cur.Step = c.step
	}
	c.cur.Actor, c.cur.action, c.cur.text = actor, action, object
	c.cur.Target, c.cur.Event, c.cur.RV = Ref{}, 0, 0
}

// end finishes the current step: pending crashes happen, the record is kept
// and logged.
func (c *Cluster) end() {
	if len(c.lent) > 0 {
		c.checkLent()
	}
	for _, ctl := range c.pendingCrash {
		travel := ctl.wait.travel
		ctl.wait.travel = nil
		ctl.crash(ctl.crashDown)
		if travel != nil {
			ctl.travelBack(travel.seen, travel.behind)
		}
	}
	c.pendingCrash = c.pendingCrash[:0]
	r := c.cur
	r.Time = c.clock.Now()
	c.cur = nil
	if !c.cfg.DiscardTrace {
		c.trace.Records = append(c.trace.Records, *r)
	}
	if c.debug {
		c.log.Debug("step", zap.Int("step", r.Step), zap.Int64("t", int64(r.Time)), zap.String("actor", r.Actor),
			zap.String("action", r.action), zap.String("object", r.Subject()), zap.Stringer("record", r))
	}
}

// OnWrite registers fn to see every effective write, as it happens.
// Listeners add up: they run in the order they were registered, after the
// cluster has counted the write and before it joins the trace, and before
// the callbacks added with Server.OnWrite. A nil fn adds nothing.
func (c *Cluster) OnWrite(fn func(Write)) {
	if fn != nil {
		c.listeners = append(c.listeners, fn)
	}
}

func (c *Cluster) recordWrite(w Write) {
	c.writes++
	for _, fn := range c.listeners {
		fn(w)
	}
	if c.cur == nil {
		c.begin(w.Caller, "write", "")
		defer c.end()
	}
	c.cur.Writes = append(c.cur.Writes, w)
}

// noting reports whether a note on the current step would be read: there
// is a step, and its record is kept or logged.
func (c *Cluster) noting() bool {
	return c.cur != nil && (!c.cfg.DiscardTrace || c.debug)
}

// note adds a note to the current record, unless nothing will read it.
func (c *Cluster) note(n Note) {
	if c.noting() {
		c.cur.Notes = append(c.cur.Notes, n)
	}
}

// notef adds a note in words to the current record, unless nothing will
// read it.
func (c *Cluster) notef(format string, args ...any) {
	if c.noting() {
		c.cur.Notes = append(c.cur.Notes, Note{Text: fmt.Sprintf(format, args...)})
	}
}

// noteError notes an error user code returned.
func (c *Cluster) noteError(err error) {
	if c.noting() {
		c.cur.Notes = append(c.cur.Notes, Note{Kind: NoteError, Text: fmt.Sprint(err)})
	}
}

// noteFailed notes call (its verb and object set) as failed with err,
// telling whether a fault armed the error (see intercept).
func (c *Cluster) noteFailed(call Call, err error) {
	if !c.noting() {
		return
	}
	// A copy, so that call stays on the stack when nothing is noted.
	noted := new(Call)
	*noted = call
	noted.Reason, noted.Err = ReasonOf(err), fmt.Sprint(err)
	if se, ok := err.(*StatusError); ok && se == c.injected.err {
		noted.Injected, noted.Applied = true, c.injected.applied
	}
	c.cur.Notes = append(c.cur.Notes, Note{Kind: NoteFailed, Call: noted})
}
