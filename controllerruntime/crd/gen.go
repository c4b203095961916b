package crd

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/netip"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/converge-sim/converge/draw"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apimachinery/pkg/runtime"
	"pgregory.net/rapid"
)

// GenOptions configures the spec generators of a Version.
type GenOptions struct {
	// MaxItems bounds the arrays and maps whose schema sets no maxItems or
	// maxProperties: at most MaxItems more than their minimum; default 3.
	MaxItems int
	// MaxLength bounds the strings whose schema sets no maxLength: at most
	// MaxLength runes more than their minLength; default 12.
	MaxLength int
	// Tries is how many candidate specs one draw generates until the API
	// server's validation admits one, before it falls back to the minimal
	// spec; default 16.
	Tries int
	// Stats, when set, counts the candidates and the rejections.
	Stats *GenStats

	// The declared input space: which fields to draw and which values,
	// narrower than the CRD's schema (space.go). Paths start at the
	// object, as the CRD's schema and the oracle's reports spell them:
	// "spec.size", "spec.config.level"; "[*]" stands for the items of a
	// list or the values of a map ("spec.ports[*].port",
	// "spec.labels[*]"). Every path and value is checked against the
	// schema when the generator is built: an unknown path, a value the
	// schema rejects or a range outside the CRD's bounds is an error
	// that names it. Drawn specs still pass the CRD's validation.

	// Fields lists the fields to draw; a field below a listed one is
	// drawn too, and a field that Ranges or OneOf names is drawn as if
	// listed, so that Ranges or OneOf alone name the fields drawn. Of
	// the others, a required field is drawn at its minimal value (its
	// default, or its smallest) so that the spec passes the CRD, and an
	// optional one is left unset, so that the API server's default
	// applies; the keys of a map list whose items are drawn are drawn
	// too, so that the items can differ. When none of Fields, Ranges and
	// OneOf names a field (no option, or Pin alone), every field is
	// drawn.
	Fields []string
	// Pin fixes fields: every drawn spec carries the value (and so the
	// fields that hold it). A value is JSON, as a client sends it: Go
	// numbers, strings, booleans, maps and slices, or anything
	// encoding/json marshals.
	Pin map[string]any
	// Ranges narrows integer and number fields to [Min, Max], which must
	// lie within the CRD's bounds. The CRD's default stays possible: the
	// API server sets it whenever the field is absent.
	Ranges map[string]Range
	// OneOf narrows a scalar field (a string, an enum, an integer) to a
	// list of values, each of which the CRD's schema must admit. The
	// CRD's default of the field is added when the list lacks it: the API
	// server sets it whenever the field is absent, so it is in the space
	// whatever the list says.
	OneOf map[string][]any
	// Target is the object the drawn specs start from, such as the
	// sample the operator ships: a typed object, an unstructured one, or
	// anything encoding/json marshals to an object with a spec. With a
	// Target, the fields Fields, Ranges and OneOf name are drawn, Pin
	// fixes its fields, and every other field keeps the target's value:
	// a user starts from the sample and draws only what they name. A
	// field the target lacks is as without a Target (its minimal value
	// when required, else unset). A list that holds named fields
	// ("spec.groups[*].replicas") is drawn in length, item i merged with
	// the target's item i and the items past the target's length with
	// its last item; in a keyed list (a map list's keys, else a string
	// "name" of its items, or one named after the list, as "groupName"
	// of "workerGroupSpecs") such items get distinct keys ("workers-2"),
	// or, with no string key to make distinct, are left out, so that
	// the list keeps the target's length. The target's spec must pass
	// the CRD; fields it does not declare are pruned. A Target with no
	// field named is an error: every spec would be the same.
	Target any
}

