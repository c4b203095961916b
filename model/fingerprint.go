package model

import (
	"encoding/binary"
	"fmt"
	"hash"
	"maps"
	"math"
	"math/bits"
	"slices"
	"sort"
)

// Fingerprinter is implemented by a Reconciler, a Handler or an Actor
// whose memory decides its future behaviour: Fingerprint writes that
// memory, canonically (map keys sorted, no pointers), to h. Bounded
// exploration merges states with equal fingerprints; without the hook a
// component is taken to be stateless, and the guarantee names it
// (Cluster.Unfingerprinted).
type Fingerprinter interface {
	Fingerprint(h hash.Hash64)
}

// Fingerprint returns a 64-bit hash of everything in the cluster that
// decides its future (docs/design.md, "Bounded exhaustive exploration"):
// the virtual time; the server's objects, history, counters, pending
// garbage and rejections; each informer's cache, watch stream with its
// pending events, held events and armed faults (drops, duplicates,
// delays, staleness, relists due); each controller's liveness, partition,
// armed write failures and crash, its queue (items in order, dirty,
// processing, failures, waiting keys with their times relative to now)
// and, through Fingerprinter, its memory; live timers as (time relative
// to now, name, order); actors' remaining moves and memory; rivals.
//
// ResourceVersions, UIDs and generated names enter as they are, not
// renumbered: two states that differ only in how the server numbered
// them hash differently, which loses merges but never merges states that
// differ.
func (c *Cluster) Fingerprint() uint64 {
	if c.fpCache == nil || len(c.fpCache.objects) > maxCachedObjectHashes {
		c.fpCache = &fingerprintCache{objects: map[*Object]uint64{}}
	}
	return c.fingerprint(&fp{v: fnvOffset, cache: c.fpCache})
}

// fingerprint writes the cluster's state to f: in full, or with f.loop set,
// as LoopFingerprint does.
func (c *Cluster) fingerprint(f *fp) uint64 {
	s := c.server
	f.clock(c.clock.Now())
	f.bool(c.actorsStopped)
	f.bool(c.resyncHeld)
	f.bool(c.panic != nil)
	f.int(int64(len(c.pendingCrash)))

	if f.loop == nil {
		f.uint(s.rv)
		f.uint(s.seq)
		f.uint(s.compactedRV)
	}
	f.uint(s.rejectSeq)
	for _, kind := range s.kindSeq {
		f.str(kind)
		st := s.kinds[kind]
		f.int(int64(st.len()))
		st.keys.each(func(k objKey) bool {
			f.object(st.objs[k])
			return true
		})
	}
	if f.loop == nil {
		f.history(s.history)
	}
	f.int(int64(len(s.gcQueue)))
	for _, r := range s.gcQueue {
		f.str(r.String())
	}

	for _, ctl := range c.ctrls {
		f.controller(ctl)
	}
	for _, inf := range c.informers {
		f.informer(inf)
	}

	now := c.clock.Now()
	timers := make([]*Timer, 0, len(c.clock.timers))
	for _, t := range c.clock.timers {
		if !t.dead {
			timers = append(timers, t)
		}
	}
	sort.Slice(timers, func(i, j int) bool { return timers[i].seq < timers[j].seq })
	f.int(int64(len(timers)))
	for _, t := range timers {
		f.int(int64(t.At - now))
		f.str(t.Name)
		f.bool(t.Preempts)
	}

	for _, a := range c.actors {
		f.str(a.actor.Name())
		f.int(int64(a.moves))
		f.hook(a.actor)
	}
	for _, r := range c.rivals {
		f.str(r.Name)
		f.str(r.Target.String())
		f.str(r.Path)
		f.value(r.Value)
		f.bool(r.Persistent)
		f.bool(r.active)
	}
	return f.v
}

