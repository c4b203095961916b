package crd_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/converge-sim/converge/controllerruntime/convert"
	"github.com/converge-sim/converge/controllerruntime/crd"
	cronv1 "github.com/converge-sim/converge/controllerruntime/examples/cronjob/api/v1"
	cachev1alpha1 "github.com/converge-sim/converge/controllerruntime/examples/memcached/api/v1alpha1"
	"github.com/converge-sim/converge/controllerruntime/examples/schemaops"
	"github.com/converge-sim/converge/internal/quiettb"
	"github.com/converge-sim/converge/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"pgregory.net/rapid"
)

// crdFiles returns every CRD manifest of the module: the examples' and
// this package's test data.
func crdFiles(t testing.TB) []string {
	t.Helper()
	var files []string
	for _, glob := range []string{"../examples/*/config/crd/bases/*.yaml", "testdata/*.yaml"} {
		m, err := filepath.Glob(glob)
		require.NoError(t, err)
		files = append(files, m...)
	}
	require.GreaterOrEqual(t, len(files), 6)
	return files
}

func loadAll(t testing.TB) *crd.Set {
	t.Helper()
	s, err := crd.Load(crdFiles(t)...)
	require.NoError(t, err)
	return s
}

// converters returns a converter that knows the examples' Go types (and
// serves the others unstructured), and one that serves every custom
// resource unstructured: the two ways a kind reaches the model.
func converters(t testing.TB, crds *crd.Set) map[string]*convert.Converter {
	t.Helper()
	typed := schemaops.NewScheme()
	require.NoError(t, cachev1alpha1.AddToScheme(typed))
	require.NoError(t, cronv1.AddToScheme(typed))
	out := map[string]*convert.Converter{}
	for name, scheme := range map[string]*runtime.Scheme{"typed": typed, "unstructured": clientgoscheme.Scheme} {
		c, err := convert.New(scheme, convert.Options{Unstructured: crds.GVKs()})
		require.NoError(t, err)
		out[name] = c
	}
	return out
}

var widget = schema.GroupVersionKind{Group: "gen.example.com", Version: "v1", Kind: "Widget"}

func version(t testing.TB, crds *crd.Set, gvk schema.GroupVersionKind) *crd.Version {
	t.Helper()
	v, ok := crds.Version(gvk)
	require.True(t, ok, "%s is not served", gvk)
	return v
}

// TestGeneratedSpecsAreAdmittedOnEveryCRD creates every generated spec, as
// model.Fields, through a model API server with the Set's admission
// installed: all must be accepted, for every kind of every CRD in the
// module, typed and unstructured. The rejection rate of the candidates
// (filtered inside the generator by the same validation) is logged.
func TestGeneratedSpecsAreAdmittedOnEveryCRD(t *testing.T) {
	crds := loadAll(t)
	for name, conv := range converters(t, crds) {
		for _, v := range crds.Versions() {
			t.Run(name+"/"+v.GVK.Kind, func(t *testing.T) {
				stats := &crd.GenStats{}
				gen, err := v.SpecFields(conv, crd.GenOptions{Stats: stats})
				require.NoError(t, err)
				c := model.NewCluster(model.Config{})
				c.Server().AddAdmission(crds.Admission(conv, crd.Options{}))
				n := 0
				rapid.Check(t, func(rt *rapid.T) {
					spec := gen.Draw(rt, "spec")
					n++
					obj := &model.Object{Kind: v.GVK.Kind, Name: fmt.Sprintf("w%d", n), Spec: spec}
					if v.Namespaced {
						obj.Namespace = "default"
					}
					if err := c.Server().Create("user", obj); err != nil {
						rt.Fatalf("generated spec rejected: %v\n%v", err, spec)
					}
				})
				if v.GVK != feed { // its minimal spec breaks its rules, and most candidates too
					assert.Zero(t, stats.Fallbacks, "no draw should need the fallback")
				}
				t.Logf("%s: %d specs, %d candidates, %d rejected (%.1f%%), %d fallbacks, by rule %v",
					v.GVK.Kind, stats.Specs, stats.Candidates, stats.Rejected,
					100*float64(stats.Rejected)/float64(max(stats.Candidates, 1)), stats.Fallbacks, stats.Rules)
			})
		}
	}
}

