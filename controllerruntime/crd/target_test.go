package crd_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/converge-sim/converge/controllerruntime/crd"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// sampleWidget is a Widget as a sample an operator ships: the whole
// object, as JSON.
func sampleWidget() map[string]any {
	return map[string]any{
		"apiVersion": "gen.example.com/v1",
		"kind":       "Widget",
		"metadata":   map[string]any{"name": "sample", "namespace": "default"},
		"spec": map[string]any{
			"name":     "sample",
			"mode":     "Safe",
			"replicas": 3,
			"paused":   true,
			"labels":   map[string]any{"app": "web"},
			"ports":    []any{map[string]any{"name": "http", "port": 80, "protocol": "UDP"}},
			"storage":  map[string]any{"size": "10Gi", "class": "fast"},
			"hosts":    []any{"example"},
		},
	}
}

// TestUndeclaredFieldsKeepTheTargetsValue: with a Target, the fields the
// space names are drawn and every other field is the target's, required
// or not; a keyed list drawn longer than the target's gives its extra
// items distinct keys; a Target that names nothing to draw, has no spec
// or breaks the CRD is an error.
func TestUndeclaredFieldsKeepTheTargetsValue(t *testing.T) {
	w := version(t, loadAll(t), widget)
	target := sampleWidget()
	want := target["spec"].(map[string]any)

	specs, err := w.Specs(crd.GenOptions{Target: target, Fields: []string{"spec.replicas"}})
	require.NoError(t, err)
	replicas := map[any]bool{}
	for i := range 200 {
		s := specs.Example(i)
		for _, k := range keys(want) {
			if k == "replicas" {
				continue
			}
			assert.Equal(t, jsonOf(t, want[k]), jsonOf(t, s[k]), "%s is not declared: the target's value", k)
		}
		assert.Subset(t, keys(want), keys(s), "nothing the target lacks is drawn")
		replicas[s["replicas"]] = true
	}
	assert.Greater(t, len(replicas), 3, "the declared field is drawn: %v", replicas)

	// A field below a keyed list: the list's length is drawn, items keep
	// the target's unnamed fields (the protocol UDP), the extra items get
	// distinct names.
	specs, err = w.Specs(crd.GenOptions{Target: target, Fields: []string{"spec.ports[*].port"}})
	require.NoError(t, err)
	lengths, ports := map[int]bool{}, map[any]bool{}
	for i := range 200 {
		s := specs.Example(i)
		assert.Equal(t, "sample", s["name"])
		ps, _ := s["ports"].([]any)
		lengths[len(ps)] = true
		names := map[any]bool{}
		for j, p := range ps {
			p := p.(map[string]any)
			assert.Equal(t, "UDP", p["protocol"], "not declared: the target's item's value")
			assert.False(t, names[p["name"]], "item %d repeats the name %v: %v", j, p["name"], ps)
			names[p["name"]] = true
			ports[p["port"]] = true
		}
		if len(ps) > 0 {
			assert.Equal(t, "http", ps[0].(map[string]any)["name"], "the first item keeps the target's key")
		}
		if len(ps) > 1 {
			assert.Equal(t, "http-2", ps[1].(map[string]any)["name"], "an extra item's key is made distinct")
		}
	}
	assert.True(t, lengths[2] || lengths[3], "lists longer than the target's are drawn: %v", lengths)
	assert.Greater(t, len(ports), 3)

	for _, tc := range []struct {
		name string
		opts crd.GenOptions
		want string
	}{
		{"nothing named", crd.GenOptions{Target: target, Pin: map[string]any{"spec.paused": false}}, "no field is named to draw"},
		{"no spec", crd.GenOptions{Target: map[string]any{"kind": "Widget"}, Fields: []string{"spec.replicas"}}, "the object has no spec"},
		{"invalid", crd.GenOptions{Target: map[string]any{"spec": map[string]any{"name": "x"}}, Fields: []string{"spec.replicas"}}, "the CRD rejects the target's spec"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := w.Specs(tc.opts)
			require.Error(t, err)
			assert.ErrorContains(t, err, "declared input space: Target: "+tc.want)
		})
	}
}

// pools is a CRD shaped as KubeRay's RayCluster where it matters: an
// atomic list of groups told apart by a groupName, and a map list keyed
// by an integer.
const pools = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: pools.gen.example.com
spec:
  group: gen.example.com
  names: {kind: Pool, listKind: PoolList, plural: pools, singular: pool}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          apiVersion: {type: string}
          kind: {type: string}
          metadata: {type: object}
          spec:
            type: object
            properties:
              workerGroupSpecs:
                type: array
                items:
                  type: object
                  required: [groupName, template]
                  properties:
                    groupName: {type: string, maxLength: 20}
                    replicas: {type: integer, format: int32, minimum: 0, maximum: 10}
                    template: {type: object, x-kubernetes-preserve-unknown-fields: true}
              listeners:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [port]
                items:
                  type: object
                  required: [port]
                  properties:
                    port: {type: integer, minimum: 1, maximum: 65535}
                    host: {type: string, maxLength: 10}
