package properties_test

import (
	"testing"

	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stateWith returns the state of a server holding objs.
func stateWith(t *testing.T, objs ...*model.Object) model.State {
	t.Helper()
	c := model.NewCluster(model.Config{})
	require.NoError(t, c.Apply(objs...))
	return c.State()
}

func labelled(name, app string) *model.Object {
	return &model.Object{Kind: "Pod", Namespace: "default", Name: name, Labels: model.NewLabels(map[string]string{"app": app})}
}

func TestCountWithLabels(t *testing.T) {
	inv := properties.CountWithLabels("Pod", model.Selector{"app": "web"}, 1, 2)
	assert.NoError(t, inv.Check(stateWith(t, labelled("a", "web"), labelled("b", "db"))))
	assert.NoError(t, inv.Check(stateWith(t, labelled("a", "web"), labelled("b", "web"))))
	assert.ErrorContains(t, inv.Check(stateWith(t, labelled("a", "db"))), "0 Pods with app=web, outside [1, 2]")
	assert.ErrorContains(t, inv.Check(stateWith(t, labelled("a", "web"), labelled("b", "web"), labelled("c", "web"))), "3 Pods")
}

func TestAtMostPerOwner(t *testing.T) {
	c := model.NewCluster(model.Config{})
	rs := &model.Object{Kind: "ReplicaSet", Namespace: "default", Name: "web", Spec: model.NewFields(model.Values{"replicas": int64(1)})}
	require.NoError(t, c.Outside("test").Create(rs))
	inv := properties.AtMostPerOwner("Pod", "ReplicaSet", func(o *model.Object) int64 { return o.Spec.Int("replicas") })
	owned := func(name string) *model.Object {
		p := labelled(name, "web")
		p.OwnerReferences = []model.OwnerReference{model.NewOwnerReference(rs)}
		return p
	}
	require.NoError(t, c.Outside("test").Create(owned("a")))
	require.NoError(t, c.Outside("test").Create(labelled("stray", "web")))
	assert.NoError(t, inv.Check(c.State()), "an object it does not control does not count")
	require.NoError(t, c.Outside("test").Create(owned("b")))
	assert.ErrorContains(t, inv.Check(c.State()), "ReplicaSet default/web controls 2 Pods, more than 1")
}
