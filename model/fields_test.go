package model

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFieldsReadInPathOrder(t *testing.T) {
	f := NewFields(Values{"b": int64(2), "a": "x", "c": true})
	assert.Equal(t, []string{"a", "b", "c"}, f.Paths())
	assert.Equal(t, 3, f.Len())
	assert.Equal(t, int64(2), f.Int("b"))
	assert.Equal(t, "x", f.Str("a"))
	assert.True(t, f.Bool("c"))
	v, ok := f.Get("missing")
	assert.False(t, ok)
	assert.Nil(t, v)
	assert.False(t, f.Has("missing"))
	assert.Zero(t, f.Int("a"), "a string is no integer")
	var paths []string
	for p := range f.All() {
		paths = append(paths, p)
	}
	assert.Equal(t, f.Paths(), paths)
	assert.Equal(t, `{a: "x", b: 2, c: true}`, f.String())
}

// TestFieldsCopiesShareUntilWritten: a copy of fields, or of an object,
// costs nothing, and writing one never changes another.
func TestFieldsCopiesShareUntilWritten(t *testing.T) {
	f := NewFields(Values{"replicas": int64(3), "selector.app": "web"})
	g := f
	g.Set("replicas", int64(5))
	g.Set("image", "nginx")
	g.Delete("selector.app")
	assert.Equal(t, NewFields(Values{"replicas": int64(3), "selector.app": "web"}), f)
	assert.Equal(t, NewFields(Values{"replicas": int64(5), "image": "nginx"}), g)

	o := &Object{Kind: "ReplicaSet", Name: "web", Spec: f}
	c := o.DeepCopy()
	c.Spec.Set("replicas", int64(1))
	require.NoError(t, c.SetField("status.ready", true))
	assert.Equal(t, int64(3), o.Spec.Int("replicas"))
	assert.Zero(t, o.Status.Len())

	g.Delete("replicas")
	g.Delete("image")
	assert.Zero(t, g.Len())
	assert.True(t, g.Equal(Fields{}))
}

func TestFieldsEqualCompareValues(t *testing.T) {
	f := NewFields(Values{"a": int64(1), "b": "x"})
	assert.True(t, f.Equal(f))
	assert.True(t, f.Equal(NewFields(Values{"b": "x", "a": int64(1)})))
	assert.False(t, f.Equal(NewFields(Values{"a": int64(1), "b": "y"})))
	assert.False(t, f.Equal(NewFields(Values{"a": int64(1)})))
	assert.False(t, f.Equal(NewFields(Values{"a": int64(1), "c": "x"})))
	assert.False(t, f.Equal(NewFields(Values{"a": 1, "b": "x"})), "an int is not the int64 the server stores")

	same := f
	same.Set("a", int64(1)) // no change: still the same fields
	assert.True(t, f.Equal(same))
}

func TestFieldsNormalize(t *testing.T) {
	f := NewFields(Values{"a": 1, "b": int32(2), "c": "x"})
	n, err := f.normalize("spec")
	require.NoError(t, err)
	assert.Equal(t, NewFields(Values{"a": int64(1), "b": int64(2), "c": "x"}), n)
	assert.Equal(t, 1, f.Value("a"), "normalize leaves its input alone")

	_, err = NewFields(Values{"z": 1.5, "a": []int{1}}).normalize("spec")
	assert.EqualError(t, err, "spec.a: unsupported value type []int (use int64, string or bool)")
}

func TestAFieldsBuilderMakesWhatNewFieldsMakes(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	paths := []string{"a", "a.b", "b", "b[0]", "b[1]", "c.d", "z", "ä"}
	for range 200 {
		vals := Values{}
		var b FieldsBuilder
		for range r.IntN(12) {
			p := paths[r.IntN(len(paths))]
			v := int64(r.IntN(3))
			vals[p] = v
			b.Set(p, v)
		}
		assert.Equal(t, NewFields(vals), b.Fields())
		assert.Zero(t, b.Len(), "Fields empties the builder")
	}
	var sorted FieldsBuilder
	sorted.Set("a", "1")
	sorted.Set("a", "2")
	sorted.Set("b", "3")
	assert.Equal(t, NewFields(Values{"a": "2", "b": "3"}), sorted.Fields(), "a sorted run with a path set twice")
}
