package crd_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/converge-sim/converge/controllerruntime/crd"
	"github.com/converge-sim/converge/internal/quiettb"
	"github.com/converge-sim/converge/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// TestDeclaredFieldsAndPins: with Fields and Pin, a Widget's drawn specs
// carry only the listed fields, the required ones (at their minimal
// value) and the pinned ones (always, with the fields that hold them);
// every spec passes the CRD, created through the API server.
func TestDeclaredFieldsAndPins(t *testing.T) {
	crds := loadAll(t)
	w := version(t, crds, widget)
	stats := &crd.GenStats{}
	opts := crd.GenOptions{
		Fields: []string{"spec.replicas", "spec.ports[*].port"},
		Pin:    map[string]any{"spec.storage.options.readOnly": true, "spec.paused": false},
		Stats:  stats,
	}
	specs, err := w.Specs(opts)
	require.NoError(t, err)
	replicas, ports := map[any]bool{}, map[any]bool{}
	most := 0
	first := specs.Example(0)
	size := first["storage"].(map[string]any)["size"]
	for i := range 300 {
		s := specs.Example(i)
		for _, k := range keys(s) {
			assert.Contains(t, []string{"mode", "name", "paused", "ports", "replicas", "storage"}, k, "an unlisted field was drawn: %v", s)
		}
		assert.Equal(t, "Fast", s["mode"], "a required field not listed is at its minimal value")
		assert.Equal(t, first["name"], s["name"], "a required field not listed is at its minimal value, in every spec")
		assert.Equal(t, false, s["paused"], "pinned")
		assert.Equal(t, map[string]any{"size": size, "options": map[string]any{"readOnly": true}}, s["storage"],
			"a pin below optional fields makes them present; their required siblings are minimal, the others unset")
		if r, ok := s["replicas"]; ok {
			replicas[r] = true
		}
		ps, _ := s["ports"].([]any)
		most = max(most, len(ps))
		for _, p := range ps {
			p := p.(map[string]any)
			assert.Equal(t, []string{"name", "port"}, keys(p), "ports[*].protocol is not listed: %v", p)
			ports[p["port"]] = true
		}
	}
	assert.Greater(t, len(replicas), 3, "a listed field is drawn over its range")
	assert.Greater(t, len(ports), 3, "a listed field below a list is drawn over its range")
	assert.Greater(t, most, 1, "the key of a map list (name) is drawn, so that items can be distinct")
	assert.Zero(t, stats.Fallbacks)

	c := model.NewCluster(model.Config{})
	conv := converters(t, crds)["unstructured"]
	c.Server().AddAdmission(crds.Admission(conv, crd.Options{}))
	gen, err := w.SpecFields(conv, opts)
	require.NoError(t, err)
	n := 0
	rapid.Check(t, func(rt *rapid.T) {
		spec := gen.Draw(rt, "spec")
		n++
		require.Equal(rt, true, spec.Value("spec.storage.options.readOnly"))
		obj := &model.Object{Kind: widget.Kind, Namespace: "default", Name: fmt.Sprintf("w%d", n), Spec: spec}
		if err := c.Server().Create("user", obj); err != nil {
			rt.Fatalf("drawn spec rejected: %v\n%v", err, spec)
		}
	})
}

// TestWithoutFieldsEveryFieldIsDrawn: a pin alone narrows nothing else.
func TestWithoutFieldsEveryFieldIsDrawn(t *testing.T) {
	w := version(t, loadAll(t), widget)
	specs, err := w.Specs(crd.GenOptions{Pin: map[string]any{"spec.mode": "Safe"}})
	require.NoError(t, err)
	seen := map[string]bool{}
	for i := range 100 {
		s := specs.Example(i)
		assert.Equal(t, "Safe", s["mode"])
		for k := range s {
			seen[k] = true
		}
	}
	assert.Greater(t, len(seen), 15, "%v", seen)
}