// GenStats counts what a spec generator drew: the rejection rate of its
// candidates (by CEL rules and the schema constraints it does not satisfy
// by construction) is Rejected/Candidates.
type GenStats struct {
	// Specs is the number of specs the generator returned.
	Specs int
	// Candidates is the number of candidate specs it drew and validated.
	Candidates int
	// Rejected is the number of candidates validation rejected.
	Rejected int
	// Fallbacks is the number of specs that are a fallback (the minimal
	// spec, or one of the valid specs a search found when the minimal
	// spec is invalid) because Tries candidates in a row were rejected.
	Fallbacks int
	// Rules counts the rejections by the rule (or field error) that
	// rejected them, first error of each candidate.
	Rules map[string]int
}

// genOptions is GenOptions with its defaults applied.
func (o GenOptions) withDefaults() GenOptions {
	if o.MaxItems <= 0 {
		o.MaxItems = 3
	}
	if o.MaxLength <= 0 {
		o.MaxLength = 12
	}
	if o.Tries <= 0 {
		o.Tries = 16
	}
	return o
}

// Specs returns a rapid generator of the version's spec, as the JSON a
// client sends (map[string]any of int64, float64, string, bool, nil,
// []any and map[string]any), valid for a create.
//
// Values are built from the version's structural schema: every type,
// enum, minimum and maximum (exclusive too), multipleOf for integers,
// pattern (rapid.StringMatching, at most MaxLength runes past minLength
// when a draw of a few finds one), minLength and maxLength, minItems and
// maxItems, list-type set and map items kept distinct, required
// properties, defaults, nullable, x-kubernetes-int-or-string (its
// integers within int32 unless its format says otherwise, as
// intstr.IntOrString holds them), resource.Quantity fields (an int-or-string with the quantity pattern:
// small integers, decimals with one digit and everyday suffixes, every
// one of which resource.ParseQuantity parses at once; quantity.go),
// additionalProperties maps, nested objects and the string formats the
// API server checks (date-time, date, duration, byte, uuid, hostname,
// ipv4, ipv6, cidr, mac, email, uri). Under
// x-kubernetes-preserve-unknown-fields only declared properties are
// generated. Edge values are drawn on purpose, about half of the time:
// an optional field absent, zero, the empty or shortest string, the
// longest, the minimum and maximum, the default, null for an optional
// nullable field. rapid shrinks toward the smallest spec: optional fields
// absent, numbers nearest zero, short strings, short lists, the first
// enum value; a failure that needs a value past an edge shrinks to the
// smallest such value, not to the edge.
//
// What the schema cannot say by construction — CEL rules
// (x-kubernetes-validations), allOf, anyOf, oneOf, not, minProperties,
// a format against a length — is enforced by filtering: each candidate
// goes through the API server's own validation of a create (the strategy
// the Set's Admission runs: pruning, defaulting, schema and CEL); after
// opts.Tries rejected candidates in a row the draw returns a fallback
// spec: the minimal spec (required fields only, each at its default or
// first edge value) when the CRD admits it, else one of the valid specs
// among 256 candidates drawn with fixed seeds, shrinking to the smallest
// (a CEL rule that asks for one of several fields breaks the minimal
// spec; fallback.go).
// Transition rules (oldSelf) do not apply to a create and are not checked:
// a sequence of specs applied as updates may break them.
// With a declared input space (GenOptions.Fields, Pin, Ranges, OneOf),
// candidates are drawn from the schema narrowed to it and validated
// against the CRD's own; the minimal spec is the narrowed schema's, pins
// included.
// Specs returns an error when the version has no spec, when the schema
// has an embedded resource, when the declared space does not fit the
// schema, or when no fallback exists (neither the minimal spec nor any
// of the candidates searched is valid).
//
// The generator draws only from rapid: it is deterministic and shrinks.
func (v *Version) Specs(opts GenOptions) (*rapid.Generator[map[string]any], error) {
	opts = opts.withDefaults()
	s, ok := v.structural.Properties["spec"]
	if !ok {
		return nil, fmt.Errorf("crd: %s has no spec in its schema", v.GVK)
	}
	b := &genBuilder{opts: opts}
	var tgt map[string]any
	var tree *spaceNode
	crdSpec := s
	if opts.Target != nil {
		var err error
		if tgt, err = v.targetSpec(opts); err != nil {
			return nil, fmt.Errorf("crd: %s: declared input space: Target: %w", v.GVK, err)
		}
	}
	if opts.declared() {
		var err error
		tree, err = space(&s, opts)
		if err != nil {
			return nil, fmt.Errorf("crd: %s: declared input space: %w", v.GVK, err)
		}
		narrowed, err := b.narrow(&s, tree, opts.names(), tgt)
		if err != nil {
			return nil, fmt.Errorf("crd: %s: %w", v.GVK, err)
		}
		s = *narrowed
	}
	raw, err := b.node(&s, "spec")
	if err != nil {
		return nil, fmt.Errorf("crd: %s: %w", v.GVK, err)
	}
	smallest, err := b.minimal(&s, "spec")
	if err != nil {
		return nil, fmt.Errorf("crd: %s: %w", v.GVK, err)
	}
	if tgt != nil {
		// Undeclared fields keep the target's value (target.go).
		merge := func(drawn any) any { return keep(tree, &crdSpec, "spec", tgt, asObject(drawn)) }
		raw = rapid.Map(raw, merge)
		smallest = merge(smallest)
	}
	fallbacks, err := v.fallbacks(raw, asObject(smallest))
	if err != nil {
		return nil, fmt.Errorf("crd: %s: %w", v.GVK, err)
	}
	stats := opts.Stats
	return rapid.Custom(func(t *rapid.T) map[string]any {
		for range opts.Tries {
			spec := asObject(raw.Draw(t, "spec"))
			errs := v.validateSpec(spec)
			if stats != nil {
				stats.Candidates++
			}
			if len(errs) == 0 {
				if stats != nil {
					stats.Specs++
				}
				return spec
			}
			if stats != nil {
				stats.Rejected++
				if stats.Rules == nil {
					stats.Rules = map[string]int{}
				}
				why := v.rule(errs[0])
				if why == "" {
					why = errs[0].Field + ": " + string(errs[0].Type)
				}
				stats.Rules[errs[0].Field+" "+why]++
			}
		}
		if stats != nil {
			stats.Specs++
			stats.Fallbacks++
		}
		if len(fallbacks) == 1 {
			return copyObject(fallbacks[0])
		}
		return copyObject(fallbacks[rapid.IntRange(0, len(fallbacks)-1).Draw(t, "fallback")])
	}), nil
}

