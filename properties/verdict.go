package properties

import (
	"fmt"
	"strings"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
)

// Verdict names how a run failed.
type Verdict string

// The verdicts. Each has its own failure site in the property, so that rapid
// shrinks a failure only to smaller failures of the same verdict (docs/design.md,
// trap 5).
const (
	// GoalUnmet: the cluster reached a fixed point where a goal does not
	// hold — it is stable, and wrong.
	GoalUnmet Verdict = "goal-unmet"
	// NoFixedPoint: after quiescence the cluster kept writing, or was still
	// busy at the step bound (a hot loop, a livelock).
	NoFixedPoint Verdict = "no-fixed-point"
	// InvariantBroken: an invariant failed after some step.
	InvariantBroken Verdict = "invariant"
	// ControllerPanic: user code (a controller, handler, actor or mapping)
	// panicked.
	ControllerPanic Verdict = "panic"
	// Fight: after quiescence a field kept changing hands between writers
	// with different goals (a persistent rival, two controllers owning one
	// field).
	Fight Verdict = "fight"
	// HotLoop: after quiescence the cluster settles, yet every quiet round
	// a controller writes again (a status timestamp, a counter).
	HotLoop Verdict = "hot-loop"
	// NotIdempotent: reconciling a key twice with nothing in between wrote
	// the second time too (Scenario.CheckIdempotence).
	NotIdempotent Verdict = "not-idempotent"
	// CacheMutation: a controller modified an object it read from its
	// cache without copying it.
	CacheMutation Verdict = "cache-mutation"
	// LostUpdate: a write without a resourceVersion precondition put back
	// a value another writer had changed.
	LostUpdate Verdict = "lost-update"
	// Hang: a run did not finish within its time limit (RunOptions.Timeout,
	// Scenario.RunTimeout): user code loops or blocks.
	Hang Verdict = "hang"
	// GoroutineLeak: goroutines started during a run were still running
	// after it.
	GoroutineLeak Verdict = "goroutine-leak"
	// ResyncDependent: after faithful faults only, the goal was reached
	// only when a resync replayed the cache: in production the controller
	// waits for the next resync, 10 hours by default in controller-runtime.
	ResyncDependent Verdict = "resync-dependent"
	// SlowConvergence: the cluster converged, but later after the last
	// disturbance than Scenario.ConvergeWithin allows.
	SlowConvergence Verdict = "slow-convergence"
	// HistoryDependent: after state transitions of Scenario.Inputs the
	// cluster converged, but not to the state a fresh cluster reaches when
	// the final spec is applied directly (the goal-free differential
	// oracle).
	HistoryDependent Verdict = "history-dependent"
)

func knownVerdict(v Verdict) bool {
	switch v {
	case GoalUnmet, NoFixedPoint, InvariantBroken, ControllerPanic, Fight, HotLoop, NotIdempotent, CacheMutation, LostUpdate, Hang, GoroutineLeak, ResyncDependent, SlowConvergence, RejectedWrites, HistoryDependent:
		return true
	}
	return false
}

// Failure is a violated property: which, how, where, and a diagnosis in
// words.
type Failure struct {
	// Property is the violated property: "converges", "no hot loop",
	// "no fight", "idempotence", "no cache mutation", "no lost update",
	// "invariant <name>", "no panic", "converges without resync" or
	// "converges within".
	Property string
	Verdict  Verdict
	// Summary says what went wrong in one line.
	Summary string
	// Details lists the specifics (each unmet goal, the panic's frames).
	Details []string
	// Diagnosis says, in words, how the run got there.
	Diagnosis []string
	// Writers are, for a fight, the writers of the contested field in the
	// order of their first write; empty for other verdicts.
	Writers []string
	// Inputs renders the transitions the run was given, for a scenario
	// with inputs; Report lists them after the fault schedule.
	Inputs []string
	Step   int
	At     model.Time
}

