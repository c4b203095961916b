package quiettb

import (
	"flag"
	"strconv"
	"testing"

	_ "pgregory.net/rapid" // registers the flags FixedSeeds sets
)

// rapidFlags are the flags of rapid's that FixedSeeds sets and restores.
var rapidFlags = []string{"rapid.nofailfile", "rapid.seed"}

// FixedSeeds turns rapid's fail files off for the rest of t, and returns
// a function that sets the seed every rapid.Check from then on starts
// from, so that a test that checks how rapid shrinks is the same on every
// machine, a fresh clone included, and leaves no testdata/rapid behind.
// Both flags, -rapid.nofailfile and -rapid.seed, get back the values they
// had at t's cleanup. rapid reads them from the process's command line,
// so such a test must not run in parallel with other rapid tests.
func FixedSeeds(t testing.TB) (setSeed func(seed uint64)) {
	t.Helper()
	for _, name := range rapidFlags {
		f := flag.Lookup(name)
		if f == nil {
			t.Fatalf("rapid flag -%s is not registered", name)
			return nil
		}
		old := f.Value.String()
		t.Cleanup(func() { _ = flag.Set(name, old) })
	}
	set := func(name, value string) {
		t.Helper()
		if err := flag.Set(name, value); err != nil {
			t.Fatalf("-%s=%s: %v", name, value, err)
		}
	}
	set("rapid.nofailfile", "true")
	return func(seed uint64) {
		t.Helper()
		set("rapid.seed", strconv.FormatUint(seed, 10))
	}
}