// asObject returns a generated object value as a map; a nil spec (an
// optional nullable spec) is the empty one.
func asObject(v any) map[string]any {
	m, _ := v.(map[string]any)
	if m == nil {
		return map[string]any{}
	}
	return m
}

// copyJSON returns a copy of a JSON value that shares no map or slice
// with it.
func copyJSON(v any) any {
	switch v.(type) {
	case map[string]any, []any:
		return runtime.DeepCopyJSONValue(v)
	}
	return v
}

func copyObject(m map[string]any) map[string]any {
	return runtime.DeepCopyJSON(m)
}

func jsonString(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(data)
}

// genBuilder builds the generator of a schema node and its minimal value.
type genBuilder struct {
	opts GenOptions
}

// node returns the generator of values of s, at path (for errors).
func (b *genBuilder) node(s *structuralschema.Structural, path string) (*rapid.Generator[any], error) {
	if s.XEmbeddedResource {
		return nil, fmt.Errorf("%s: x-kubernetes-embedded-resource is not supported by the generator", path)
	}
	vv := s.ValueValidation
	if vv == nil {
		vv = &structuralschema.ValueValidation{}
	}
	if len(vv.Enum) > 0 {
		vals := make([]any, len(vv.Enum))
		for i, e := range vv.Enum {
			vals[i] = e.Object
		}
		return rapid.Map(rapid.SampledFrom(vals), copyJSON), nil
	}
	var g *rapid.Generator[any]
	switch {
	case s.XIntOrString && isQuantity(s):
		g = quantity
	case s.XIntOrString:
		// intstr.IntOrString, the Go type of such a field, holds an
		// int32: wider integers would pass the CRD and not decode.
		ivv := *vv
		if ivv.Format == "" {
			ivv.Format = "int32"
		}
		ints, err := b.integer(&ivv, path)
		if err != nil {
			return nil, err
		}
		strs, err := b.str(vv, path)
		if err != nil {
			return nil, err
		}
		g = rapid.OneOf(ints, strs)
	case s.Type == "object":
		var err error
		if g, err = b.object(s, path); err != nil {
			return nil, err
		}
	case s.Type == "array":
		var err error
		if g, err = b.array(s, path); err != nil {
			return nil, err
		}
	case s.Type == "string":
		var err error
		if g, err = b.str(vv, path); err != nil {
			return nil, err
		}
	case s.Type == "integer":
		var err error
		if g, err = b.integer(vv, path); err != nil {
			return nil, err
		}
	case s.Type == "number":
		var err error
		if g, err = b.number(vv, path); err != nil {
			return nil, err
		}
	case s.Type == "boolean":
		g = rapid.Bool().AsAny()
	case s.Type == "" && s.XPreserveUnknownFields:
		// Any value goes: the smallest is an empty object.
		g = emptyObject
	default:
		return nil, fmt.Errorf("%s: type %q is not supported by the generator", path, s.Type)
	}
	if d := s.Default.Object; d != nil {
		g = rapid.OneOf(g, rapid.Map(rapid.Just(d), runtime.DeepCopyJSONValue))
	}
	return g, nil
}