// TestRangesHold: over many draws, every value of a narrowed field lies
// in its range (or is the CRD's default, which the API server sets when
// the field is absent anyway), and both ends are drawn.
func TestRangesHold(t *testing.T) {
	w := version(t, loadAll(t), widget)
	ranges := map[string]crd.Range{
		"spec.maxReplicas":   {Min: 20, Max: 30},
		"spec.replicas":      {Min: 3, Max: 5},
		"spec.ratio":         {Min: 0.25, Max: 0.5},
		"spec.ports[*].port": {Min: 8080, Max: 8089},
		"spec.step":          {Min: 10, Max: 20},
		"spec.offset":        {Min: -1, Max: 1},
	}
	specs, err := w.Specs(crd.GenOptions{Ranges: ranges})
	require.NoError(t, err)
	seen := map[string]map[float64]bool{}
	note := func(name string, v any) {
		var f float64
		switch v := v.(type) {
		case int64:
			f = float64(v)
		case float64:
			f = v
		default:
			t.Fatalf("%s: unexpected %T %v", name, v, v)
		}
		if seen[name] == nil {
			seen[name] = map[float64]bool{}
		}
		seen[name][f] = true
		r := ranges[name]
		if name == "spec.replicas" && f == 1 {
			return // the CRD's default
		}
		assert.True(t, r.Min <= f && f <= r.Max, "%s = %v is outside [%v, %v]", name, f, r.Min, r.Max)
	}
	for i := range 500 {
		s := specs.Example(i)
		for _, name := range []string{"maxReplicas", "replicas", "ratio", "step", "offset"} {
			if v, ok := s[name]; ok {
				note("spec."+name, v)
			}
		}
		ps, _ := s["ports"].([]any)
		for _, p := range ps {
			note("spec.ports[*].port", p.(map[string]any)["port"])
		}
	}
	for name, r := range ranges {
		assert.True(t, seen[name][r.Min], "%s never drew its minimum %v", name, r.Min)
		assert.True(t, seen[name][r.Max], "%s never drew its maximum %v", name, r.Max)
	}
	for v := range seen["spec.step"] {
		assert.Zero(t, int64(v)%5, "spec.step keeps the CRD's multipleOf 5: %v", v)
	}
}

// TestNarrowedEnumKeepsTheDefault: an enum narrowed to values that lack
// the CRD's default still draws the default, and every spec passes the
// CRD; a field without a default draws only the listed values.
func TestNarrowedEnumKeepsTheDefault(t *testing.T) {
	crds := loadAll(t)
	w := version(t, crds, widget)
	opts := crd.GenOptions{OneOf: map[string][]any{
		"spec.ports[*].protocol": {"UDP"},
		"spec.storage.class":     {"fast", "slow"},
		"spec.mode":              {"Safe"},
		"spec.replicas":          {4, 7},
	}}
	specs, err := w.Specs(opts)
	require.NoError(t, err)
	protocols, classes, replicas := map[any]bool{}, map[any]bool{}, map[any]bool{}
	for i := range 300 {
		s := specs.Example(i)
		assert.Equal(t, "Safe", s["mode"], "mode has no default: only the listed value")
		ps, _ := s["ports"].([]any)
		for _, p := range ps {
			if v, ok := p.(map[string]any)["protocol"]; ok {
				protocols[v] = true
			}
		}
		if st, ok := s["storage"].(map[string]any); ok {
			if v, ok := st["class"]; ok {
				classes[v] = true
			}
		}
		if v, ok := s["replicas"]; ok {
			replicas[v] = true
		}
	}
	assert.Equal(t, map[any]bool{"UDP": true, "TCP": true}, protocols, "the CRD's default TCP is in the narrowed enum")
	assert.Equal(t, map[any]bool{"fast": true, "slow": true, "standard": true}, classes)
	assert.Equal(t, map[any]bool{int64(4): true, int64(7): true, int64(1): true}, replicas)

	c := model.NewCluster(model.Config{})
	conv := converters(t, crds)["typed"]
	c.Server().AddAdmission(crds.Admission(conv, crd.Options{}))
	gen, err := w.SpecFields(conv, opts)
	require.NoError(t, err)
	for i := range 100 {
		obj := &model.Object{Kind: widget.Kind, Namespace: "default", Name: fmt.Sprintf("w%d", i), Spec: gen.Example(i)}
		require.NoError(t, c.Server().Create("user", obj), "%v", obj.Spec)
	}
}

