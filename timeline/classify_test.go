package timeline

import (
	"testing"

	"github.com/converge-sim/converge/model"
	"github.com/stretchr/testify/assert"
)

func TestClassifyNote(t *testing.T) {
	call := func(reason model.Reason) *model.Call {
		return &model.Call{Verb: model.VerbUpdate, Object: model.Ref{Kind: "Pod", Namespace: "default", Name: "web-1"}, Reason: reason}
	}
	for _, c := range []struct {
		note model.Note
		want noteKind
	}{
		{model.Note{Kind: model.NoteError, Text: "Conflict: the object has been modified"}, noteError},
		{model.Note{Kind: model.NotePanic, Text: "runtime error"}, noteError},
		{model.Note{Kind: model.NoteFailed, Call: call(model.ReasonConflict)}, noteConflict},
		{model.Note{Kind: model.NoteInjected, Call: call(model.ReasonConflict)}, noteConflict},
		{model.Note{Kind: model.NoteFailed, Call: call(model.ReasonTooManyReqs)}, noteFailed},
		{model.Note{Kind: model.NoteInjected, Call: call(model.ReasonTimeout)}, noteFailed},
		{model.Note{Kind: model.NoteDropped}, noteDropped},
		{model.Note{Kind: model.NoteHeld}, noteHeld},
		{model.Note{Kind: model.NoteRequeue}, noteRequeue},
		{model.Note{Kind: model.NoteRequeueAfter, N: 5}, noteRequeue},
		{model.Note{Kind: model.NoteExpired, N: 3}, noteExpired},
		{model.Note{Text: "Pod listed 0"}, notePlain},
		// Words alone classify nothing: a note in words that reads like a
		// failure or a drop is plain.
		{model.Note{Text: "update Pod default/web-1 failed: Conflict: stale"}, notePlain},
		{model.Note{Text: "notification dropped (fault)"}, notePlain},
	} {
		assert.Equal(t, c.want, classifyNote(&c.note), c.note.String())
	}
}

func TestDelivered(t *testing.T) {
	assert.True(t, delivered(&model.Record{Kind: model.ActDeliver, Target: model.Ref{Kind: "Pod"}}))
	assert.False(t, delivered(&model.Record{Kind: model.ActDeliver, Replay: true, Target: model.Ref{Kind: "Pod"}}))
	assert.False(t, delivered(&model.Record{Kind: model.ActTimer, Timer: model.TimerRelease}))
}