// edged draws a value v of g and, half of the time (a first coin; false
// shrinks first), returns instead the edge nearest v (the first of equals):
// edge values come often, not by luck. Both halves read the same data,
// and v stays near the edge it stands for, so that shrinking can trade an
// edge for a plain value that still fails and then shrink it: a property
// that fails from 3 replicas up, in [0, 10], shrinks to 3, not to the
// maximum. The first edge is g's smallest value (nearest zero).
func edged[V any](edges []V, g *rapid.Generator[V], dist func(a, b V) float64) *rapid.Generator[any] {
	return rapid.Custom(func(t *rapid.T) any {
		edge := rapid.Bool().Draw(t, "edge")
		v := g.Draw(t, "value")
		if !edge || len(edges) == 0 {
			return v
		}
		best := edges[0]
		for _, e := range edges[1:] {
			if dist(v, e) < dist(v, best) {
				best = e
			}
		}
		return best
	})
}

func intDist(a, b int64) float64 { return math.Abs(float64(a) - float64(b)) }

func (b *genBuilder) object(s *structuralschema.Structural, path string) (*rapid.Generator[any], error) {
	required := map[string]bool{}
	if s.ValueValidation != nil {
		for _, r := range s.ValueValidation.Required {
			required[r] = true
		}
	}
	type prop struct {
		name     string
		gen      *rapid.Generator[any]
		required bool
		nullable bool
	}
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	slices.Sort(names)
	props := make([]prop, 0, len(names))
	for _, n := range names {
		p := s.Properties[n]
		g, err := b.node(&p, path+"."+n)
		if err != nil {
			return nil, err
		}
		props = append(props, prop{name: n, gen: g, required: required[n], nullable: p.Nullable})
	}
	for r := range required {
		if _, ok := s.Properties[r]; !ok && !s.XPreserveUnknownFields && s.AdditionalProperties == nil {
			return nil, fmt.Errorf("%s: required property %q has no schema", path, r)
		}
	}
	var extra *rapid.Generator[map[string]any]
	if ap := s.AdditionalProperties; ap != nil && ap.Structural != nil && len(s.Properties) == 0 {
		val, err := b.node(ap.Structural, path+"[*]")
		if err != nil {
			return nil, err
		}
		if labelValues(path, ap.Structural) {
			val = labelValue
		}
		lo, hi := b.bounds(s.ValueValidation, func(vv *structuralschema.ValueValidation) (*int64, *int64) {
			return vv.MinProperties, vv.MaxProperties
		})
		keys := rapid.StringMatching(`[a-z][a-z0-9]{0,5}`)
		extra = rapid.MapOfN(keys, val, lo, hi)
	}
	if len(props) == 0 && extra == nil {
		return emptyObject, nil
	}
	return rapid.Custom(func(t *rapid.T) any {
		out := map[string]any{}
		for _, p := range props {
			if !p.required {
				// false, absent, first: shrinking removes optional fields.
				if !rapid.Bool().Draw(t, path+"."+p.name+"?") {
					continue
				}
				if p.nullable && rapid.IntRange(0, 7).Draw(t, path+"."+p.name+" null?") == 7 {
					out[p.name] = nil
					continue
				}
			}
			out[p.name] = p.gen.Draw(t, path+"."+p.name)
		}
		if extra != nil {
			for k, v := range extra.Draw(t, path+"[*]") {
				out[k] = v
			}
		}
		return out
	}), nil
}

