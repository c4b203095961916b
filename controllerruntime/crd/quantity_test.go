package crd_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/converge-sim/converge/controllerruntime/crd"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
)

var feed = schema.GroupVersionKind{Group: "sources.example.com", Version: "v1", Kind: "Feed"}

var rig = schema.GroupVersionKind{Group: "quantities.example.com", Version: "v1", Kind: "Rig"}

// quantities returns the quantities of a drawn Rig spec, as strings.
func quantities(t *testing.T, spec map[string]any) []string {
	t.Helper()
	var out []string
	add := func(v any) {
		switch v := v.(type) {
		case int64:
			out = append(out, strconv.FormatInt(v, 10))
		case string:
			out = append(out, v)
		default:
			t.Fatalf("a quantity of type %T: %v", v, v)
		}
	}
	add(spec["storage"])
	res, _ := spec["resources"].(map[string]any)
	for _, m := range []string{"limits", "requests"} {
		vals, _ := res[m].(map[string]any)
		for _, v := range vals {
			add(v)
		}
	}
	return out
}

// TestQuantitiesParse: every quantity drawn (the resource.Quantity shape
// controller-gen emits, as in KubeRay's CRD) parses with
// resource.ParseQuantity and is small: no exponent a parser would spend
// minutes expanding, no string the pattern admits and the parser
// refuses ("149400e60.7147"). Both kinds of value and several suffixes
// are drawn, and the smallest draw is the integer 0.
func TestQuantitiesParse(t *testing.T) {
	specs, err := version(t, loadAll(t), rig).Specs(crd.GenOptions{})
	require.NoError(t, err)
	limit := resource.MustParse("5000G")
	ints, suffixed := 0, map[string]bool{}
	for seed := range 500 {
		for _, s := range quantities(t, specs.Example(seed)) {
			q, err := resource.ParseQuantity(s)
			require.NoError(t, err, "seed %d: %q", seed, s)
			assert.LessOrEqual(t, q.Cmp(limit), 0, "seed %d: %q is not a realistic quantity", seed, s)
			assert.LessOrEqual(t, len(s), 8, "seed %d: %q", seed, s)
			if _, err := strconv.ParseInt(s, 10, 64); err == nil {
				ints++
			} else {
				suffixed[strings.TrimLeft(s, "0123456789.")] = true
			}
		}
	}
	assert.Positive(t, ints)
	assert.GreaterOrEqual(t, len(suffixed), 5, "%v", suffixed)
}

// TestOtherIntOrStringPatternsAreDrawnFromTheirRegex: an int-or-string
// whose pattern is not the quantity's ("^[0-9]+%?$", a percentage) keeps
// the regex's strings: percentages are drawn, none longer than
// MaxLength (12). Its integers fit the int32 of intstr.IntOrString, its Go
// type, edges included.
func TestOtherIntOrStringPatternsAreDrawnFromTheirRegex(t *testing.T) {
	specs, err := version(t, loadAll(t), rig).Specs(crd.GenOptions{})
	require.NoError(t, err)
	percents, ints := 0, 0
	for seed := range 300 {
		switch v := specs.Example(seed)["maxUnavailable"].(type) {
		case string:
			assert.LessOrEqual(t, len(v), 12, "seed %d: a pattern's string is at most MaxLength long", seed)
			if strings.HasSuffix(v, "%") {
				percents++
			}
		case int64:
			ints++
			var is intstr.IntOrString
			require.NoError(t, json.Unmarshal([]byte(strconv.FormatInt(v, 10)), &is), "seed %d", seed)
		}
	}
	assert.Positive(t, percents)
	assert.Positive(t, ints)
}
