package properties

import (
	"strings"
	"testing"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
	"github.com/stretchr/testify/assert"
)

// The diagnosis reads a record's fields and its notes' kinds, never its
// words: these tests hand it records whose words read like a failure, an
// error, a requeue or a fault with no fields behind them, and records whose
// fields say so. Were the diagnosis to match words again, rewording a note
// would silently weaken it; here the records in words would be diagnosed.

var web = model.Ref{Kind: "ReplicaSet", Namespace: "default", Name: "web"}

// traceOf returns a cluster whose trace is recs.
func traceOf(recs ...model.Record) *model.Cluster {
	c := model.NewCluster(model.Config{})
	c.Trace().Records = recs
	return c
}

func reconcileOf(notes ...model.Note) model.Record {
	return model.Record{Step: 7, Time: 30, Actor: "rs", Kind: model.ActReconcile, Target: web, Notes: notes}
}

// inWords is what a conflict a fault injected and the error returned
// after it look like as words alone.
var inWords = reconcileOf(
	model.Note{Text: "update ReplicaSet default/web failed: Conflict (fault)"},
	model.Note{Text: "update ReplicaSet default/web failed: Conflict: the object has been modified"},
	model.Note{Text: "error: Conflict: the object has been modified"},
	model.Note{Text: "requeue after 5"},
	model.Note{Text: "panic: boom"},
)

func TestTheDiagnosisOfAConflictWorksFromTypedFailures(t *testing.T) {
	const msg = "Conflict: the object has been modified (injected)"
	typed := reconcileOf(
		model.Note{Kind: model.NoteInjected, Call: &model.Call{Verb: model.VerbUpdate, Object: web, Reason: model.ReasonConflict, Injected: true}},
		model.Note{Kind: model.NoteFailed, Call: &model.Call{Verb: model.VerbUpdate, Object: web, Reason: model.ReasonConflict, Err: msg, Injected: true}},
		model.Note{Kind: model.NoteFailed, Call: &model.Call{Verb: model.VerbEvict, Object: web, Reason: model.ReasonTooManyReqs, Err: "TooManyRequests: budget"}},
		model.Note{Kind: model.NoteError, Text: msg},
	)
	// The injected conflict is told once, as the fault's note; the
	// refused eviction as the call's.
	assert.Equal(t, "update ReplicaSet default/web failed: Conflict (fault); evict ReplicaSet default/web failed: TooManyRequests: budget; returned error: "+msg, reconcileStory(&typed))
	assert.Equal(t, "its last reconcile (t=30, step 7) failed: update ReplicaSet default/web failed: Conflict (fault)", lastFailure(traceOf(typed), "rs", web))
	assert.Equal(t, "its last reconcile (t=30, step 7) returned error: "+msg, lastReturned(traceOf(typed), "rs", web))
	assert.Contains(t, strings.Join(diagnoseSlow(traceOf(typed), 30), "\n"), "rs default/web: 1 reconciles returned an error")

	assert.Equal(t, "returned nil, and nothing requeued it", reconcileStory(&inWords))
	assert.Empty(t, lastFailure(traceOf(inWords), "rs", web))
	assert.Empty(t, diagnoseSlow(traceOf(inWords), 30))
}

func TestTheDiagnosisReadsWhatAReconcileReturnedFromItsNotes(t *testing.T) {
	for want, n := range map[string]model.Note{
		"returned RequeueAfter 5": {Kind: model.NoteRequeueAfter, N: 5},
		"returned Requeue":        {Kind: model.NoteRequeue},
		"panicked":                {Kind: model.NotePanic, Text: "boom"},
	} {
		r := reconcileOf(n)
		assert.Equal(t, want, reconcileResult(&r))
	}
}

func TestTheFaultHistoryFindsAFaultByItsNumber(t *testing.T) {
	sched := faults.Schedule{{At: 10, Fault: faults.Drop{Controller: "rs", Resource: "Pod"}}}
	struck := model.Record{Step: 3, Time: 10, Actor: "fault", Kind: model.ActTimer, Timer: model.TimerScheduled, Fault: 1}
	assert.Equal(t, []string{"fault at t=10 (step 3): " + sched[0].Fault.String()}, faultHistory(traceOf(struck), sched, "rs"))

	// A fault's step without its number is no fault's step.
	words := model.Record{Step: 3, Time: 10, Actor: "fault", Kind: model.ActTimer, Timer: model.TimerScheduled}
	assert.Equal(t, []string{"fault scheduled at t=10 never struck (quiescence began first): " + sched[0].Fault.String()}, faultHistory(traceOf(words), sched, "rs"))
}

func TestTheResyncRepairIsAReplayByItsFields(t *testing.T) {
	replay := model.Record{Step: 9, Time: 80, Actor: "rs", Kind: model.ActDeliver, Replay: true, Target: web}
	wrote := reconcileOf()
	wrote.Step, wrote.Writes = 10, []model.Write{{Caller: "rs", Verb: model.VerbUpdate, Old: &model.Object{Kind: "ReplicaSet", Namespace: "default", Name: "web"}, New: &model.Object{Kind: "ReplicaSet", Namespace: "default", Name: "web", ResourceVersion: 4}}}
	lines := resyncRepair([]model.Record{replay, wrote}, "rs", web.Key(), 0)
	if assert.Len(t, lines, 2) {
		assert.Contains(t, lines[0], "the resync at t=80 (step 9) replayed ReplicaSet default/web")
		assert.Contains(t, lines[1], "then rs reconciled default/web at t=30 (step 10)")
	}
	// A delivery that is no replay repairs nothing.
	delivered := replay
	delivered.Replay = false
	assert.Len(t, resyncRepair([]model.Record{delivered, wrote}, "rs", web.Key(), 0), 1)
}
