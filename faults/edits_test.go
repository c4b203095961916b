package faults_test

import (
	"encoding/json"
	"testing"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// everyKindOfField are edit targets for each kind of field.
var everyKindOfField = []faults.EditTarget{
	{Resource: "Pod", Path: "status.phase", Values: []any{"Pending", "Running", "Failed"}},
	{Resource: "Pod", Path: "spec.paused", Values: []any{true, false}},
	{Resource: "Pod", Path: "metadata.labels.team", Values: []any{"web", nil}},
	{Resource: "ConfigMap", Path: "spec.data.color", Values: []any{"blue", nil}},
	{Resource: "Pod", Path: "status.conditions.Ready", Values: []any{"True", "False", "Unknown"}},
	{Resource: "Pod", Path: "metadata.annotations.example.com/owner", Values: []any{"web", nil}},
	{Resource: "ConfigMap", Recreate: true},
}

// editWorld is a started cluster with one Pod and one ConfigMap and an idle
// controller.
func editWorld(t *testing.T) *model.Cluster {
	t.Helper()
	c := model.NewCluster(model.Config{})
	require.NoError(t, c.AddController(model.Controller{Name: "idle", For: "Pod", NewReconciler: func(model.Client) model.Reconciler {
		return model.ReconcilerFunc(func(model.Request) (model.Result, error) { return model.Result{}, nil })
	}}))
	require.NoError(t, c.Apply(&model.Object{Kind: "Pod", Namespace: "default", Name: "p", Labels: model.NewLabels(map[string]string{"team": "db", model.AnnotationLabelPrefix + "example.com/owner": "db"}), Spec: model.NewFields(model.Values{"paused": false})}))
	require.NoError(t, c.Apply(&model.Object{Kind: "ConfigMap", Namespace: "default", Name: "cm", Spec: model.NewFields(model.Values{"data.color": "red"})}))
	require.NoError(t, c.Start())
	return c
}

func TestEditsSetAndRemoveEveryKindOfField(t *testing.T) {
	for _, tc := range []struct {
		edit faults.Edit
		kind string
		path string
		want any
		text string
	}{
		{faults.Edit{Target: everyKindOfField[0], Choice: 2}, "Pod", "status.phase", "Failed", `edit: set status.phase="Failed" on Pod #0`},
		{faults.Edit{Target: everyKindOfField[1], Choice: 0}, "Pod", "spec.paused", true, "edit: set spec.paused=true on Pod #0"},
		{faults.Edit{Target: everyKindOfField[2], Choice: 0}, "Pod", "metadata.labels.team", "web", `edit: set metadata.labels.team="web" on Pod #0`},
		{faults.Edit{Target: everyKindOfField[2], Choice: 1}, "Pod", "metadata.labels.team", nil, "edit: remove metadata.labels.team on Pod #0"},
		{faults.Edit{Target: everyKindOfField[3], Choice: 1}, "ConfigMap", "spec.data.color", nil, "edit: remove spec.data.color on ConfigMap #0"},
		{faults.Edit{Target: everyKindOfField[4], Choice: 1}, "Pod", "status.conditions.Ready", "False", `edit: set status.conditions.Ready="False" on Pod #0`},
		{faults.Edit{Target: everyKindOfField[5], Choice: 0}, "Pod", "metadata.annotations.example.com/owner", "web", `edit: set metadata.annotations.example.com/owner="web" on Pod #0`},
		{faults.Edit{Target: everyKindOfField[5], Choice: 1}, "Pod", "metadata.annotations.example.com/owner", nil, "edit: remove metadata.annotations.example.com/owner on Pod #0"},
	} {
		t.Run(tc.text, func(t *testing.T) {
			c := editWorld(t)
			require.NoError(t, tc.edit.Apply(c))
			assert.Equal(t, tc.text, tc.edit.String())
			name := map[string]string{"Pod": "p", "ConfigMap": "cm"}[tc.kind]
			o := c.State().Get(tc.kind, "default", name)
			require.NotNil(t, o)
			assert.Equal(t, tc.want, o.Field(tc.path))
		})
	}
}

func TestEditRecreatesWithTheSameNameAndANewUID(t *testing.T) {
	c := editWorld(t)
	before := c.State().Get("ConfigMap", "default", "cm")
	edit := faults.Edit{Target: everyKindOfField[6]}
	require.NoError(t, edit.Apply(c))
	after := c.State().Get("ConfigMap", "default", "cm")
	require.NotNil(t, after)
	assert.NotEqual(t, before.UID, after.UID)
	assert.Equal(t, "red", after.Field("spec.data.color"))
	assert.Equal(t, "edit: delete and recreate ConfigMap #0 (same name, new UID)", edit.String())
}

func TestRivalsKeepStringsAndRemovals(t *testing.T) {
	c := editWorld(t)
	require.NoError(t, faults.Rival{Target: everyKindOfField[4], Choice: 2, Persistent: true}.Apply(c))
	require.NoError(t, faults.Rival{Target: everyKindOfField[2], Choice: 1, Persistent: true}.Apply(c))
	require.NoError(t, faults.Rival{Target: everyKindOfField[5], Choice: 0, Persistent: true}.Apply(c))
	for range 10 {
		for _, a := range c.Enabled(nil) {
			if a.Kind == model.ActRival {
				c.Do(a)
				break
			}
		}
	}
	o := c.State().Get("Pod", "default", "p")
	assert.Equal(t, "Unknown", o.Field("status.conditions.Ready"))
	assert.Nil(t, o.Field("metadata.labels.team"))
	assert.Equal(t, "web", o.Field("metadata.annotations.example.com/owner"))
	assert.False(t, o.Labels.Has("example.com/owner"), "an annotation, not a label")
	assert.Equal(t, "persistent rival keeps metadata.labels.team removed on Pod #0", faults.Rival{Target: everyKindOfField[2], Choice: 1, Persistent: true}.String())
}

func TestEditsOfEveryKindOfFieldRoundTripThroughJSON(t *testing.T) {
	topo := faults.Topology{Targets: []faults.Target{{Controller: "a", Kinds: []string{"Pod"}}}, Edits: everyKindOfField, Rivals: everyKindOfField[:6]}
	gen := faults.Schedules(faults.Mix{faults.KindEdit, faults.KindRival}, topo, budget)
	rapid.Check(t, func(t *rapid.T) {
		s := gen.Draw(t, "s")
		data, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		var back faults.Schedule
		if err := json.Unmarshal(data, &back); err != nil {
			t.Fatalf("%v: %s", err, data)
		}
		if back.String() != s.String() {
			t.Fatalf("round trip changed %s into %s", s, back)
		}
	})
}

func TestEditTargetsRejectBadValues(t *testing.T) {
	topo := faults.Topology{Targets: []faults.Target{{Controller: "a", Kinds: []string{"Pod"}}}}
	for _, bad := range []faults.EditTarget{
		{Resource: "Pod", Path: "status.phase", Values: []any{1.5}},
		{Resource: "Pod", Path: "metadata.labels.team", Values: []any{true}},
		{Resource: "Pod", Path: "metadata.annotations.owner", Values: []any{true}},
		{Resource: "Pod", Path: "metadata.annotations.", Values: []any{"x"}},
		{Resource: "Pod", Path: "metadata.labels.annotation:owner", Values: []any{"x"}},
		{Resource: "Pod", Values: []any{"x"}},
		{Resource: "Pod", Path: "spec.x", Recreate: true},
	} {
		topo.Edits = []faults.EditTarget{bad}
		assert.Error(t, faults.Check(faults.Mix{faults.KindEdit}, topo, budget), "%+v", bad)
	}
}
