package model

import "container/heap"

// Timer is a pending callback at a virtual time. Timers at the same time fire
// in the order they were set.
type Timer struct {
	At   Time
	Name string // shown in the trace: "resync replicaset/Pod"
	// Preempts lets the timer fire while watch events are in flight; other
	// timers wait until informers have caught up (see Cluster.Enabled).
	Preempts bool
	seq      uint64
	fire     func()
	dead     bool
	fired    bool
}

// Fired reports whether the timer has fired (a cancelled one never does).
func (t *Timer) Fired() bool { return t != nil && t.fired }

// Cancel stops the timer from firing. Cancelling a fired timer does nothing.
func (t *Timer) Cancel() {
	if t != nil {
		t.dead = true
	}
}

// Clock is the virtual clock: a counter and a heap of timers. Time moves
// only when the next timer fires. A Clock must not be copied once it has
// set a timer: the copy would hand out the same room for new timers.
type Clock struct {
	now    Time
	seq    uint64
	timers timerHeap
	// room holds timers not yet set, made timerRoom at a time: a run sets
	// a dozen timers, and one allocation each was 2.5 % of a search's
	// allocations (BENCHMARKS.md, "Seventh round"). A room stays alive
	// while any of its timers is referenced.
	room []Timer
}

// timerRoom is how many timers Clock.At makes room for at once.
const timerRoom = 16

// Now returns the current virtual time.
func (c *Clock) Now() Time { return c.now }

// After sets a timer d ticks from now (d < 0 counts as 0).
func (c *Clock) After(d Time, name string, fire func()) *Timer {
	if d < 0 {
		d = 0
	}
	return c.At(c.now+d, name, fire)
}

// At sets a timer at time at, or now if at is in the past.
func (c *Clock) At(at Time, name string, fire func()) *Timer {
	if at < c.now {
		at = c.now
	}
	c.seq++
	if len(c.room) == 0 {
		c.room = make([]Timer, timerRoom)
	}
	t := &c.room[0]
	c.room = c.room[1:]
	*t = Timer{At: at, Name: name, seq: c.seq, fire: fire}
	heap.Push(&c.timers, t)
	return t
}

// Next returns the next live timer without firing it, or nil.
func (c *Clock) Next() *Timer {
	for len(c.timers) > 0 && c.timers[0].dead {
		heap.Pop(&c.timers)
	}
	if len(c.timers) == 0 {
		return nil
	}
	return c.timers[0]
}

// nextOther returns the first live timer, in firing order, that skip
// does not pass over, or nil.
func (c *Clock) nextOther(skip func(*Timer) bool) *Timer {
	var first *Timer
	for _, t := range c.timers {
		if t.dead || skip(t) {
			continue
		}
		if first == nil || t.At < first.At || t.At == first.At && t.seq < first.seq {
			first = t
		}
	}
	return first
}

// Fire advances the clock to the next live timer and runs it. It returns the
// timer, or nil when none is set.
func (c *Clock) Fire() *Timer {
	t := c.Next()
	if t == nil {
		return nil
	}
	heap.Pop(&c.timers)
	c.now = t.At
	t.dead = true
	t.fired = true
	t.fire()
	return t
}

type timerHeap []*Timer

func (h timerHeap) Len() int { return len(h) }
func (h timerHeap) Less(i, j int) bool {
	if h[i].At != h[j].At {
		return h[i].At < h[j].At
	}
	return h[i].seq < h[j].seq
}
func (h timerHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *timerHeap) Push(x any)   { *h = append(*h, x.(*Timer)) }
func (h *timerHeap) Pop() any {
	old := *h
	t := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return t
}