// labelValues reports whether the map at path, of values s, holds the
// labels of an object a controller makes from it (a pod template's
// "metadata.labels", KubeRay's "labels" of a group): a map of strings
// named labels, whose values the CRD leaves free. The API server checks
// the labels of every object it stores, so values it would refuse would
// only make every child of the spec refused (issue 35, believable
// witnesses): such a map draws label values instead.
func labelValues(path string, s *structuralschema.Structural) bool {
	if s.Type != "string" || (path != "labels" && !strings.HasSuffix(path, ".labels")) {
		return false
	}
	vv := s.ValueValidation
	return vv == nil || (vv.Pattern == "" && vv.Format == "" && len(vv.Enum) == 0 && vv.MinLength == nil && vv.MaxLength == nil)
}

// labelValue draws a label value the API server admits (empty, or
// letters, digits, '-', '_' and '.' between alphanumerics), short, the
// empty value first.
var labelValue = rapid.Map(rapid.StringMatching(`([a-z0-9]([-a-z0-9_.]{0,6}[a-z0-9])?)?`), func(s string) any { return s })

// emptyObject generates a new empty object each time.
var emptyObject = rapid.Map(rapid.Just(0), func(int) any { return map[string]any{} })

// bounds returns the size range of an array or map: from its minimum to
// its maximum, or MaxItems past its minimum.
func (b *genBuilder) bounds(vv *structuralschema.ValueValidation, get func(*structuralschema.ValueValidation) (*int64, *int64)) (int, int) {
	lo, hi := 0, -1
	if vv != nil {
		min, max := get(vv)
		if min != nil {
			lo = int(*min)
		}
		if max != nil {
			hi = int(*max)
		}
	}
	if hi < 0 || hi > lo+b.opts.MaxItems {
		hi = lo + b.opts.MaxItems
	}
	return lo, hi
}

func (b *genBuilder) array(s *structuralschema.Structural, path string) (*rapid.Generator[any], error) {
	if s.Items == nil {
		return nil, fmt.Errorf("%s: array without items", path)
	}
	item, err := b.node(s.Items, path+"[*]")
	if err != nil {
		return nil, err
	}
	lo, hi := b.bounds(s.ValueValidation, func(vv *structuralschema.ValueValidation) (*int64, *int64) {
		return vv.MinItems, vv.MaxItems
	})
	var key func(any) string
	switch {
	case s.XListType != nil && *s.XListType == "set":
		key = jsonString
	case s.XListType != nil && *s.XListType == "map":
		keys := s.XListMapKeys
		key = func(v any) string {
			m, _ := v.(map[string]any)
			k := make([]any, len(keys))
			for i, n := range keys {
				k[i] = m[n]
			}
			return jsonString(k)
		}
	}
	var g *rapid.Generator[[]any]
	if key != nil {
		g = rapid.SliceOfNDistinct(item, lo, hi, key)
	} else {
		g = rapid.SliceOfN(item, lo, hi)
	}
	return rapid.Map(g, func(xs []any) any { return xs }), nil
}