// TestSpecFieldsFlattenAsTheConverter: a kind with a Go type has its spec's
// fields as the model Spec, a kind served unstructured its body with
// top-level names; both unflatten back to the generated spec.
func TestSpecFieldsFlattenAsTheConverter(t *testing.T) {
	crds := loadAll(t)
	convs := converters(t, crds)
	app := version(t, crds, schema.GroupVersionKind{Group: "ops.example.com", Version: "v1", Kind: "App"})
	typed, err := app.SpecFields(convs["typed"], crd.GenOptions{})
	require.NoError(t, err)
	loose, err := app.SpecFields(convs["unstructured"], crd.GenOptions{})
	require.NoError(t, err)
	specs, err := app.Specs(crd.GenOptions{})
	require.NoError(t, err)
	for i := range 20 {
		spec := specs.Example(i)
		f := typed.Example(i)
		assert.Equal(t, spec["image"], f.Value("image"), "same seed, same spec, hoisted")
		u, err := convert.Unflatten(loose.Example(i))
		require.NoError(t, err)
		assert.Equal(t, map[string]any{"spec": spec}, u)
	}
	bare, err := convert.New(runtime.NewScheme(), convert.Options{})
	require.NoError(t, err)
	_, err = app.SpecFields(bare, crd.GenOptions{})
	assert.ErrorContains(t, err, "the converter does not serve ops.example.com/v1, Kind=App")
}

// TestEdgeValuesAreDrawnOften counts, over 500 seeds, how often the
// Widget's fields take their edge values: absent, the minimum, the
// maximum, the empty or shortest string, null.
func TestEdgeValuesAreDrawnOften(t *testing.T) {
	w := version(t, loadAll(t), widget)
	specs, err := w.Specs(crd.GenOptions{})
	require.NoError(t, err)
	const n = 500
	count := map[string]int{}
	for i := range n {
		s := specs.Example(i)
		r, ok := s["replicas"]
		switch {
		case !ok:
			count["replicas absent"]++
		case r == int64(0):
			count["replicas 0"]++
		case r == int64(10):
			count["replicas 10"]++
		}
		if s["step"] == int64(95) {
			count["step 95 (exclusive maximum 100, multiple of 5)"]++
		}
		if s["ratio"] == 1.0 {
			count["ratio 1"]++
		}
		if p, ok := s["ports"].([]any); ok && len(p) == 0 {
			count["ports empty"]++
		}
		if l, ok := s["labels"].(map[string]any); ok && len(l) == 3 {
			count["labels at the cap (3)"]++
		}
		if nt, ok := s["note"]; ok && nt == nil {
			count["note null"]++
		}
		if nt, ok := s["note"]; ok && nt == "" {
			count["note empty"]++
		}
		if _, ok := s["maxUnavailable"].(string); ok {
			count["maxUnavailable string"]++
		}
		if _, ok := s["maxUnavailable"].(int64); ok {
			count["maxUnavailable int"]++
		}
		if o, ok := s["offset"].(int64); ok && o == 0 {
			count["offset 0"]++
		}
		if o, ok := s["offset"].(int64); ok && (o == 1<<63-1 || o == -1<<63) {
			count["offset extreme"]++
		}
	}
	t.Log(count)
	atLeast := func(key string, frac float64) {
		assert.GreaterOrEqual(t, count[key], int(frac*n), key)
	}
	atLeast("replicas absent", 0.3)
	atLeast("replicas 0", 0.05)
	atLeast("replicas 10", 0.03)
	atLeast("step 95 (exclusive maximum 100, multiple of 5)", 0.03)
	atLeast("ratio 1", 0.03)
	atLeast("ports empty", 0.1)
	atLeast("note null", 0.02)
	atLeast("note empty", 0.05)
	atLeast("maxUnavailable string", 0.1)
	atLeast("maxUnavailable int", 0.1)
	atLeast("offset 0", 0.1)
	atLeast("offset extreme", 0.005)
	atLeast("labels at the cap (3)", 0.01)
}

