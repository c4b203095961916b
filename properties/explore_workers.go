package properties

import (
	"math"
	"sync"
	"sync/atomic"

	"github.com/converge-sim/converge/faults"
)

// trees explores the fault trees of a depth, in the order of scheds, and
// returns the counterexample of the first that fails, or the error of the
// first that cannot be explored. With workers, several are explored side
// by side, each by a worker's explorer that prunes against the cache as
// the depth's fault trees found it and against its own states; their
// states and counts join the cache in the order of scheds, up to the
// first tree that fails.
//
// Which counterexample is found is the same either way. A tree's search
// is depth first, in the order of its decisions' values, so the first
// failing path it meets is the first in that order that is not pruned,
// and a path is pruned only for a state whose subtree was explored
// without a failure: the first failing path in that order is never
// pruned, whatever else the cache holds. And the tree before which every
// tree passed is the same tree.
func (e *explorer) trees(scheds []faults.Schedule, d int) (*Counterexample, error) {
	if e.workers <= 1 || len(scheds) <= 1 {
		for _, sched := range scheds {
			if cx, err := e.tree(sched, d, false); cx != nil || err != nil {
				return cx, err
			}
		}
		return nil, nil
	}
	type outcome struct {
		w   *explorer
		cx  *Counterexample
		err error
	}
	outs := make([]outcome, len(scheds))
	// failed is the index of the first tree known to have failed; next
	// the next tree to explore.
	var failed, next atomic.Int64
	failed.Store(math.MaxInt64)
	// panicked holds what a worker panicked with, re-raised here.
	var panicked atomic.Pointer[any]
	var recorded atomic.Int64
	var wg sync.WaitGroup
	for range min(e.workers, len(scheds)) {
		wg.Go(func() {
			defer func() {
				if v := recover(); v != nil {
					panicked.CompareAndSwap(nil, &v)
					failed.Store(-1)
				}
			}()
			for {
				i := next.Add(1) - 1
				if i >= int64(len(scheds)) || i > failed.Load() {
					return
				}
				w := e.worker(&recorded, func() bool { return failed.Load() < i })
				cx, err := w.tree(scheds[i], d, false)
				outs[i] = outcome{w, cx, err}
				if cx != nil || err != nil {
					for f := failed.Load(); i < f && !failed.CompareAndSwap(f, i); f = failed.Load() {
					}
				}
			}
		})
	}
	wg.Wait()
	if v := panicked.Load(); v != nil {
		panic(*v)
	}
	for _, o := range outs {
		e.merge(o.w)
		if o.cx != nil || o.err != nil {
			return o.cx, o.err
		}
	}
	return nil, nil
}

// worker returns an explorer for one fault tree beside others: it reads
// e's cache, records in its own, counting what it records in recorded
// with the other workers', and counts its own work.
func (e *explorer) worker(recorded *atomic.Int64, cancelled func() bool) *explorer {
	w := *e
	w.base, w.baseSleepSets, w.beside = e.seen, e.sleepSets, recorded
	w.seen, w.sleepSets = map[uint64]seenState{}, nil
	w.executions, w.steps, w.completionSteps, w.pruned, w.full = 0, 0, 0, 0, false
	w.cancelled = cancelled
	return &w
}

// merge adds what a worker explored to e: its counts, and the states it
// recorded that e's cache does not already cover.
func (e *explorer) merge(w *explorer) {
	e.executions += w.executions
	e.steps += w.steps
	e.completionSteps += w.completionSteps
	e.pruned += w.pruned
	e.full = e.full || w.full
	for key, s := range w.seen {
		asleep := sleepSet(s, w.sleepSets)
		if old, ok := e.seen[key]; ok && covers(old, sleepSet(old, e.sleepSets), int(s.left), int(s.devLeft), asleep) {
			continue
		}
		e.record(key, int(s.left), int(s.devLeft), asleep)
	}
}
