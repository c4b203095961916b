package model

import (
	"maps"
	"slices"
)

// FreshFingerprint is Fingerprint computed without the cluster's cache of
// object and history hashes, for tests that check the cache.
func FreshFingerprint(c *Cluster) uint64 {
	saved := c.fpCache
	c.fpCache = &fingerprintCache{objects: map[*Object]uint64{}}
	defer func() { c.fpCache = saved }()
	return c.Fingerprint()
}

// copySet, copyIndex and copyStore copy a store's containers for
// CopyContainers; the objects, immutable, are shared.
func copySet[E keyed](s orderedSet[E]) orderedSet[E] {
	out := orderedSet[E]{n: s.n, chunks: make([][]E, len(s.chunks))}
	for i, c := range s.chunks {
		out.chunks[i] = slices.Clone(c)
	}
	return out
}

func copyIndex(ix index) index {
	if ix == nil {
		return nil
	}
	out := make(index, len(ix))
	for k, v := range ix {
		s := copySet(*v)
		out[k] = &s
	}
	return out
}

func copyStore(s *objectStore) *objectStore {
	return &objectStore{objs: maps.Clone(s.objs), keys: copySet(s.keys), byLabel: copyIndex(s.byLabel), byOwner: copyIndex(s.byOwner)}
}

// CopyContainers copies the cluster's mutable containers: the server's
// stores, UIDs, history, streams and garbage-collection queue, each
// informer's cache and held events, each queue and the timers. It is what
// a snapshot of the cluster would have to copy at the least (controllers'
// runtime state, actors, the runner, monitors and controllers' memory
// left out), measured by BenchmarkSnapshotCopy.
func CopyContainers(c *Cluster) any {
	s := *c.server
	s.kinds = make(map[string]*objectStore, len(c.server.kinds))
	for k, st := range c.server.kinds {
		s.kinds[k] = copyStore(st)
	}
	s.uids = maps.Clone(c.server.uids)
	s.history = slices.Clone(c.server.history)
	s.watches = nil
	for _, w := range c.server.watches {
		ww := *w
		ww.pending = slices.Clone(w.pending)
		s.watches = append(s.watches, &ww)
	}
	s.gcSet = maps.Clone(c.server.gcSet)
	s.gcQueue = slices.Clone(c.server.gcQueue)
	var infs []*Informer
	for _, inf := range c.informers {
		i := *inf
		i.cache = copyStore(inf.cache)
		i.held = slices.Clone(inf.held)
		i.delays = slices.Clone(inf.delays)
		infs = append(infs, &i)
	}
	var qs []*Queue
	for _, ctl := range c.ctrls {
		q := *ctl.queue
		q.items = slices.Clone(q.items)
		q.dirty = maps.Clone(q.dirty)
		q.processing = maps.Clone(q.processing)
		q.failures = maps.Clone(q.failures)
		q.waiting = maps.Clone(q.waiting)
		qs = append(qs, &q)
	}
	cl := c.clock
	cl.timers = slices.Clone(cl.timers)
	return []any{&s, infs, qs, cl}
}