// TestFailingPropertyShrinksToTheMinimalSpec: a property that fails when a
// Widget has 3 replicas or more shrinks to the smallest such spec: the
// required fields at their smallest, replicas 3, nothing else.
func TestFailingPropertyShrinksToTheMinimalSpec(t *testing.T) {
	setSeed := quiettb.FixedSeeds(t)
	setSeed(1)
	w := version(t, loadAll(t), widget)
	specs, err := w.Specs(crd.GenOptions{})
	require.NoError(t, err)
	var last map[string]any
	tb := &quiettb.TB{}
	rapid.Check(tb, func(t *rapid.T) {
		s := specs.Draw(t, "spec")
		if r, ok := s["replicas"].(int64); ok && r >= 3 {
			last = s
			t.Fatalf("replicas %d", r)
		}
	})
	require.True(t, tb.Failed(), "no spec had 3 replicas or more")
	assert.Equal(t, map[string]any{"mode": "Fast", "name": "a--", "replicas": int64(3)}, last)
}

// TestFailingPropertyShrinksNestedLists: a failure that needs a port of
// 1000 or more shrinks to one port, its optional protocol absent, its
// name the shortest.
func TestFailingPropertyShrinksNestedLists(t *testing.T) {
	setSeed := quiettb.FixedSeeds(t)
	setSeed(1)
	w := version(t, loadAll(t), widget)
	specs, err := w.Specs(crd.GenOptions{})
	require.NoError(t, err)
	var last map[string]any
	tb := &quiettb.TB{}
	rapid.Check(tb, func(t *rapid.T) {
		s := specs.Draw(t, "spec")
		ports, _ := s["ports"].([]any)
		for _, p := range ports {
			if p.(map[string]any)["port"].(int64) >= 1000 {
				last = s
				t.Fatalf("port %v", p)
			}
		}
	})
	require.True(t, tb.Failed(), "no spec had a port of 1000 or more")
	assert.Equal(t, map[string]any{"mode": "Fast", "name": "a--",
		"ports": []any{map[string]any{"name": "a", "port": int64(1000)}}}, last)
}

// TestCELRulesAreFiltered: the Widget's CEL rules reject some candidates;
// the generator never returns one, and counts them by rule.
func TestCELRulesAreFiltered(t *testing.T) {
	w := version(t, loadAll(t), widget)
	stats := &crd.GenStats{}
	specs, err := w.Specs(crd.GenOptions{Stats: stats})
	require.NoError(t, err)
	for i := range 300 {
		s := specs.Example(i)
		if lo, ok := s["minReplicas"].(int64); ok {
			if hi, ok := s["maxReplicas"].(int64); ok {
				assert.LessOrEqual(t, lo, hi)
			}
		}
		if tags, ok := s["tags"].([]any); ok {
			assert.NotContains(t, tags, "blocked")
		}
	}
	assert.Equal(t, 300, stats.Specs)
	assert.Positive(t, stats.Rules["spec !has(self.minReplicas) || !has(self.maxReplicas) || self.minReplicas <= self.maxReplicas"], "%v", stats.Rules)
	t.Logf("rejected %d of %d candidates: %v", stats.Rejected, stats.Candidates, stats.Rules)
}

// TestFallbackIsTheMinimalSpec: with a rule almost nothing passes and one
// try, the generator falls back to the minimal spec.
func TestFallbackIsTheMinimalSpec(t *testing.T) {
	path := editedWidget(t, "            - rule: '!has(self.tags) || !(''blocked'' in self.tags)'",
		"            - rule: '!has(self.offset)'")
	crds, err := crd.Load(path)
	require.NoError(t, err)
	stats := &crd.GenStats{}
	specs, err := version(t, crds, widget).Specs(crd.GenOptions{Tries: 1, Stats: stats})
	require.NoError(t, err)
	minimal := 0
	for i := range 100 {
		s := specs.Example(i)
		assert.NotContains(t, s, "offset")
		if len(s) == 2 {
			minimal++
		}
	}
	assert.Positive(t, stats.Fallbacks)
	assert.GreaterOrEqual(t, minimal, stats.Fallbacks, "a fallback is the minimal spec: name and mode only")
	assert.Contains(t, stats.Rules, "spec !has(self.offset)")
}