// intRange returns the integers vv allows, within the range of its format.
func intRange(vv *structuralschema.ValueValidation, path string) (int64, int64, error) {
	lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
	if vv.Format == "int32" {
		lo, hi = math.MinInt32, math.MaxInt32
	}
	if vv.Minimum != nil {
		m := math.Ceil(*vv.Minimum)
		if vv.ExclusiveMinimum && m == *vv.Minimum {
			m++
		}
		if m > float64(lo) {
			lo = int64(m)
		}
	}
	if vv.Maximum != nil {
		m := math.Floor(*vv.Maximum)
		if vv.ExclusiveMaximum && m == *vv.Maximum {
			m--
		}
		if m < float64(hi) {
			hi = int64(m)
		}
	}
	if lo > hi {
		return 0, 0, fmt.Errorf("%s: no integer between minimum and maximum", path)
	}
	return lo, hi, nil
}

// nearZero returns the value of [lo, hi] nearest zero.
func nearZero(lo, hi int64) int64 {
	switch {
	case lo > 0:
		return lo
	case hi < 0:
		return hi
	}
	return 0
}

func (b *genBuilder) integer(vv *structuralschema.ValueValidation, path string) (*rapid.Generator[any], error) {
	lo, hi, err := intRange(vv, path)
	if err != nil {
		return nil, err
	}
	step := int64(1)
	if vv.MultipleOf != nil {
		if m := *vv.MultipleOf; m >= 1 && m == math.Trunc(m) {
			step = int64(m)
		} else {
			return nil, fmt.Errorf("%s: multipleOf %v of an integer is not supported by the generator", path, m)
		}
	}
	if step > 1 {
		// Multiples k·step with k in [ceil(lo/step), floor(hi/step)].
		klo, khi := ceilDiv(lo, step), floorDiv(hi, step)
		if klo > khi {
			return nil, fmt.Errorf("%s: no multiple of %d between minimum and maximum", path, step)
		}
		edges := uniq(nearZero(klo, khi)*step, klo*step, khi*step)
		multiples := rapid.Map(draw.Int64Range(klo, khi), func(k int64) int64 { return k * step })
		return edged(edges, multiples, intDist), nil
	}
	z := nearZero(lo, hi)
	return edged(uniq(z, lo, hi), draw.Int64Range(lo, hi), intDist), nil
}

func ceilDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a > 0 {
		q++
	}
	return q
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