// Unfingerprinted returns the controllers and actors whose memory
// Fingerprint does not cover: they implement no Fingerprinter.
func (c *Cluster) Unfingerprinted() []string {
	var out []string
	for _, ctl := range c.ctrls {
		var memory any = ctl.rec
		if ctl.rec == nil {
			memory = ctl.handler
		}
		if _, ok := memory.(Fingerprinter); !ok {
			out = append(out, ctl.spec.Name)
		}
	}
	for _, a := range c.actors {
		if _, ok := a.actor.(Fingerprinter); !ok {
			out = append(out, a.actor.Name())
		}
	}
	return out
}

// maxCachedObjectHashes bounds the fingerprint cache of a long-lived
// cluster: it keeps every object version it hashed alive, compacted ones
// too, so past this many it starts afresh (a missing hash is recomputed).
const maxCachedObjectHashes = 1 << 16

// fp writes the parts of a state to a hash, each unambiguously delimited,
// a word at a time (see uint), written out so that hashing allocates
// nothing; a Fingerprinter's bytes go through 64-bit FNV-1a.
type fp struct {
	v     uint64
	cache *fingerprintCache
	// loop, when set, writes resourceVersions, UIDs and times relative to
	// the state's own (LoopFingerprint).
	loop *loopBase
}

// fingerprintCache keeps, for one cluster, what Fingerprint hashed of the
// parts of its state that never change once made, so that a state is
// hashed in time proportional to what changed, not to its history:
//   - objects: the server never changes a stored object in place (a write
//     stores a new one, which its event carries) and user code that
//     changes a lent one fails the run as a cache mutation, so an object's
//     hash is kept by its address. Objects read through State (goals,
//     invariants, actors) are not lent: code that breaks State's rule and
//     modifies one would leave a stale hash here, undetected;
//   - the server's history only grows at its end, or is compacted by
//     dropping its start: the hash of the events up to the last one hashed
//     is kept, and extended while the history still starts with the same
//     event.
//
// TestFingerprintCacheAgrees checks the cached hash against a fresh one
// at every step of random runs.
type fingerprintCache struct {
	objects map[*Object]uint64
	// first is the object of the history's first event when it was last
	// hashed, n how many events were hashed, hist their hash.
	first *Object
	n     int
	hist  uint64
}

// history writes the server's history: its length and the hash of its
// events, extended from the kept one when the history is the one last
// hashed with events appended.
func (f *fp) history(events []Event) {
	f.int(int64(len(events)))
	c := f.cache
	if len(events) == 0 {
		f.uint(0)
		return
	}
	if c.first != events[0].Object || c.n > len(events) {
		c.first, c.n, c.hist = events[0].Object, 0, fnvOffset
	}
	ev := fp{v: c.hist, cache: f.cache}
	for _, e := range events[c.n:] {
		ev.event(e)
	}
	c.hist = ev.v
	c.n = len(events)
	f.uint(c.hist)
}

// FNV-1a's 64-bit offset basis and prime.
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// runningHash is 64-bit FNV-1a resumed from a saved value: the hash a
// Fingerprinter writes to.
type runningHash struct{ v uint64 }

func (r *runningHash) Write(p []byte) (int, error) {
	for _, b := range p {
		r.v ^= uint64(b)
		r.v *= fnvPrime
	}
	return len(p), nil
}

func (r *runningHash) Sum(b []byte) []byte {
	return binary.BigEndian.AppendUint64(b, r.v)
}
func (r *runningHash) Reset()         { r.v = fnvOffset }
func (r *runningHash) Size() int      { return 8 }
func (r *runningHash) BlockSize() int { return 1 }
func (r *runningHash) Sum64() uint64  { return r.v }

// mixK is the odd constant fp mixes each word with (wyhash's first).
const mixK = 0xa0761d6478bd642f

// uint writes a word: the running hash and the word are multiplied into
// 128 bits, whose halves are folded, one multiplication a word where
// FNV-1a took one a byte (docs/design.md, "Bounded exhaustive
// exploration": fingerprinting cost).
func (f *fp) uint(v uint64) {
	hi, lo := bits.Mul64(f.v^v, mixK)
	f.v = hi ^ lo
}

