package convert

import (
	"math"
	"testing"

	"github.com/converge-sim/converge/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// keys are JSON keys chosen to stress path quoting.
var keys = rapid.SampledFrom([]string{"a", "b", "replicas", "0", "", "a.b", "x[0]", `q"uote`, "{}", "[]", "(null)", "(float)", "kubernetes.io/os", "sp ace", "ünï"})

// jsonValue generates JSON values as runtime's unstructured converter
// produces them, nested up to depth.
func jsonValue(depth int) *rapid.Generator[any] {
	scalars := []*rapid.Generator[any]{
		rapid.Int64().AsAny(),
		rapid.String().AsAny(),
		rapid.Bool().AsAny(),
		rapid.Just[any](nil),
		rapid.Float64().Filter(func(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }).AsAny(),
	}
	if depth == 0 {
		return rapid.OneOf(scalars...)
	}
	return rapid.OneOf(append(scalars, jsonObject(depth-1).AsAny(), rapid.SliceOfN(jsonValue(depth-1), 0, 3).AsAny())...)
}

func jsonObject(depth int) *rapid.Generator[map[string]any] {
	return rapid.MapOfN(keys, jsonValue(depth), 0, 4)
}

// normalize is what a JSON value looks like after Flatten and Unflatten:
// null object fields are gone and integral floats are integers.
func normalize(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, x := range v {
			if x != nil {
				out[k] = normalize(x)
			}
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = normalize(x)
		}
		return out
	case float64:
		if v == math.Trunc(v) && math.Abs(v) < 1<<62 {
			return int64(v)
		}
	}
	return v
}

func TestFlattenUnflattenRoundTrips(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		in := jsonObject(3).Draw(t, "json")
		vals := model.Values{}
		require.NoError(t, Flatten("", in, vals))
		f := model.NewFields(vals)
		for p, v := range f.All() {
			switch v.(type) {
			case int64, string, bool:
			default:
				t.Fatalf("%s holds a %T", p, v)
			}
		}
		out, err := Unflatten(f)
		require.NoError(t, err)
		want := normalize(in).(map[string]any)
		if len(want) == 0 {
			assert.Nil(t, out)
			return
		}
		assert.Equal(t, want, out)
	})
}

func TestPathsReadAsJSONPath(t *testing.T) {
	f := model.Values{}
	require.NoError(t, Flatten("", map[string]any{
		"replicas": int64(3),
		"template": map[string]any{
			"spec": map[string]any{
				"containers":   []any{map[string]any{"image": "nginx", "resources": map[string]any{}}},
				"nodeSelector": map[string]any{"kubernetes.io/os": "linux"},
				"args":         []any{nil, "x"},
				"tolerations":  []any{},
			},
		},
		"ratio":  1.5,
		"whole":  2.0,
		"absent": nil,
	}, f))
	assert.Equal(t, model.NewFields(model.Values{
		"replicas":                                       int64(3),
		"template.spec.containers[0].image":              "nginx",
		"template.spec.containers[0].resources{}":        true,
		`template.spec.nodeSelector["kubernetes.io/os"]`: "linux",
		"template.spec.args[0](null)":                    true,
		"template.spec.args[1]":                          "x",
		"template.spec.tolerations[]":                    true,
		"ratio(float)":                                   "1.5",
		"whole":                                          int64(2),
	}), model.NewFields(f))
}

func TestUnflattenRejectsContradictions(t *testing.T) {
	for name, f := range map[string]model.Fields{
		"value and object": model.NewFields(model.Values{"a": int64(1), "a.b": int64(2)}),
		"object and list":  model.NewFields(model.Values{"a.b": int64(1), "a[0]": int64(2)}),
		"bad marker value": model.NewFields(model.Values{"a{}": int64(1)}),
		"bad float":        model.NewFields(model.Values{"a(float)": "x"}),
		"bad index":        model.NewFields(model.Values{"a[x]": int64(1)}),
		"bad quoting":      model.NewFields(model.Values{`a["b`: int64(1)}),
		"bad value":        model.NewFields(model.Values{"a": 1.5}),
		"bare marker":      model.NewFields(model.Values{"{}": true}),
	} {
		_, err := Unflatten(f)
		assert.Error(t, err, name)
	}
}

// Of several contradictions, the one named is the first path in sorted
// order, every time (map order varies from call to call).
func TestUnflattenNamesTheSameContradictionEveryTime(t *testing.T) {
	f := model.NewFields(model.Values{"a": int64(1), "a.b": int64(2), "c.d": int64(1), "c[0]": int64(2), "e[x]": int64(1), "g": 1.5})
	for range 50 {
		_, err := Unflatten(f)
		assert.EqualError(t, err, "field a.b: a field is both a value and a container")
	}
}
