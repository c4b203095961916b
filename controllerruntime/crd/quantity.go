package crd

import (
	"regexp"
	"strconv"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"pgregory.net/rapid"
)

// Quantities (resource.Quantity fields) are drawn by hand, not from their
// pattern. controller-gen declares them as x-kubernetes-int-or-string
// with a pattern that admits strings resource.ParseQuantity refuses
// ("1e2.5") and exponents it takes minutes to expand ("1e463800043"):
// drawn from the regex, a spec could not be decoded into its Go type, or
// its decoding hung before any run (operators/QUIET.md on KubeRay,
// docs/design.md "Drawing specs from a CRD's schema").

// quantityLike are strings the quantity pattern admits, and quantityUnlike
// one it refuses: an int-or-string field whose pattern agrees with all of
// them is a quantity. Recognising the shape rather than one spelling of
// the pattern covers controller-gen's versions and hand-written CRDs
// alike.
var (
	quantityLike   = []string{"0", "1", "100m", "1.5", "2k", "64Mi", "1Gi", "3G", "+1", ".5", "1e3", "1E-3"}
	quantityUnlike = []string{"a", "1x", "Gi", "1.2.3", ""}
)

// isQuantity says s is a resource.Quantity field: an int-or-string whose
// pattern admits the quantities and nothing else of quantityUnlike, and
// no other constraint the quantity generator would ignore.
func isQuantity(s *structuralschema.Structural) bool {
	vv := s.ValueValidation
	if !s.XIntOrString || vv == nil || vv.Pattern == "" || len(vv.Enum) > 0 ||
		vv.Minimum != nil || vv.Maximum != nil || vv.MultipleOf != nil ||
		vv.MinLength != nil || vv.MaxLength != nil || vv.Format != "" {
		return false
	}
	re, err := regexp.Compile(vv.Pattern)
	if err != nil {
		return false
	}
	for _, q := range quantityLike {
		if !re.MatchString(q) {
			return false
		}
	}
	for _, q := range quantityUnlike {
		if re.MatchString(q) {
			return false
		}
	}
	return true
}

// quantitySuffixes are the suffixes drawn, the plain number first (it
// shrinks there): milli, the decimal and binary ones of everyday
// requests and limits.
var quantitySuffixes = []string{"", "m", "k", "Ki", "Mi", "Gi", "M", "G"}

// maxQuantity bounds the integer part of a drawn quantity.
const maxQuantity = 4096

// quantity generates realistic quantities, each of which
// resource.ParseQuantity parses at once: a JSON integer in
// [0, maxQuantity], or a string of such an integer, sometimes with one
// decimal digit, and a suffix of quantitySuffixes. It shrinks toward the
// integer 0.
var quantity = rapid.Custom(func(t *rapid.T) any {
	n := rapid.Int64Range(0, maxQuantity).Draw(t, "quantity")
	if !rapid.Bool().Draw(t, "quantity string?") {
		return n
	}
	s := strconv.FormatInt(n, 10)
	if d := rapid.IntRange(0, 9).Draw(t, "quantity decimal"); d > 0 {
		s += "." + strconv.Itoa(d)
	}
	return s + rapid.SampledFrom(quantitySuffixes).Draw(t, "quantity suffix")
})
