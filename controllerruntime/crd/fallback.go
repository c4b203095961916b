package crd

import (
	"fmt"

	"pgregory.net/rapid"
)

// fallbackTries is how many candidate specs the search for a fallback
// draws, with the fixed seeds 0 to fallbackTries-1, when the minimal spec
// breaks the CRD's rules.
const fallbackTries = 256

// fallback returns the spec a draw returns after GenOptions.Tries
// rejected candidates in a row. It is the minimal spec when the CRD
// admits it. Otherwise (a CEL rule asks for one of several fields, a
// minItems list whose items must differ, …) it is the smallest of the
// candidates raw draws with the seeds 0 to fallbackTries-1 that the CRD
// admits: smallest by the length of its JSON, then by its JSON, so that
// the choice is deterministic. It is an error, naming the minimal spec
// and why it is invalid, when none is admitted.
func (v *Version) fallback(raw *rapid.Generator[any], minSpec map[string]any) (map[string]any, error) {
	errs := v.validateSpec(minSpec)
	if len(errs) == 0 {
		return minSpec, nil
	}
	var best map[string]any
	bestJSON := ""
	for seed := range fallbackTries {
		spec, ok := example(raw, seed)
		if !ok || len(v.validateSpec(spec)) > 0 {
			continue
		}
		j := jsonString(spec)
		if best == nil || len(j) < len(bestJSON) || (len(j) == len(bestJSON) && j < bestJSON) {
			best, bestJSON = spec, j
		}
	}
	if best == nil {
		return nil, fmt.Errorf("the minimal spec %s is invalid and none of %d candidates drawn is valid, so no fallback exists: %w",
			jsonString(minSpec), fallbackTries, errs.ToAggregate())
	}
	return best, nil
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
