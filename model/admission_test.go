package model

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// maxReplicas rejects a spec.replicas above 3 and defaults an absent one
// to 1.
func maxReplicas(_ string, verb Verb, _, obj *Object) error {
	if verb == VerbDelete {
		return nil
	}
	if _, ok := obj.Spec.Get("replicas"); !ok {
		obj.Spec.Set("replicas", int64(1))
	}
	if obj.Spec.Int("replicas") > 3 {
		return &StatusError{Reason: ReasonInvalid, Message: "too many", Causes: []Cause{{Type: "FieldValueInvalid", Field: "spec.replicas", Message: "must be at most 3"}}}
	}
	return nil
}

func TestAdmissionDefaultsAndRejects(t *testing.T) {
	s, _ := newTestServer(10)
	s.AddAdmission(maxReplicas)
	p := pod("a")
	require.NoError(t, s.Create("test", p))
	assert.Equal(t, int64(1), p.Spec.Int("replicas"), "the default reaches the caller")
	assert.Equal(t, int64(1), s.Peek(p.Ref()).Spec.Int("replicas"), "and the store")

	rv := s.Revision()
	p.Spec = NewFields(Values{"image": "v1"}) // the default is filled again: a no-op
	require.NoError(t, s.Update("test", p))
	assert.Equal(t, rv, s.Revision(), "an update equal to the stored object once defaulted writes nothing")

	mark := s.RejectionMark()
	p.Spec = NewFields(Values{"image": "v1", "replicas": int64(5)})
	for range 3 {
		err := s.Update("ctl", p)
		require.True(t, IsInvalid(err), "got %v", err)
	}
	assert.Equal(t, rv, s.Revision(), "a rejected write stores nothing")
	rej := s.Rejections(mark)
	require.Len(t, rej, 1)
	assert.Equal(t, "ctl", rej[0].Caller)
	assert.Equal(t, 3, rej[0].Count)
	assert.Equal(t, "spec.replicas", rej[0].Err.(*StatusError).Causes[0].Field)
	assert.Empty(t, s.Rejections(s.RejectionMark()))
}

func TestAdmissionSeesStatusWrites(t *testing.T) {
	s, _ := newTestServer(10)
	var seen []Verb
	s.AddAdmission(func(_ string, v Verb, old, obj *Object) error {
		seen = append(seen, v)
		if v == VerbUpdateStatus && obj.Status.Int("ready") > obj.Spec.Int("replicas") {
			return &StatusError{Reason: ReasonInvalid, Message: "ready exceeds replicas"}
		}
		return nil
	})
	p := pod("a")
	p.Spec.Set("replicas", int64(2))
	require.NoError(t, s.Create("test", p))
	p.Status = NewFields(Values{"ready": int64(3)})
	assert.True(t, IsInvalid(s.UpdateStatus("test", p)))
	p.Status = NewFields(Values{"ready": int64(2)})
	require.NoError(t, s.UpdateStatus("test", p))
	assert.Equal(t, []Verb{VerbCreate, VerbUpdateStatus, VerbUpdateStatus}, seen)
}

func TestGenerationNone(t *testing.T) {
	s, _ := newTestServer(10)
	s.SetGenerationRule("ConfigMap", GenerationNone)
	cm := &Object{Kind: "ConfigMap", Namespace: "default", Name: "c", Spec: NewFields(Values{"data.k": "1"})}
	require.NoError(t, s.Create("test", cm))
	assert.Zero(t, cm.Generation)
	cm.Spec = NewFields(Values{"data.k": "2"})
	require.NoError(t, s.Update("test", cm))
	assert.Zero(t, s.Peek(cm.Ref()).Generation, "a ConfigMap has no generation")

	p := pod("a")
	require.NoError(t, s.Create("test", p))
	p.Spec = NewFields(Values{"image": "v2"})
	require.NoError(t, s.Update("test", p))
	assert.Equal(t, int64(2), s.Peek(p.Ref()).Generation, "other kinds keep theirs")
}

