package timeline

import (
	"testing"

	"github.com/converge-sim/converge/model"
	"github.com/stretchr/testify/assert"
)

func TestClassifyNote(t *testing.T) {
	for note, want := range map[string]noteKind{
		"error: Conflict: the object has been modified":                  noteError,
		"panic: runtime error":                                           noteError,
		"update-status ReplicaSet default/web failed: Conflict: stale":   noteConflict,
		"evict Pod default/web-1 failed: TooManyRequests: budget":        noteFailed,
		"update Pod default/web-1 failed: Timeout (fault)":               noteFailed,
		"update Pod default/web-1 applied, then failed: Timeout (fault)": noteFailed,
		"notification dropped (fault)":                                   noteDropped,
		"held back (fault)":                                              noteHeld,
		"requeue after 5":                                                noteRequeue,
		"expired: relisted 3":                                            noteExpired,
		"Pod listed 0":                                                   notePlain,
		"armed":                                                          notePlain,
	} {
		assert.Equal(t, want, classifyNote(note), note)
	}
}

func TestFaultNumber(t *testing.T) {
	assert.Equal(t, 2, faultNumber(&model.Record{Actor: "fault", Action: "#2 drop the next Pod notification to rs"}))
	assert.Equal(t, 0, faultNumber(&model.Record{Actor: "fault", Action: "drop"}))
	assert.Equal(t, 0, faultNumber(&model.Record{Actor: "fault", Action: "#x drop"}))
}

func TestInformerKind(t *testing.T) {
	assert.Equal(t, "Pod", informerKind(&model.Record{Action: "watch", Target: model.Ref{Kind: "Pod"}}))
	assert.Equal(t, "Node", informerKind(&model.Record{Action: "lag ends Node"}))
	assert.Equal(t, "Pod", informerKind(&model.Record{Action: "release held Pod"}))
	assert.Equal(t, "", informerKind(&model.Record{Action: "reconcile", Target: model.Ref{Kind: "ReplicaSet"}}))
}
