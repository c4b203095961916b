package properties

import (
	"testing"

	"github.com/converge-sim/converge/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEventsAboutAnObject(t *testing.T) {
	c := model.NewCluster(model.Config{})
	event := func(name, kind, about, reason string) *model.Object {
		return &model.Object{Kind: "Event", Namespace: "default", Name: name, Spec: model.NewFields(model.Values{
			"involvedObject.kind": kind, "involvedObject.name": about, "type": "Warning", "reason": reason, "message": "it hurts",
		})}
	}
	require.NoError(t, c.Apply(
		event("a", "Memcached", "cache", "Deleting"),
		event("b", "Memcached", "other", "Deleting"),
		event("c", "Pod", "cache", "BackOff"),
	))
	got := eventsAbout(c.State(), model.Ref{Kind: "Memcached", Namespace: "default", Name: "cache"})
	assert.Equal(t, []string{"event on Memcached default/cache: Warning Deleting: it hurts"}, got)
}