func TestGenerationAnyChangeKeepsStatusInTheObject(t *testing.T) {
	s, _ := newTestServer(10)
	s.SetGenerationRule("Note", GenerationAnyChange)
	n := &Object{Kind: "Note", Namespace: "default", Name: "n", Spec: NewFields(Values{"text": "a"}), Status: NewFields(Values{"seen": "a"})}
	require.NoError(t, s.Create("test", n))
	assert.Equal(t, NewFields(Values{"seen": "a"}), s.Peek(n.Ref()).Status, "create keeps the status")
	assert.Equal(t, int64(1), n.Generation)
	n.Status = NewFields(Values{"seen": "b"})
	require.NoError(t, s.Update("test", n))
	assert.Equal(t, NewFields(Values{"seen": "b"}), s.Peek(n.Ref()).Status, "update writes it")
	assert.Equal(t, int64(2), n.Generation, "and a status change bumps generation")
	rv := s.Revision()
	require.NoError(t, s.Update("test", n))
	assert.Equal(t, rv, s.Revision(), "a no-op stays one")
}

// TestAdmissionSeesDeletes: a delete passes through the admission chain
// with the stored object as old and no new one; a refused delete removes
// nothing, is recorded as a rejection, and the garbage collector's
// refused delete of an orphan is recorded too, not a crash.
func TestAdmissionSeesDeletes(t *testing.T) {
	s, _ := newTestServer(10)
	type seen struct {
		verb Verb
		old  string
		obj  bool
	}
	var calls []seen
	s.AddAdmission(func(_ string, v Verb, old, obj *Object) error {
		c := seen{verb: v, obj: obj != nil}
		if old != nil {
			c.old = old.Name
		}
		calls = append(calls, c)
		if v == VerbDelete && old.Labels.Value("protected") == "true" {
			return &StatusError{Reason: ReasonForbidden, Message: "protected objects cannot be deleted"}
		}
		return nil
	})

	free := pod("free")
	require.NoError(t, s.Create("test", free))
	require.NoError(t, s.Delete("test", free.Ref(), DeleteOptions{}))
	assert.Nil(t, s.Peek(free.Ref()))
	assert.Equal(t, []seen{{VerbCreate, "", true}, {VerbDelete, "free", false}}, calls)

	owner := &Object{Kind: "ReplicaSet", Namespace: "default", Name: "web"}
	require.NoError(t, s.Create("test", owner))
	kept := pod("kept")
	kept.Labels = NewLabels(map[string]string{"protected": "true"})
	kept.OwnerReferences = []OwnerReference{NewOwnerReference(owner)}
	require.NoError(t, s.Create("test", kept))

	mark := s.RejectionMark()
	rv := s.Revision()
	err := s.Delete("user", kept.Ref(), DeleteOptions{})
	require.True(t, IsForbidden(err), "got %v", err)
	assert.Equal(t, rv, s.Revision(), "a refused delete writes nothing")
	require.NotNil(t, s.Peek(kept.Ref()))

	require.NoError(t, s.Delete("test", owner.Ref(), DeleteOptions{}))
	require.True(t, s.GCPending(), "the orphan is queued for the collector")
	require.NotPanics(t, func() { s.CollectGarbage() })
	assert.NotNil(t, s.Peek(kept.Ref()), "the collector's refused delete leaves the orphan")
	assert.Contains(t, s.gcDid, "refused")
	assert.False(t, s.GCPending(), "a refused delete is not retried at once: the collector does not spin")

	rej := s.Rejections(mark)
	require.Len(t, rej, 2)
	assert.Equal(t, []string{"user", GarbageCollector}, []string{rej[0].Caller, rej[1].Caller})
	for _, r := range rej {
		assert.Equal(t, VerbDelete, r.Verb)
		assert.Equal(t, kept.Ref(), r.Ref)
	}
}
