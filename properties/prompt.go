package properties

import (
	"fmt"
	"slices"
	"strings"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
)

// Prompt convergence (docs/design.md, section "Prompt convergence"): under
// faithful faults a controller must reach its goal without a resync, and
// the time it takes after the last disturbance is measured.

// checksPromptness reports whether the run must converge without resync:
// its schedule holds faithful faults only and some controller resyncs.
func (r *runner) checksPromptness() bool {
	if r.sched.Class() != faults.Faithful {
		return false
	}
	for _, name := range r.controllers {
		if spec, _ := r.c.Spec(name); spec.ResyncPeriod > 0 {
			return true
		}
	}
	return false
}

// observeWrite times the writes: a controller's or the garbage collector's
// is the cluster converging, anyone else's (an actor, a fault) disturbs it.
func (r *runner) observeWrite(w model.Write) {
	if w.Caller == model.GarbageCollector || slices.Contains(r.controllers, w.Caller) {
		r.settledAt = r.c.Now()
		if w.Caller != model.GarbageCollector {
			r.controllerWrites++
		}
		return
	}
	r.disturbedAt = r.c.Now()
}

// convergeTime is the virtual time from the heal, or from a later outside
// write (a world event set on the clock), to the controllers' last write:
// zero when they were done before it. It is measured from the heal, not
// from each fault, because during the fault phase the search, not the
// controller, decides how soon queued work runs; from the heal on, the
// scheduler is fair and every fault and outside actor has stopped.
func (r *runner) convergeTime() model.Time {
	return max(0, r.settledAt-max(r.healedAt, r.disturbedAt))
}

func (r *runner) resyncDependent(unmet []model.GoalUnmet) *Failure {
	f := r.failure("converges without resync", ResyncDependent, "after faithful faults only, the goal was reached only when a resync replayed the cache")
	for _, u := range unmet {
		f.Details = append(f.Details, fmt.Sprintf("without resync: %s %s (goal of %s)", u.Object, u.Message, u.Controller))
	}
	f.Diagnosis = diagnoseResync(r.c, r.sched, r.resyncFrom, unmet)
	return f
}

// noteRepair keeps the first reconcile of the fault phase that only a
// resync brought about and that wrote, after the key's reconcile before it
// swallowed a failed write (model.Cluster.RepairedByResync), in a run that
// checks promptness: the resync made the retry the controller swallowed.
// The fault phase lasts two resync periods by default, so a swallowed
// Conflict there is mostly retried by a resync before the heal, where
// the check with resync held begins, and the run looked prompt (docs/design.md,
// "Prompt convergence": a resync in the fault phase).
func (r *runner) noteRepair(a model.Action) {
	if a.Kind != model.ActReconcile || r.repaired != nil {
		return
	}
	if ctl, key, swallowed, ok := r.c.RepairedByResync(); ok && r.checksPromptness() {
		r.repaired = &resyncRepaired{controller: ctl, key: key, step: r.c.Steps(), swallowed: swallowed, at: r.c.Now()}
	}
}

// repairedByResync is the resync-dependent failure of a run whose goals
// held at the heal only because a resync of the fault phase retried what
// a reconcile swallowed (noteRepair).
func (r *runner) repairedByResync() *Failure {
	p := r.repaired
	f := r.failure("converges without resync", ResyncDependent, "after faithful faults only, a write that failed was retried only when a resync replayed the cache")
	f.Details = []string{fmt.Sprintf("in the fault phase, only a resync brought %s back to %s (t=%d, step %d), and it wrote what the reconcile before it (step %d) had failed to write and swallowed", p.controller, p.key, p.at, p.step, p.swallowed)}
	ns, name := model.SplitKey(p.key)
	ref := model.Ref{Namespace: ns, Name: name}
	if spec, ok := r.c.Spec(p.controller); ok {
		ref.Kind = spec.For
	}
	f.Diagnosis = diagnoseResync(r.c, r.sched, p.swallowed+1, []model.GoalUnmet{{Controller: p.controller, Unmet: model.Unmet{Object: ref}}})
	return f
}

func (r *runner) slowConvergence(took model.Time) *Failure {
	f := r.failure("converges within", SlowConvergence, fmt.Sprintf("the cluster took %d ticks to converge after it healed or last changed from outside, more than ConvergeWithin (%d)", took, r.sc.ConvergeWithin))
	f.Details = []string{
		fmt.Sprintf("healed at t=%d: every fault over, outside actors stopped; the last outside write was at t=%d", r.healedAt, r.disturbedAt),
		fmt.Sprintf("last write of a controller: t=%d", r.settledAt),
	}
	f.Diagnosis = diagnoseSlow(r.c, r.settledAt)
	return f
}

