package model

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAKindRevisionMovesWithWritesOfItsKindAlone(t *testing.T) {
	s, _ := newTestServer(10)
	st := State{s: s}
	empty := st.KindRevision("Pod")
	require.NoError(t, s.Create("test", pod("a")))
	created := st.KindRevision("Pod")
	assert.NotEqual(t, empty, created)

	cm := &Object{Kind: "ConfigMap", Namespace: "default", Name: "c"}
	require.NoError(t, s.Create("test", cm))
	assert.Equal(t, created, st.KindRevision("Pod"), "a write of another kind")
	assert.NotEqual(t, st.Revision(), Revision{s, created.rv})

	p := s.Peek(Ref{Kind: "Pod", Namespace: "default", Name: "a"})
	next := *p
	next.Status = NewFields(Values{"phase": "Running"})
	require.NoError(t, s.UpdateStatus("test", &next))
	updated := st.KindRevision("Pod")
	assert.NotEqual(t, created, updated)

	require.NoError(t, s.Delete("test", Ref{Kind: "Pod", Namespace: "default", Name: "a"}, DeleteOptions{}))
	assert.NotEqual(t, updated, st.KindRevision("Pod"), "a delete")
	assert.NotEqual(t, empty, st.KindRevision("Pod"), "empty again, but a later revision")

	other, _ := newTestServer(10)
	assert.NotEqual(t, empty, State{s: other}.KindRevision("Pod"), "another server")
}
