package convert

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/converge-sim/converge/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	jsonpatch "gopkg.in/evanphx/json-patch.v4"
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
// and it takes most of them.
func TestTypedMergeIsTheDecodeOfTheMerge(t *testing.T) {
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
