package model

// Backoff is the per-item exponential backoff of a rate-limited requeue, as
// client-go's ItemExponentialFailureRateLimiter: Base·2^failures, at most Max.
type Backoff struct {
	Base Time
	Max  Time
}

// DefaultBackoff starts at one tick and caps at 64 ticks.
var DefaultBackoff = Backoff{Base: 1, Max: 64}

// Queue is a work queue with client-go's semantics: a key waits in the queue
// at most once; a key added while it is being processed is processed again
// after Done; AddAfter delays an add (keeping the earliest time when a key is
// already waiting); AddRateLimited delays it by the item's backoff.
type Queue struct {
	clock      *Clock
	name       string
	backoff    Backoff
	items      []string
	head       int
	dirty      map[string]bool
	processing map[string]bool
	failures   map[string]int
	waiting    map[string]*Timer
}

// NewQueue returns an empty queue whose delayed adds are timers on clock,
// named after name.
func NewQueue(clock *Clock, name string, backoff Backoff) *Queue {
	if backoff.Base <= 0 {
		backoff = DefaultBackoff
	}
	return &Queue{
		clock:      clock,
		name:       name,
		backoff:    backoff,
		dirty:      map[string]bool{},
		processing: map[string]bool{},
		failures:   map[string]int{},
		waiting:    map[string]*Timer{},
	}
}

// Add marks key as needing processing.
func (q *Queue) Add(key string) {
	if q.dirty[key] {
		return
	}
	q.dirty[key] = true
	if q.processing[key] {
		return
	}
	q.items = append(q.items, key)
}

// Len returns the number of keys ready to be handed out.
func (q *Queue) Len() int { return len(q.items) - q.head }

// Get hands out the next key and marks it as being processed.
func (q *Queue) Get() (string, bool) {
	if q.Len() == 0 {
		return "", false
	}
	key := q.items[q.head]
	q.items[q.head] = ""
	q.head++
	if q.head == len(q.items) { // empty: start again at the front
		q.items, q.head = q.items[:0], 0
	} else if q.head > 64 && q.head*2 > len(q.items) {
		q.items = append(q.items[:0], q.items[q.head:]...)
		q.head = 0
	}
	q.processing[key] = true
	delete(q.dirty, key)
	return key, true
}

// Take hands out key now if it is waiting in the queue, as Get would when
// its turn came; otherwise it marks key as being processed. Either way the
// caller must call Done.
func (q *Queue) Take(key string) {
	if q.dirty[key] && !q.processing[key] {
		for i := q.head; i < len(q.items); i++ {
			if q.items[i] == key {
				q.items = append(q.items[:i:i], q.items[i+1:]...)
				break
			}
		}
	}
	q.processing[key] = true
	delete(q.dirty, key)
}

// Processing reports whether key has been handed out and is not yet Done.
func (q *Queue) Processing(key string) bool { return q.processing[key] }

// Done marks the end of processing key; if it was added meanwhile, it goes
// back in the queue.
func (q *Queue) Done(key string) {
	delete(q.processing, key)
	if q.dirty[key] {
		q.items = append(q.items, key)
	}
}

// AddAfter adds key once d ticks have passed.
func (q *Queue) AddAfter(key string, d Time) {
	if d <= 0 {
		q.Add(key)
		return
	}
	at := q.clock.Now() + d
	if t := q.waiting[key]; t != nil {
		if t.At <= at {
			return
		}
		t.Cancel()
	}
	q.waiting[key] = q.clock.At(at, "requeue "+q.name+" "+key, func() {
		delete(q.waiting, key)
		q.Add(key)
	})
}

// AddRateLimited adds key after its backoff and counts a failure.
func (q *Queue) AddRateLimited(key string) {
	q.AddAfter(key, q.When(key))
}

// When returns the backoff for key's next requeue and counts a failure.
func (q *Queue) When(key string) Time {
	n := q.failures[key]
	q.failures[key] = n + 1
	d := q.backoff.Base
	for i := 0; i < n && d < q.backoff.Max; i++ {
		d *= 2
	}
	return min(d, q.backoff.Max)
}

// Forget clears key's failure count.
func (q *Queue) Forget(key string) { delete(q.failures, key) }

// NumRequeues returns how many failures key has had since its last Forget.
func (q *Queue) NumRequeues(key string) int { return q.failures[key] }

// Waiting returns the number of keys waiting on a delayed add.
func (q *Queue) Waiting() int { return len(q.waiting) }

// LastWaiting returns the time of the latest delayed add, if any.
func (q *Queue) LastWaiting() (Time, bool) {
	var last Time
	found := false
	for _, t := range q.waiting {
		if !found || t.At > last {
			last, found = t.At, true
		}
	}
	return last, found
}

// ShutDown drops every key and cancels every delayed add.
func (q *Queue) ShutDown() {
	for _, t := range q.waiting {
		t.Cancel()
	}
	q.items, q.head = nil, 0
	clear(q.dirty)
	clear(q.processing)
	clear(q.waiting)
}