func editedWidget(t *testing.T, from, to string) string {
	t.Helper()
	data, err := os.ReadFile("testdata/widgets.yaml")
	require.NoError(t, err)
	require.Contains(t, string(data), from)
	path := filepath.Join(t.TempDir(), "widgets.yaml")
	require.NoError(t, os.WriteFile(path, []byte(strings.Replace(string(data), from, to, 1)), 0o600))
	return path
}

// TestGeneratorErrors: a schema the generator cannot serve is an error
// naming the kind and the field.
func TestGeneratorErrors(t *testing.T) {
	for _, tc := range []struct{ name, from, to, want string }{
		{"no valid spec found", "            - rule: '!has(self.tags) || !(''blocked'' in self.tags)'",
			"            - rule: 'self.name == self.name + ''x'''",
			`is invalid and none of 256 candidates drawn is valid, so no fallback exists`},
		{"embedded resource", "              extra:\n                type: object\n",
			"              extra:\n                type: object\n                x-kubernetes-embedded-resource: true\n",
			"spec.extra: x-kubernetes-embedded-resource is not supported by the generator"},
		{"empty integer range", "                maximum: 100\n              ratio:", "                maximum: 0\n              ratio:",
			"spec.maxReplicas: no integer between minimum and maximum"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			crds, err := crd.Load(editedWidget(t, tc.from, tc.to))
			if err != nil {
				assert.ErrorContains(t, err, tc.want) // the API server refuses it first
				return
			}
			_, err = version(t, crds, widget).Specs(crd.GenOptions{})
			assert.ErrorContains(t, err, tc.want)
		})
	}
}

// labelsCRD embeds a pod template's metadata, as agent-sandbox's Sandbox
// and KubeRay's RayCluster do: maps of strings the CRD leaves free.
const labelsCRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: boxes.labels.example.com
spec:
  group: labels.example.com
  names: {kind: Box, listKind: BoxList, plural: boxes, singular: box}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [template]
            properties:
              template:
                type: object
                properties:
                  metadata:
                    type: object
                    properties:
                      labels: {type: object, additionalProperties: {type: string}}
                      annotations: {type: object, additionalProperties: {type: string}}
              labels: {type: object, additionalProperties: {type: string}}
              tags:
                type: object
                properties:
                  labels: {type: object, additionalProperties: {type: string, pattern: "^x+$"}}
`

// TestLabelValuesAreValidLabels: a map of strings named labels, which the
// CRD leaves free, draws values the API server admits in an object's
// labels, so that the children a controller labels with them are not
// refused; annotations and a pattern of the CRD's own are drawn as before.
func TestLabelValuesAreValidLabels(t *testing.T) {
	set := crd.NewSet()
	require.NoError(t, set.Add("boxes.yaml", []byte(labelsCRD)))
	v := version(t, set, schema.GroupVersionKind{Group: "labels.example.com", Version: "v1", Kind: "Box"})
	specs, err := v.Specs(crd.GenOptions{})
	require.NoError(t, err)
	labels, annotations, invalid := 0, 0, 0
	for i := range 300 {
		s := specs.Example(i)
		template, _ := s["template"].(map[string]any)
		metadata, _ := template["metadata"].(map[string]any)
		tags, _ := s["tags"].(map[string]any)
		for _, m := range []any{metadata["labels"], s["labels"]} {
			for k, val := range asMap(m) {
				labels++
				assert.Empty(t, validation.IsValidLabelValue(val.(string)), "label %s=%q", k, val)
			}
		}
		for _, val := range asMap(metadata["annotations"]) {
			annotations++
			if len(validation.IsValidLabelValue(val.(string))) > 0 {
				invalid++
			}
		}
		for _, val := range asMap(tags["labels"]) {
			assert.Regexp(t, "^x+$", val, "the CRD's own pattern")
		}
	}
	assert.Positive(t, labels)
	assert.Positive(t, invalid, "annotations (%d) keep any string", annotations)
}

func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}