func (f *fp) int(v int64) { f.uint(uint64(v)) }

func (f *fp) bool(v bool) {
	if v {
		f.uint(1)
	} else {
		f.uint(0)
	}
}

// str writes a string: its length, then its bytes eight at a time, the
// last word padded with zeros.
func (f *fp) str(s string) {
	f.uint(uint64(len(s)))
	for ; len(s) >= 8; s = s[8:] {
		f.uint(uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
			uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56)
	}
	if len(s) > 0 {
		var w uint64
		for i := range len(s) {
			w |= uint64(s[i]) << (8 * i)
		}
		f.uint(w)
	}
}

// value writes a field value: the types Fields hold, anything else by
// its printed form.
func (f *fp) value(v any) {
	switch v := v.(type) {
	case nil:
		f.uint(0)
	case int64:
		f.uint(1)
		f.int(v)
	case int:
		f.uint(1)
		f.int(int64(v))
	case string:
		f.uint(2)
		f.str(v)
	case bool:
		f.uint(3)
		f.bool(v)
	case float64:
		f.uint(4)
		f.uint(math.Float64bits(v))
	default:
		f.uint(5)
		f.str(fmt.Sprintf("%T %v", v, v))
	}
}

func (f *fp) fields(x Fields) {
	f.int(int64(len(x.kv)))
	for _, e := range x.kv {
		f.str(e.path)
		f.value(e.value)
	}
}

// object writes every part of an object a reader can see; nil is its own
// value.
func (f *fp) object(o *Object) {
	if o == nil {
		f.uint(math.MaxUint64)
		return
	}
	if f.loop != nil {
		// Relative to the state it is in: not the cached hash.
		of := fp{v: fnvOffset, loop: f.loop}
		of.objectFields(o)
		f.uint(of.v)
		return
	}
	h, ok := f.cache.objects[o]
	if !ok {
		of := fp{v: fnvOffset}
		of.objectFields(o)
		h = of.v
		f.cache.objects[o] = h
	}
	f.uint(h)
}

// objectFields writes every part of an object a reader can see.
func (f *fp) objectFields(o *Object) {
	f.str(o.Kind)
	f.str(o.Namespace)
	f.str(o.Name)
	f.str(o.GenerateName)
	f.uid(o.UID)
	f.rv(o.ResourceVersion)
	f.int(o.Generation)
	f.at(o.CreationTimestamp)
	if o.DeletionTimestamp != nil {
		f.bool(true)
		f.at(*o.DeletionTimestamp)
	} else {
		f.bool(false)
	}
	f.int(int64(len(o.Finalizers)))
	for _, s := range o.Finalizers {
		f.str(s)
	}
	f.int(int64(o.Labels.Len()))
	for k, v := range o.Labels.All() { // in key order
		f.str(k)
		f.str(v)
	}
	f.int(int64(len(o.OwnerReferences)))
	for _, r := range o.OwnerReferences {
		f.str(r.Kind)
		f.str(r.Name)
		f.uid(r.UID)
		f.bool(r.Controller)
		f.bool(r.BlockOwnerDeletion)
	}
	f.fields(o.Spec)
	f.fields(o.Status)
}

func (f *fp) event(e Event) {
	f.int(int64(e.Type))
	f.at(e.At)
	f.object(e.Object)
	// The replaced state decides the server's past views (a time travel).
	f.object(e.Old)
}

// hook writes a component's memory through its Fingerprinter, if any.
func (f *fp) hook(v any) {
	if m, ok := v.(Fingerprinter); ok {
		f.bool(true)
		h := &runningHash{v: f.v}
		m.Fingerprint(h)
		f.v = h.v
	} else {
		f.bool(false)
	}
}

