package model_test

import (
	"testing"

	"github.com/converge-sim/converge/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLabelsAreValuesSharedByCopies(t *testing.T) {
	l := model.NewLabels(map[string]string{"b": "2", "a": "1"})
	var keys []string
	for k := range l.All() {
		keys = append(keys, k)
	}
	assert.Equal(t, []string{"a", "b"}, keys, "in key order")
	assert.Equal(t, 2, l.Len())

	m := l.With("c", "3").With("a", "x").Without("b")
	assert.Equal(t, map[string]string{"a": "1", "b": "2"}, l.Map(), "With and Without leave the labels they are called on")
	assert.Equal(t, map[string]string{"a": "x", "c": "3"}, m.Map())
	v, ok := m.Get("c")
	assert.True(t, ok)
	assert.Equal(t, "3", v)
	_, ok = m.Get("b")
	assert.False(t, ok)
	assert.Equal(t, "", m.Value("b"))
	assert.Equal(t, `{a: "x", c: "3"}`, m.String())

	assert.True(t, l.Equal(model.NewLabels(map[string]string{"a": "1", "b": "2"})))
	assert.False(t, l.Equal(m))
	assert.True(t, l.With("a", "1").Equal(l), "setting a value a key holds changes nothing")
	assert.True(t, model.Labels{}.Equal(model.NewLabels(map[string]string{})), "no labels and empty labels are the same")
	assert.Nil(t, model.Labels{}.With("a", "1").Without("a").Map())

	o := &model.Object{Labels: l}
	c := o.DeepCopy()
	c.Labels = c.Labels.With("a", "changed")
	assert.Equal(t, "1", o.Labels.Value("a"), "a copy's new labels are its own")
}

func TestMetadataLabelsKeepsAnnotationsApart(t *testing.T) {
	l, err := model.MetadataLabels(map[string]string{"app": "web"}, map[string]string{"app": "note"})
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"app": "web", model.AnnotationLabelPrefix + "app": "note"}, l.Map())

	_, err = model.MetadataLabels(map[string]string{model.AnnotationLabelPrefix + "x": "y"}, nil)
	assert.ErrorContains(t, err, `label key "annotation:x" is not valid`)
}