// Report renders the failure with the schedule that produced it. The text
// is a pure function of the run, the same on every replay.
func (f *Failure) Report(sched faults.Schedule) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s violated (%s) at step %d, t=%d: %s\n", f.Property, f.Verdict, f.Step, f.At, f.Summary)
	for _, d := range f.Details {
		b.WriteString("  " + d + "\n")
	}
	if len(f.Diagnosis) > 0 {
		b.WriteString("diagnosis:\n")
		for _, d := range f.Diagnosis {
			b.WriteString("  " + d + "\n")
		}
	}
	switch len(sched) {
	case 0:
		b.WriteString("fault schedule: none\n")
	case 1:
		b.WriteString("fault schedule (1 fault):\n")
	default:
		fmt.Fprintf(&b, "fault schedule (%d faults):\n", len(sched))
	}
	for _, l := range sched.Lines() {
		b.WriteString("  " + l + "\n")
	}
	for _, l := range f.Inputs {
		b.WriteString(l + "\n")
	}
	return b.String()
}

func (r *runner) failure(property string, v Verdict, summary string) *Failure {
	return &Failure{Property: property, Verdict: v, Summary: summary, Step: r.c.Steps(), At: r.c.Now()}
}

func (r *runner) goalUnmet(unmet []model.GoalUnmet) *Failure {
	f := r.failure("converges", GoalUnmet, "the cluster is at a fixed point but a goal is unmet")
	for _, u := range unmet {
		f.Details = append(f.Details, fmt.Sprintf("%s %s (goal of %s)", u.Object, u.Message, u.Controller))
	}
	f.Diagnosis = diagnoseUnmet(r.c, r.sched, unmet)
	return f
}

func (r *runner) noFixedPoint(summary string) *Failure {
	f := r.failure("converges", NoFixedPoint, summary)
	f.Diagnosis = diagnoseBusy(r.c, r.quietFrom)
	return f
}

func (r *runner) hotLoop(summary string) *Failure {
	f := r.failure("no hot loop", HotLoop, summary)
	f.Details = rewrites(r.c, r.quietFrom)
	f.Diagnosis = diagnoseBusy(r.c, r.quietFrom)
	return f
}

func (r *runner) notIdempotent(controller, key string, first, second *model.Record) *Failure {
	f := r.failure("idempotence", NotIdempotent, fmt.Sprintf("%s reconciled %s twice with nothing in between, and the second reconcile wrote too", controller, key))
	f.Details = []string{"first: " + first.String(), "second: " + second.String()}
	return f
}

func (r *runner) cacheMutated(m *model.CacheMutation) *Failure {
	f := r.failure("no cache mutation", CacheMutation, fmt.Sprintf("%s modified %s in its informer cache without copying it", m.Controller, m.Object))
	for _, ch := range m.Changes {
		f.Details = append(f.Details, ch.String())
	}
	f.Diagnosis = append(diagnoseStep(r.c), "objects from Peek and PeekList are the cache's own: DeepCopy before changing them")
	return f
}

func (r *runner) updateLost(l *model.LostUpdate) *Failure {
	f := r.failure("no lost update", LostUpdate, fmt.Sprintf("%s overwrote %s's change to %s of %s", l.Writer, l.LostWriter, l.Path, l.Object))
	f.Details = []string{
		fmt.Sprintf("%s read version %d, where %s was %s", l.Writer, l.BaseRV, l.Path, model.FormatValue(l.Restored)),
		fmt.Sprintf("%s then set it to %s (version %d)", l.LostWriter, model.FormatValue(l.Lost), l.StoredRV),
		fmt.Sprintf("%s wrote without a resourceVersion, putting back %s", l.Writer, model.FormatValue(l.Restored)),
	}
	f.Diagnosis = append(diagnoseStep(r.c), "an update that carries the resourceVersion it read fails with Conflict instead, and can be retried")
	return f
}

func (r *runner) invariantBroken(inv Invariant, err error) *Failure {
	f := r.failure("invariant "+inv.Name, InvariantBroken, err.Error())
	f.Diagnosis = diagnoseStep(r.c)
	return f
}

func (r *runner) panicked(p *model.Panic) *Failure {
	f := r.failure("no panic", ControllerPanic, p.String())
	const frames = 8
	for i, s := range p.Stack {
		if i == frames {
			f.Details = append(f.Details, fmt.Sprintf("… %d more frames", len(p.Stack)-frames))
			break
		}
		f.Details = append(f.Details, s)
	}
	f.Diagnosis = diagnoseStep(r.c)
	return f
}