// TestDeclaredSpaceErrors: a path, a value or a range the CRD's schema
// does not admit is refused when the generator is built, with an error
// that names the option, the path and why.
func TestDeclaredSpaceErrors(t *testing.T) {
	w := version(t, loadAll(t), widget)
	for _, tc := range []struct {
		name string
		opts crd.GenOptions
		want []string
	}{
		{"path without spec", crd.GenOptions{Fields: []string{"replicas"}},
			[]string{`Fields: path "replicas" does not start at the object's spec (write "spec.replicas")`}},
		{"status", crd.GenOptions{Pin: map[string]any{"status.ready": true}},
			[]string{`Pin: path "status.ready" is not in the spec, the only part of an object inputs draw`}},
		{"unknown field", crd.GenOptions{Fields: []string{"spec.storage.colour"}},
			[]string{`Fields "spec.storage.colour": spec.storage has no field "colour" in the CRD's schema`}},
		{"index", crd.GenOptions{Fields: []string{"spec.ports[0].port"}},
			[]string{`only [*] may stand for list items or map values`}},
		{"map key", crd.GenOptions{Pin: map[string]any{"spec.labels.app": "web"}},
			[]string{`Pin "spec.labels.app": spec.labels is a map: write spec.labels[*] for its values`}},
		{"star on a scalar", crd.GenOptions{Fields: []string{"spec.name[*]"}},
			[]string{`spec.name is neither a list nor a map`}},
		{"pin above the maximum", crd.GenOptions{Pin: map[string]any{"spec.replicas": 11}},
			[]string{`Pin "spec.replicas": the CRD's schema rejects the value 11`, "less than or equal to 10"}},
		{"pin outside the enum", crd.GenOptions{Pin: map[string]any{"spec.mode": "Slow"}},
			[]string{`Pin "spec.mode": the CRD's schema rejects the value "Slow"`}},
		{"pin of the wrong type", crd.GenOptions{Pin: map[string]any{"spec.paused": "yes"}},
			[]string{`Pin "spec.paused": the CRD's schema rejects the value "yes"`}},
		{"pin with an unknown field", crd.GenOptions{Pin: map[string]any{"spec.storage": map[string]any{"size": "1Gi", "colour": "red"}}},
			[]string{`Pin "spec.storage": the CRD's schema rejects the value`, `unknown field "colour"`}},
		{"pin a CEL rule rejects", crd.GenOptions{Pin: map[string]any{"spec.tags": []string{"blocked"}}},
			[]string{`the minimal spec`, `"tags":["blocked"]`, "the tag blocked is reserved"}},
		{"range beyond the CRD's", crd.GenOptions{Ranges: map[string]crd.Range{"spec.replicas": {Min: 0, Max: 11}}},
			[]string{`Ranges "spec.replicas": the range [0, 11] is not within the CRD's [0, 10]`}},
		{"range at an exclusive minimum", crd.GenOptions{Ranges: map[string]crd.Range{"spec.ratio": {Min: 0, Max: 0.5}}},
			[]string{`Ranges "spec.ratio": the range [0, 0.5] starts below the CRD's minimum 0 (exclusive)`}},
		{"range of an int32 past its format", crd.GenOptions{Ranges: map[string]crd.Range{"spec.minReplicas": {Min: 1, Max: 1 << 40}}},
			[]string{`is not within the CRD's [1, 2147483647]`}},
		{"fractional range of an integer", crd.GenOptions{Ranges: map[string]crd.Range{"spec.replicas": {Min: 2.5, Max: 4}}},
			[]string{`the field is an integer and the range [2.5, 4] has an end that is not`}},
		{"empty range", crd.GenOptions{Ranges: map[string]crd.Range{"spec.replicas": {Min: 5, Max: 3}}},
			[]string{`empty range [5, 3]`}},
		{"range of an enum", crd.GenOptions{Ranges: map[string]crd.Range{"spec.mode": {Min: 0, Max: 1}}},
			[]string{`the field has an enum in the CRD: narrow it with OneOf`}},
		{"range of a string", crd.GenOptions{Ranges: map[string]crd.Range{"spec.name": {Min: 0, Max: 1}}},
			[]string{`a range needs an integer or number field, and the field is string`}},
		{"range without a multiple", crd.GenOptions{Ranges: map[string]crd.Range{"spec.step": {Min: 1, Max: 4}}},
			[]string{`spec.step: no multiple of 5 between minimum and maximum`}},
		{"enum value the CRD rejects", crd.GenOptions{OneOf: map[string][]any{"spec.mode": {"Safe", "Slow"}}},
			[]string{`OneOf "spec.mode": the CRD's schema rejects the value "Slow"`}},
		{"enum of a list", crd.GenOptions{OneOf: map[string][]any{"spec.ports": {[]any{}}}},
			[]string{`OneOf "spec.ports": OneOf narrows scalar fields`}},
		{"empty enum", crd.GenOptions{OneOf: map[string][]any{"spec.mode": {}}},
			[]string{`OneOf "spec.mode": no values`}},
		{"two constraints", crd.GenOptions{Pin: map[string]any{"spec.replicas": 2}, Ranges: map[string]crd.Range{"spec.replicas": {Min: 1, Max: 3}}},
			[]string{`spec.replicas has more than one of Pin, Ranges and OneOf`}},
		{"constraint inside a pin", crd.GenOptions{Pin: map[string]any{"spec.storage": map[string]any{"size": "1Gi"}}, OneOf: map[string][]any{"spec.storage.class": {"fast"}}},
			[]string{`spec.storage.class is inside a pinned field`}},
		{"every error at once", crd.GenOptions{Fields: []string{"spec.nope"}, Pin: map[string]any{"spec.replicas": -1}},
			[]string{`Fields "spec.nope"`, `Pin "spec.replicas"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := w.Specs(tc.opts)
			require.Error(t, err)
			assert.Contains(t, err.Error(), "gen.example.com/v1, Kind=Widget")
			for _, want := range tc.want {
				assert.Contains(t, err.Error(), want)
			}
		})
	}
}

// TestDeclaredSpaceShrinks: a failure inside a declared space shrinks to
// its smallest spec, pins included.
func TestDeclaredSpaceShrinks(t *testing.T) {
	w := version(t, loadAll(t), widget)
	specs, err := w.Specs(crd.GenOptions{
		Fields: []string{"spec.replicas"},
		Pin:    map[string]any{"spec.paused": true},
		Ranges: map[string]crd.Range{"spec.replicas": {Min: 2, Max: 9}},
	})
	require.NoError(t, err)
	setSeed := quiettb.FixedSeeds(t)
	setSeed(1)
	var last map[string]any
	tb := &quiettb.TB{}
	rapid.Check(tb, func(t *rapid.T) {
		s := specs.Draw(t, "spec")
		if r, ok := s["replicas"].(int64); ok && r >= 4 {
			last = s
			t.Fatalf("replicas %d", r)
		}
	})
	require.True(t, tb.Failed())
	assert.Equal(t, map[string]any{"mode": "Fast", "name": specs.Example(0)["name"], "paused": true, "replicas": int64(4)}, last)
}