func (f *fp) controller(ctl *controller) {
	now := ctl.c.clock.Now()
	f.str(ctl.spec.Name)
	f.bool(ctl.up)
	f.bool(ctl.partitioned())
	f.int(int64(len(ctl.failures)))
	for _, a := range ctl.failures {
		f.bool(a.later != nil)
		if a.later != nil {
			f.str(a.name)
			continue
		}
		f.str(string(a.err.Reason))
		f.str(a.err.Message)
		f.int(int64(a.err.RetryAfter))
		f.bool(a.applied)
	}
	f.int(int64(ctl.crashAfterWrites))
	f.int(int64(ctl.crashDown))
	f.bool(ctl.crashLater != nil)
	if ctl.crashLater != nil {
		f.str(ctl.crashLaterName)
		f.bool(ctl.crashLaterDown)
	}
	f.bool(ctl.wait.reconciling)
	f.int(int64(ctl.wait.waited))
	f.bool(ctl.wait.crash)
	if q := ctl.queue; q != nil {
		f.bool(true)
		items := q.items[q.head:]
		f.int(int64(len(items)))
		for _, k := range items {
			f.str(k)
		}
		f.keys(q.dirty)
		f.keys(q.processing)
		fails := slices.Sorted(maps.Keys(q.failures))
		f.int(int64(len(fails)))
		for _, k := range fails {
			f.str(k)
			f.int(int64(q.failures[k]))
		}
		waiting := slices.Sorted(maps.Keys(q.waiting))
		f.int(int64(len(waiting)))
		for _, k := range waiting {
			f.str(k)
			f.int(int64(q.waiting[k].At - now))
		}
	} else {
		f.bool(false)
	}
	if ctl.rec != nil {
		f.hook(ctl.rec)
	} else {
		f.hook(ctl.handler)
	}
}

// keys writes the keys of a set whose value is true.
func (f *fp) keys(m map[string]bool) {
	var ks []string
	for k, v := range m {
		if v {
			ks = append(ks, k)
		}
	}
	slices.Sort(ks)
	f.int(int64(len(ks)))
	for _, k := range ks {
		f.str(k)
	}
}

func (f *fp) informer(inf *Informer) {
	now := inf.ctrl.c.clock.Now()
	f.str(inf.kind)
	f.int(int64(inf.cache.len()))
	inf.cache.keys.each(func(k objKey) bool {
		f.object(inf.cache.objs[k])
		return true
	})
	if f.loop == nil {
		f.uint(inf.lastRV)
	} else {
		f.since(inf)
	}
	f.bool(inf.broken)
	f.bool(inf.mustRelist)
	if w := inf.watch; w != nil {
		f.bool(true)
		f.bool(w.stopped)
		f.int(int64(len(w.pending)))
		for _, e := range w.pending {
			f.event(e)
		}
	} else {
		f.bool(false)
	}
	f.int(int64(len(inf.replay)))
	for _, k := range inf.replay {
		f.str(k.namespace)
		f.str(k.name)
	}
	f.int(int64(inf.drops))
	f.int(int64(inf.dupes))
	f.int(int64(len(inf.delays)))
	for _, d := range inf.delays {
		f.bool(d.later != nil)
		if d.later != nil {
			f.str(d.name)
		} else {
			f.int(int64(d.d))
		}
	}
	f.int(int64(len(inf.held)))
	for _, hb := range inf.held {
		f.event(hb.event)
		f.bool(hb.ready)
		if hb.timer != nil {
			f.int(int64(hb.timer.At - now))
		}
	}
	f.object(inf.prev)
	f.uint(inf.lag)
	f.bool(inf.travel)
	f.rv(inf.travelSeen)
	f.rv(inf.travelTo)
}

// StatelessFunc is a ReconcilerFunc that declares it keeps no memory
// between reconciles: its fingerprint (Fingerprinter) is empty, so bounded
// exploration does not name it as unfingerprinted.
type StatelessFunc func(req Request) (Result, error)

// Reconcile calls f.
func (f StatelessFunc) Reconcile(req Request) (Result, error) { return f(req) }

// Fingerprint writes nothing: f keeps no memory.
func (StatelessFunc) Fingerprint(hash.Hash64) {}
