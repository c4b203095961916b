package crd

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"pgregory.net/rapid"
)

// fallbackTries is how many candidate specs the search for a fallback
// draws, with the fixed seeds 0 to fallbackTries-1, when the minimal spec
// breaks the CRD's rules.
const fallbackTries = 256

// fallbacks returns the specs a draw chooses from after
// GenOptions.Tries rejected candidates in a row, smallest first. It is
// the minimal spec alone when the CRD admits it. Otherwise (a CEL rule
// asks for one of several fields, a minItems list whose items must
// differ, …) it is every candidate raw draws with the seeds 0 to
// fallbackTries-1 that the CRD admits, without repeats, ordered by the
// length of their JSON, then by their JSON: deterministic, and a draw
// among them shrinks to the smallest. It is an error, naming the minimal
// spec and why it is invalid, when none is admitted.
func (v *Version) fallbacks(raw *rapid.Generator[any], minSpec map[string]any) ([]map[string]any, error) {
	errs := v.validateSpec(minSpec)
	if len(errs) == 0 {
		return []map[string]any{minSpec}, nil
	}
	byJSON := map[string]map[string]any{}
	for seed := range fallbackTries {
		spec, ok := example(raw, seed)
		if ok && len(v.validateSpec(spec)) == 0 {
			byJSON[jsonString(spec)] = spec
		}
	}
	if len(byJSON) == 0 {
		return nil, fmt.Errorf("the minimal spec %s is invalid and none of %d candidates drawn is valid, so no fallback exists: %w",
			jsonString(minSpec), fallbackTries, errs.ToAggregate())
	}
	keys := make([]string, 0, len(byJSON))
	for k := range byJSON {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		return cmp.Or(cmp.Compare(len(a), len(b)), strings.Compare(a, b))
	})
	out := make([]map[string]any, len(keys))
	for i, k := range keys {
		out[i] = byJSON[k]
	}
	return out, nil
}

// example draws the spec of seed from raw; false when rapid gives up on
// the draw (a list whose items must differ and cannot), which
// Generator.Example reports by panicking.
func example(raw *rapid.Generator[any], seed int) (spec map[string]any, ok bool) {
	defer func() {
		if recover() != nil {
			spec, ok = nil, false
		}
	}()
	return asObject(raw.Example(seed)), true
}