`

// TestTargetListsKeepDistinctKeys: groups drawn past the target's one
// get distinct group names and the target's template (KubeRay's worker
// groups were all named "workers", an invalid input every time); a map
// list keyed by an integer, which cannot be made distinct, keeps the
// target's length.
func TestTargetListsKeepDistinctKeys(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pools.yaml")
	require.NoError(t, os.WriteFile(path, []byte(pools), 0o644))
	set, err := crd.Load(path)
	require.NoError(t, err)
	v := version(t, set, schema.GroupVersionKind{Group: "gen.example.com", Version: "v1", Kind: "Pool"})
	template := map[string]any{"spec": map[string]any{"containers": []any{map[string]any{"name": "ray", "image": "ray:2"}}}}
	target := map[string]any{"spec": map[string]any{
		"workerGroupSpecs": []any{map[string]any{"groupName": "workers", "replicas": 1, "template": template}},
		"listeners":        []any{map[string]any{"port": 80, "host": "a"}},
	}}
	specs, err := v.Specs(crd.GenOptions{Target: target, Fields: []string{"spec.workerGroupSpecs[*].replicas", "spec.listeners[*].host"}})
	require.NoError(t, err)
	most, hosts := 0, map[any]bool{}
	for i := range 200 {
		s := specs.Example(i)
		groups, _ := s["workerGroupSpecs"].([]any)
		most = max(most, len(groups))
		names := map[any]bool{}
		for _, g := range groups {
			g := g.(map[string]any)
			assert.False(t, names[g["groupName"]], "two groups named %v: %v", g["groupName"], groups)
			names[g["groupName"]] = true
			assert.Equal(t, jsonOf(t, template), jsonOf(t, g["template"]), "not declared: the target's template")
		}
		ls, _ := s["listeners"].([]any)
		assert.LessOrEqual(t, len(ls), 1, "an integer key cannot be made distinct: the target's length")
		for _, l := range ls {
			assert.EqualValues(t, 80, l.(map[string]any)["port"])
			hosts[l.(map[string]any)["host"]] = true
		}
	}
	assert.Greater(t, most, 1, "more groups than the target's are drawn")
	assert.Greater(t, len(hosts), 2, "the declared field below the list is drawn")
}

// TestRangesAloneNameTheFieldsDrawn: Ranges or OneOf without Fields draw
// only the fields they name; the others are at their minimal value
// (required) or unset, or, with a Target, the target's.
func TestRangesAloneNameTheFieldsDrawn(t *testing.T) {
	w := version(t, loadAll(t), widget)
	specs, err := w.Specs(crd.GenOptions{Ranges: map[string]crd.Range{"spec.replicas": {Min: 3, Max: 5}}})
	require.NoError(t, err)
	first := specs.Example(0)
	replicas := map[any]bool{}
	for i := range 200 {
		s := specs.Example(i)
		assert.Subset(t, []string{"mode", "name", "replicas"}, keys(s), "only the ranged field and the required ones: %v", s)
		assert.Equal(t, "Fast", s["mode"])
		assert.Equal(t, first["name"], s["name"])
		if r, ok := s["replicas"]; ok {
			replicas[r] = true
		}
	}
	assert.Equal(t, map[any]bool{int64(3): true, int64(4): true, int64(5): true, int64(1): true}, replicas,
		"the range, and the CRD's default")

	specs, err = w.Specs(crd.GenOptions{OneOf: map[string][]any{"spec.storage.class": {"fast"}}})
	require.NoError(t, err)
	for i := range 100 {
		s := specs.Example(i)
		assert.Subset(t, []string{"mode", "name", "storage"}, keys(s), "%v", s)
		if st, ok := s["storage"].(map[string]any); ok {
			assert.Subset(t, []string{"class", "size"}, keys(st), "%v", st)
		}
	}

	target := sampleWidget()
	specs, err = w.Specs(crd.GenOptions{Target: target, Ranges: map[string]crd.Range{"spec.replicas": {Min: 3, Max: 5}}})
	require.NoError(t, err)
	want := target["spec"].(map[string]any)
	for i := range 100 {
		s := specs.Example(i)
		assert.Equal(t, jsonOf(t, want["ports"]), jsonOf(t, s["ports"]), "with a Target, the others are the target's")
		assert.Equal(t, "Safe", s["mode"])
	}
}

// jsonOf returns v as JSON, so that values compare whatever Go types
// hold their numbers.
func jsonOf(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	require.NoError(t, err)
	return string(data)
}