// diagnoseResync tells what the resync replayed and what the controller
// failed to do before it: its last reconcile of the object before the
// resync, what that reconcile ran into and returned, and that nothing
// requeued it.
func diagnoseResync(c *model.Cluster, sched faults.Schedule, resyncFrom int, unmet []model.GoalUnmet) []string {
	recs := c.Trace().Records
	var out []string
	seen := map[string]bool{}
	for _, u := range unmet {
		key := u.Object.Key()
		if seen[u.Controller+" "+key] {
			continue
		}
		seen[u.Controller+" "+key] = true
		if line := lastReconcileBefore(recs, u.Controller, key, resyncFrom); line != "" {
			out = append(out, line)
		} else if len(recs) > 0 {
			out = append(out, fmt.Sprintf("%s did not reconcile %s after the faults", u.Controller, key))
		}
		out = append(out, resyncRepair(recs, u.Controller, key, resyncFrom)...)
		out = append(out, faultHistory(c, sched, u.Controller)...)
	}
	return append(out, "controller-runtime's default SyncPeriod is 10 hours: until that resync the goal stays unmet; return the error, or Requeue or RequeueAfter, so that the work queue retries")
}

// lastReconcileBefore says what the controller's last reconcile of key
// before step ran into and returned.
func lastReconcileBefore(recs []model.Record, controller, key string, step int) string {
	for i := len(recs) - 1; i >= 0; i-- {
		r := &recs[i]
		if r.Step >= step || r.Actor != controller || r.Kind != model.ActReconcile || r.Target.Key() != key {
			continue
		}
		return fmt.Sprintf("before the resync, %s last reconciled %s at t=%d (step %d): %s", controller, key, r.Time, r.Step, reconcileStory(r))
	}
	return ""
}

// reconcileStory renders what a reconcile ran into and returned, from its
// record: "update ReplicaSet default/web failed: Conflict; returned nil:
// nothing requeued it". A call a fault made fail is told once, as the
// fault's note.
func reconcileStory(r *model.Record) string {
	var failed []string
	for _, n := range r.Notes {
		if n.Kind == model.NoteInjected || n.Kind == model.NoteFailed && !n.Call.Injected {
			failed = append(failed, n.String())
		}
	}
	returned := reconcileResult(r)
	if len(failed) == 0 {
		return returned
	}
	if !reconcileFailed(r) {
		return fmt.Sprintf("%s (ignored by the reconciler); %s", strings.Join(failed, "; "), returned)
	}
	return fmt.Sprintf("%s; %s", strings.Join(failed, "; "), returned)
}

// reconcileResult says what a reconcile returned, from its record's notes.
func reconcileResult(r *model.Record) string {
	returned := "returned nil, and nothing requeued it"
	for _, n := range r.Notes {
		switch n.Kind {
		case model.NoteError:
			returned = "returned error: " + n.Text
		case model.NoteRequeueAfter:
			returned = fmt.Sprintf("returned RequeueAfter %d", n.N)
		case model.NoteRequeue:
			returned = "returned Requeue"
		case model.NotePanic:
			returned = "panicked"
		}
	}
	return returned
}

// resyncRepair finds the first replay of key by a resync after step, and
// the reconcile of key that then wrote.
func resyncRepair(recs []model.Record, controller, key string, step int) []string {
	var out []string
	for i := range recs {
		r := &recs[i]
		if r.Step < step || r.Actor != controller {
			continue
		}
		if r.Replay && r.Target.Key() == key && len(out) == 0 {
			out = append(out, fmt.Sprintf("the resync at t=%d (step %d) replayed %s from %s's cache, as an update with old == new", r.Time, r.Step, r.Target, controller))
		}
		if r.Kind == model.ActReconcile && r.Target.Key() == key && len(r.Writes) > 0 {
			return append(out, fmt.Sprintf("then %s reconciled %s at t=%d (step %d) and wrote: %s", controller, key, r.Time, r.Step, model.FormatWrite(r.Writes[0])))
		}
	}
	return out
}

// diagnoseSlow explains a slow convergence: the reconciles before the
// controllers' last write (at until) that returned an error, and the
// backoff they led to.
func diagnoseSlow(c *model.Cluster, until model.Time) []string {
	var out []string
	errs := map[string]int{}
	var order []string
	var last *model.Record
	for i, r := range c.Trace().Records {
		if r.Time > until || r.Kind != model.ActReconcile {
			continue
		}
		for _, n := range r.Notes {
			if n.Kind == model.NoteError {
				k := r.Actor + " " + r.Target.Key()
				if errs[k] == 0 {
					order = append(order, k)
				}
				errs[k]++
				last = &c.Trace().Records[i]
			}
		}
	}
	for _, k := range order {
		out = append(out, fmt.Sprintf("%s: %d reconciles returned an error, each retried later than the one before (the work queue backs off exponentially)", k, errs[k]))
	}
	if last != nil {
		out = append(out, fmt.Sprintf("the last of them at t=%d (step %d): %s", last.Time, last.Step, reconcileStory(last)))
		out = append(out, "a reconciler waiting on an outside condition should return RequeueAfter, not an error: controller-runtime's backoff grows to 1000 s")
	}
	return out
}
