package model_test

import (
	"testing"

	"github.com/converge-sim/converge/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAnnotationsAreFieldsOfTheirOwn: a path metadata.annotations.<name>
// sets, reads and removes an annotation, kept apart from the labels (a
// selector never sees it); diffs and rivals name it by that path, and the
// label spelling of an annotation is refused with the path to use.
func TestAnnotationsAreFieldsOfTheirOwn(t *testing.T) {
	o := &model.Object{Kind: "Pod", Namespace: "default", Name: "p", Labels: model.NewLabels(map[string]string{"app": "web"})}
	old := o.DeepCopy()
	require.NoError(t, o.SetField("metadata.annotations.example.com/owner", "ops"))
	assert.Equal(t, "ops", o.Field("metadata.annotations.example.com/owner"))
	assert.Nil(t, o.Field("metadata.labels.example.com/owner"))
	assert.Equal(t, map[string]string{"app": "web", model.AnnotationLabelPrefix + "example.com/owner": "ops"}, o.Labels.Map())
	assert.Equal(t, []model.FieldChange{{Path: "metadata.annotations.example.com/owner", New: "ops"}}, model.Diff(old, o))
	assert.Equal(t, "metadata.annotations.example.com/owner", model.MetadataPath(model.AnnotationLabelPrefix+"example.com/owner"))
	assert.Equal(t, "metadata.labels.app", model.MetadataPath("app"))

	err := o.SetField("metadata.labels.annotation:example.com/owner", "x")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "metadata.annotations.example.com/owner")
	assert.Nil(t, o.Field("metadata.labels.annotation:example.com/owner"))
	assert.Error(t, o.SetField("metadata.annotations.example.com/owner", int64(1)), "annotation values are strings")
	assert.Error(t, o.SetField("metadata.annotations.", "x"), "an annotation has a name")

	require.NoError(t, o.SetField("metadata.annotations.example.com/owner", nil))
	assert.Equal(t, map[string]string{"app": "web"}, o.Labels.Map())
}

// TestARivalKeepsAnAnnotation: a rival owns an annotation by its path and
// sets it; it refuses an annotation's label spelling.
func TestARivalKeepsAnAnnotation(t *testing.T) {
	c := model.NewCluster(model.Config{})
	require.NoError(t, c.AddController(model.Controller{Name: "idle", For: "Pod", NewReconciler: func(model.Client) model.Reconciler {
		return model.ReconcilerFunc(func(model.Request) (model.Result, error) { return model.Result{}, nil })
	}}))
	require.NoError(t, c.Apply(&model.Object{Kind: "Pod", Namespace: "default", Name: "p"}))
	require.NoError(t, c.Start())
	p := c.State().Get("Pod", "default", "p")
	require.NoError(t, c.Faults().StartRival(model.Rival{Name: "rival", Target: p.Ref(), Path: "metadata.annotations.owner", Value: "ops", Persistent: true}))
	for range 10 {
		for _, a := range c.Enabled(nil) {
			if a.Kind == model.ActRival {
				c.Do(a)
				break
			}
		}
	}
	assert.Equal(t, "ops", c.State().Get("Pod", "default", "p").Field("metadata.annotations.owner"))
	assert.Error(t, c.Faults().StartRival(model.Rival{Name: "rival-2", Target: p.Ref(), Path: "metadata.labels.annotation:owner", Value: "x"}))
}