// uniq returns xs without repeats, in order.
func uniq[E comparable](xs ...E) []E {
	var out []E
	seen := map[E]bool{}
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// numberSpan bounds numbers whose schema sets no minimum or maximum.
const numberSpan = 1e9

func (b *genBuilder) number(vv *structuralschema.ValueValidation, path string) (*rapid.Generator[any], error) {
	lo, hi := -numberSpan, numberSpan
	if vv.Minimum != nil {
		lo = *vv.Minimum
		if vv.ExclusiveMinimum {
			lo = math.Nextafter(lo, math.Inf(1))
		}
	}
	if vv.Maximum != nil {
		hi = *vv.Maximum
		if vv.ExclusiveMaximum {
			hi = math.Nextafter(hi, math.Inf(-1))
		}
	}
	if lo > hi {
		return nil, fmt.Errorf("%s: no number between minimum and maximum", path)
	}
	z := 0.0
	switch {
	case lo > 0:
		z = lo
	case hi < 0:
		z = hi
	}
	edges := uniq(z, lo, hi)
	return edged(edges, rapid.Float64Range(lo, hi), func(a, b float64) float64 { return math.Abs(a - b) }), nil
}

// formats generates the string formats the API server checks.
var formats = map[string]*rapid.Generator[string]{
	"date-time": rapid.Map(rapid.Int64Range(0, 4102444800), func(s int64) string {
		return time.Unix(s, 0).UTC().Format(time.RFC3339)
	}),
	"date": rapid.Map(rapid.Int64Range(0, 4102444800), func(s int64) string {
		return time.Unix(s, 0).UTC().Format(time.DateOnly)
	}),
	"duration": rapid.Map(rapid.Int64Range(0, 1e6), func(s int64) string { return strconv.FormatInt(s, 10) + "s" }),
	"byte": rapid.Map(rapid.SliceOfN(rapid.Byte(), 1, 12), func(b []byte) string {
		return base64.StdEncoding.EncodeToString(b)
	}),
	"uuid":  uuid(-1),
	"uuid3": uuid(3),
	"uuid4": uuid(4),
	"uuid5": uuid(5),
	// One label of letters and digits, or labels ending in a top-level
	// label of letters, as the API server's hostname format wants.
	"hostname": rapid.StringMatching(`^([a-z][a-z0-9]{0,6}|([a-z]([a-z0-9-]{0,6}[a-z0-9])?\.){1,2}[a-z]{2,6})$`),
	"ipv4": rapid.Map(rapid.SliceOfN(rapid.Byte(), 4, 4), func(b []byte) string {
		return netip.AddrFrom4([4]byte(b)).String()
	}),
	"ipv6": rapid.Map(rapid.SliceOfN(rapid.Byte(), 16, 16), func(b []byte) string {
		return netip.AddrFrom16([16]byte(b)).String()
	}),
	"cidr": rapid.Custom(func(t *rapid.T) string {
		a := netip.AddrFrom4([4]byte(rapid.SliceOfN(rapid.Byte(), 4, 4).Draw(t, "addr")))
		return a.String() + "/" + strconv.Itoa(rapid.IntRange(0, 32).Draw(t, "bits"))
	}),
	"mac": rapid.Map(rapid.SliceOfN(rapid.Byte(), 6, 6), func(b []byte) string {
		parts := make([]string, len(b))
		for i, x := range b {
			parts[i] = fmt.Sprintf("%02x", x)
		}
		return strings.Join(parts, ":")
	}),
	"email": rapid.StringMatching(`[a-z]{1,8}@[a-z]{1,8}\.test`),
	"uri":   rapid.StringMatching(`https://[a-z]{1,8}\.test(/[a-z0-9]{1,6}){0,2}`),
}

// uuid generates UUIDs of a version (any version for -1).
func uuid(version int) *rapid.Generator[string] {
	return rapid.Map(rapid.SliceOfN(rapid.Byte(), 16, 16), func(b []byte) string {
		if version >= 0 {
			b[6] = b[6]&0x0f | byte(version)<<4
			b[8] = b[8]&0x3f | 0x80
		}
		return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
	})
}

// alphabet is what strings without a pattern or format are made of: mostly
// letters and digits (the first shrinks to "a"), and any rune sometimes.
var alphabet = rapid.OneOf(rapid.RuneFrom([]rune("abcdefghijklmnopqrstuvwxyz0123456789-._")), rapid.Rune())

func (b *genBuilder) lengths(vv *structuralschema.ValueValidation) (int, int) {
	lo, hi := 0, -1
	if vv.MinLength != nil {
		lo = int(*vv.MinLength)
	}
	if vv.MaxLength != nil {
		hi = int(*vv.MaxLength)
	}
	if hi < 0 || hi > lo+b.opts.MaxLength {
		hi = lo + b.opts.MaxLength
	}
	return lo, hi
}

// patternTries is how many strings matching a pattern a draw makes to
// find one of the lengths the schema allows too.
const patternTries = 12

// outside returns how far n lies outside [lo, hi], 0 within.
func outside(n, lo, hi int) int {
	switch {
	case n < lo:
		return lo - n
	case n > hi:
		return n - hi
	}
	return 0
}

func (b *genBuilder) str(vv *structuralschema.ValueValidation, path string) (*rapid.Generator[any], error) {
	lo, hi := b.lengths(vv)
	if vv.MaxLength != nil && int(*vv.MaxLength) < lo {
		return nil, fmt.Errorf("%s: maxLength is below minLength", path)
	}
	if vv.Pattern != "" {
		if _, err := regexp.Compile(vv.Pattern); err != nil {
			return nil, fmt.Errorf("%s: pattern: %w", path, err)
		}
		matching := rapid.StringMatching(vv.Pattern)
		// A pattern and a length: tries to match both, the length bounded
		// by MaxLength past minLength as for other strings, else keeps
		// the drawn string nearest that range and lets validation decide.
		// The bound keeps out the long runs of a regex's repetitions.
		return rapid.Custom(func(t *rapid.T) any {
			var best string
			bestOff := -1
			for range patternTries {
				s := matching.Draw(t, path)
				off := outside(utf8.RuneCountInString(s), lo, hi)
				if off == 0 {
					return s
				}
				if bestOff < 0 || off < bestOff {
					best, bestOff = s, off
				}
			}
			return best
		}), nil
	}
	if f, ok := formats[vv.Format]; ok {
		return rapid.Map(f, func(s string) any { return s }), nil
	}
	edges := []string{strings.Repeat("a", lo)}
	if vv.MaxLength != nil && hi <= lo+b.opts.MaxLength {
		edges = append(edges, strings.Repeat("z", hi))
	}
	return edged(uniq(edges...), rapid.StringOfN(alphabet, lo, hi, -1), func(a, b string) float64 {
		return math.Abs(float64(utf8.RuneCountInString(a) - utf8.RuneCountInString(b)))
	}), nil
}

// minimal returns a small value of s, for the fallback spec: its default;
// an object of its required properties only, each minimal; its first enum
// value; the shortest string (a fixed one for a pattern or a format); for
// a number and for a list with minItems, the first example of its
// generator (an edge such as the minimum, or a short list), not a computed
// minimum.
func (b *genBuilder) minimal(s *structuralschema.Structural, path string) (any, error) {
	if s.Default.Object != nil {
		return runtime.DeepCopyJSONValue(s.Default.Object), nil
	}
	vv := s.ValueValidation
	if vv == nil {
		vv = &structuralschema.ValueValidation{}
	}
	if len(vv.Enum) > 0 {
		return vv.Enum[0].Object, nil
	}
	switch {
	case s.XIntOrString, s.Type == "integer":
		lo, hi, err := intRange(vv, path)
		if err != nil {
			return nil, err
		}
		if vv.MultipleOf != nil && *vv.MultipleOf >= 1 {
			m := int64(*vv.MultipleOf)
			return nearZero(ceilDiv(lo, m), floorDiv(hi, m)) * m, nil
		}
		return nearZero(lo, hi), nil
	case s.Type == "number":
		g, err := b.number(vv, path)
		if err != nil {
			return nil, err
		}
		return g.Example(0), nil
	case s.Type == "string":
		if vv.Pattern != "" || formats[vv.Format] != nil {
			g, err := b.str(vv, path)
			if err != nil {
				return nil, err
			}
			return g.Example(0), nil
		}
		lo, _ := b.lengths(vv)
		return strings.Repeat("a", lo), nil
	case s.Type == "boolean":
		return false, nil
	case s.Type == "array":
		if vv.MinItems != nil && *vv.MinItems > 0 {
			if s.Items == nil {
				return nil, fmt.Errorf("%s: array without items", path)
			}
			// Distinct items (a set, a map list) cannot all be minimal.
			g, err := b.array(s, path)
			if err != nil {
				return nil, err
			}
			return g.Example(0), nil
		}
		return []any{}, nil
	case s.Type == "object", s.XPreserveUnknownFields:
		out := map[string]any{}
		if vv.Required == nil {
			return out, nil
		}
		for _, r := range vv.Required {
			p, ok := s.Properties[r]
			if !ok {
				return nil, fmt.Errorf("%s: required property %q has no schema", path, r)
			}
			v, err := b.minimal(&p, path+"."+r)
			if err != nil {
				return nil, err
			}
			out[r] = v
		}
		return out, nil
	}
	return nil, errors.New(path + ": type " + strconv.Quote(s.Type) + " is not supported by the generator")
}
