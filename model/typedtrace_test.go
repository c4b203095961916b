package model

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTheTraceCarriesItsMeaningAsData: each record says what made it (the
// action kind, the timer, the informer, the fault) and its notes say what
// happened (a failed call, an injected failure, what the reconcile
// returned) as fields, and still print as the trace always has.
func TestTheTraceCarriesItsMeaningAsData(t *testing.T) {
	c := NewCluster(Config{})
	calls := 0
	require.NoError(t, c.AddController(Controller{
		Name: "ctl", For: "Pod",
		NewReconciler: func(cl Client) Reconciler {
			return ReconcilerFunc(func(req Request) (Result, error) {
				calls++
				p, err := cl.Get("Pod", req.Namespace, req.Name)
				if err != nil {
					return Result{}, err
				}
				p.Spec.Set("n", int64(calls))
				if err := cl.Update(p); err != nil {
					return Result{}, err
				}
				return Result{RequeueAfter: 5}, nil
			})
		},
	}))
	require.NoError(t, c.Apply(pod("a")))
	require.NoError(t, c.Start())
	c.At(1, "fault", "#3 lag", func() {
		c.Faults().Mark(3)
		require.NoError(t, c.Faults().Lag("ctl", "Pod", 1, 2))
	})
	require.NoError(t, c.Faults().FailWrites("ctl", &StatusError{Reason: ReasonConflict, Message: "stale"}, 1, false))
	// next does the first enabled action and returns its record.
	next := func() *Record {
		acts := c.Enabled(nil)
		require.NotEmpty(t, acts)
		c.Do(acts[0])
		return &c.Trace().Records[len(c.Trace().Records)-1]
	}
	pa := Ref{Kind: "Pod", Namespace: "default", Name: "a"}

	r := next()
	assert.Equal(t, ActReconcile, r.Kind)
	if assert.Len(t, r.Notes, 3) {
		assert.Equal(t, Note{Kind: NoteInjected, Call: &Call{Verb: VerbUpdate, Object: pa, Reason: ReasonConflict, Injected: true}}, r.Notes[0])
		assert.Equal(t, Note{Kind: NoteFailed, Call: &Call{Verb: VerbUpdate, Object: pa, Reason: ReasonConflict, Err: "Conflict: stale", Injected: true}}, r.Notes[1])
		assert.Equal(t, Note{Kind: NoteError, Text: "Conflict: stale"}, r.Notes[2])
	}
	assert.Equal(t, "#3 t=0 ctl reconcile Pod default/a [update Pod default/a failed: Conflict (fault)] [update Pod default/a failed: Conflict: stale] [error: Conflict: stale]", r.String())

	r = next()
	assert.Equal(t, ActTimer, r.Kind)
	assert.Equal(t, TimerScheduled, r.Timer)
	assert.Equal(t, 3, r.Fault)
	assert.Equal(t, "#4 t=1 fault #3 lag [armed]", r.String())

	r = next()
	assert.Equal(t, ActTimer, r.Kind)
	assert.Zero(t, r.Timer, "a delayed requeue's timer starts no step of its own")
	assert.Equal(t, "#5 t=1 clock timer requeue ctl default/a", r.String())

	r = next()
	assert.Equal(t, ActReconcile, r.Kind)
	assert.Equal(t, []Note{{Kind: NoteRequeueAfter, N: 5}}, r.Notes)
	assert.Contains(t, r.String(), "[requeue after 5]")

	r = next()
	assert.Equal(t, ActTimer, r.Kind)
	assert.Equal(t, TimerLagEnds, r.Timer)
	assert.Equal(t, "Pod", r.Informer)
	assert.Equal(t, "#7 t=3 ctl lag ends Pod", r.String())

	r = next()
	assert.Equal(t, ActDeliver, r.Kind)
	assert.Equal(t, "Pod", r.Informer)
	assert.False(t, r.Replay)
	assert.Equal(t, "#8 t=3 ctl watch Modified Pod default/a@2", r.String())
}

// TestANoteRendersItsFields: the words of a typed note come from its
// fields alone.
func TestANoteRendersItsFields(t *testing.T) {
	pod := Ref{Kind: "Pod", Namespace: "default", Name: "web-1"}
	for want, n := range map[string]Note{
		"evict Pod default/web-1 failed: TooManyRequests: budget":        {Kind: NoteFailed, Call: &Call{Verb: VerbEvict, Object: pod, Reason: ReasonTooManyReqs, Err: "TooManyRequests: budget"}},
		"read Pod default/web-1 failed: ServiceUnavailable: cut":         {Kind: NoteFailed, Call: &Call{Object: pod, Err: "ServiceUnavailable: cut"}},
		"read Pod list failed: ServiceUnavailable: cut":                  {Kind: NoteFailed, Call: &Call{Object: Ref{Kind: "Pod"}, List: true, Err: "ServiceUnavailable: cut"}},
		"update Pod default/web-1 applied, then failed: Timeout (fault)": {Kind: NoteInjected, Call: &Call{Verb: VerbUpdate, Object: pod, Reason: ReasonTimeout, Injected: true, Applied: true}},
		"panic: boom":                  {Kind: NotePanic, Text: "boom"},
		"requeue":                      {Kind: NoteRequeue},
		"notification dropped (fault)": {Kind: NoteDropped},
		"held back (fault)":            {Kind: NoteHeld},
		"expired: relisted 3":          {Kind: NoteExpired, N: 3},
		"armed 2":                      {Text: "armed 2"},
	} {
		assert.Equal(t, want, n.String())
	}
}
