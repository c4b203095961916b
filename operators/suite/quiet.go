package suite

import (
	"flag"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/converge-sim/converge/controllerruntime/convert"
	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
	"pgregory.net/rapid"
)

var quiet = flag.Duration("operators.quiet", 0, "run an input campaign of the goal-free history-dependent oracle for this budget (TestQuiet)")

// QuietBudget returns the budget of -operators.quiet, and skips t when
// the flag is not set: a campaign is a measurement, not a check.
func QuietBudget(t *testing.T) time.Duration {
	t.Helper()
	if *quiet <= 0 {
		t.Skip("an input campaign: run with -operators.quiet=10m")
	}
	return *quiet
}

// Finding is one counterexample of an input campaign.
type Finding struct {
	// Seed is the rapid seed of the run that failed first; the search
	// of one check from it finds the finding again.
	Seed uint64
	// Runs is the number of runs of the campaign up to and including
	// this finding's first failing run.
	Runs int
	// Verdict, Summary and Details are the shrunk failure's.
	Verdict properties.Verdict
	Summary string
	Details []string
	// Report is the counterexample's whole report, replay line last.
	Report string
}

// Campaign is what an input campaign found.
type Campaign struct {
	// Runs is the number of runs made (not counting shrinking).
	Runs int
	// Elapsed is the wall time the campaign took, shrinking included.
	Elapsed time.Duration
	// Findings are the counterexamples, in the order found.
	Findings []Finding
}

// Quiet runs an input campaign of sc, which must have Inputs: one run per
// seed, seeds 1, 2, 3, … each searched alone (one check) with no fault,
// in its own synctest bubble, until budget has passed or maxRuns runs
// were made (0: no bound). Every counterexample is shrunk, logged with
// its seed, summary, details and runs so far, and the campaign goes on
// from the next seed. It fails t only when a run cannot be made.
//
// The measure of issue 35, "a measure of quietness": the ignore paths and
// input restrictions a user needs before such a campaign of the
// goal-free history-dependent oracle (docs/design.md, state-transition
// inputs) shows no false finding.
func Quiet(t *testing.T, sc properties.Scenario, budget time.Duration, maxRuns int) Campaign {
	t.Helper()
	if sc.Inputs == nil {
		t.Fatalf("scenario %s has no inputs", sc.Name)
	}
	p, err := properties.Prepare(sc, faults.Mix{})
	if err != nil {
		t.Fatal(err)
	}
	var c Campaign
	start := time.Now()
	for seed := uint64(1); time.Since(start) < budget && (maxRuns == 0 || c.Runs < maxRuns); seed++ {
		res, err := p.Search(properties.SearchOptions{Checks: 1, Seed: seed, Wrap: properties.InBubble(t), Test: t})
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		c.Runs += res.Runs
		cx := res.Counterexample
		if cx == nil {
			continue
		}
		f := Finding{Seed: seed, Runs: c.Runs, Verdict: cx.Failure.Verdict, Summary: cx.Failure.Summary, Details: cx.Failure.Details, Report: cx.Report()}
		c.Findings = append(c.Findings, f)
		t.Logf("QUIET %s finding %d: seed %d, after %d runs, %s: %s\n  details:\n    %s\n%s", sc.Name, len(c.Findings), f.Seed, f.Runs, f.Verdict, f.Summary, strings.Join(f.Details, "\n    "), f.Report)
	}
	c.Elapsed = time.Since(start)
	t.Logf("QUIET %s: %d runs in %v, %d findings (%.0f runs per 10 min)", sc.Name, c.Runs, c.Elapsed.Round(time.Second), len(c.Findings), float64(c.Runs)/c.Elapsed.Minutes()*10)
	return c
}

// Restriction narrows the specs an input campaign draws, as a user must
// today (issue 35, item 8: no way to say which fields to draw): every
// drawn field at Path or below it is dropped, and Value, if not nil, is
// set at Path: a scalar, or a model.Fields whose paths are set below Path
// (a whole pod template, say). "[*]" in Path stands for any index, and a
// Fields value is then set below every index the drawn spec has there.
// Why says which false finding it silences.
type Restriction struct {
	Path  string
	Value any
	Why   string
}

// Restrict returns gen with every restriction applied to each drawn spec.
// A restriction must keep specs valid for the CRD: the API server refuses
// a transition it rejects, which then leaves the spec unchanged.
func Restrict(gen *rapid.Generator[model.Fields], rs []Restriction) *rapid.Generator[model.Fields] {
	if len(rs) == 0 {
		return gen
	}
	return rapid.Map(gen, func(spec model.Fields) model.Fields {
		for _, r := range rs {
			spec = r.apply(spec)
		}
		return spec
	})
}

func (r Restriction) apply(spec model.Fields) model.Fields {
	var at []string // the concrete prefixes Path matched, in order
	for _, p := range spec.Paths() {
		if n, ok := matchPrefix(p, r.Path); ok {
			spec.Delete(p)
			if !slices.Contains(at, p[:n]) {
				at = append(at, p[:n])
			}
		}
	}
	switch v := r.Value.(type) {
	case nil:
	case model.Fields:
		if !strings.Contains(r.Path, "[*]") && len(at) == 0 {
			at = []string{r.Path}
		}
		for _, prefix := range at {
			for p, x := range v.All() {
				spec.Set(join(prefix, p), x)
			}
		}
	default:
		spec.Set(r.Path, v)
	}
	return spec
}

// matchPrefix reports whether path is pattern, or a field below it, with
// "[*]" in pattern matching any index, and the length of path's part
// that matched pattern.
func matchPrefix(path, pattern string) (int, bool) {
	i := 0
	for len(pattern) > 0 {
		if strings.HasPrefix(pattern, "[*]") {
			if i >= len(path) || path[i] != '[' {
				return 0, false
			}
			j := strings.IndexByte(path[i:], ']')
			if j < 0 {
				return 0, false
			}
			i += j + 1
			pattern = pattern[3:]
			continue
		}
		if i >= len(path) || path[i] != pattern[0] {
			return 0, false
		}
		i++
		pattern = pattern[1:]
	}
	if i == len(path) || path[i] == '.' || path[i] == '[' || path[i] == '{' {
		return i, true
	}
	return 0, false
}

// join puts a sub-path below prefix.
func join(prefix, sub string) string {
	if strings.HasPrefix(sub, "[") || strings.HasPrefix(sub, "{") {
		return prefix + sub
	}
	return prefix + "." + sub
}

// Ignored is an ignore path with the false finding it silences.
type Ignored struct {
	Path string
	Why  string
}

// Paths returns the paths of ignores, for crt.InputsOptions.Ignore.
func Paths(ignores []Ignored) []properties.Ignore {
	out := make([]properties.Ignore, len(ignores))
	for i, ig := range ignores {
		out[i] = properties.Ignore{Path: ig.Path}
	}
	return out
}

// String renders a restriction for a log line.
func (r Restriction) String() string {
	if r.Value == nil {
		return fmt.Sprintf("drop %s", r.Path)
	}
	return fmt.Sprintf("pin %s=%v", r.Path, r.Value)
}

// Decodable returns gen without the specs the kind's Go type cannot
// decode: a restriction (issue 35) for a CRD whose schema admits what the
// operator's types refuse, such as a quantity "1e1.5", which the CRD's
// quantity pattern admits and resource.ParseQuantity does not.
func Decodable(gen *rapid.Generator[model.Fields], conv *convert.Converter, kind string) *rapid.Generator[model.Fields] {
	return gen.Filter(func(spec model.Fields) bool {
		typed, err := conv.New(kind)
		if err != nil {
			return false
		}
		return conv.FromModel(&model.Object{Kind: kind, Spec: spec}, typed) == nil
	})
}

// Sub returns the fields of f below prefix, with prefix cut off: the
// value of a Restriction that pins a subtree to an object's own.
func Sub(f model.Fields, prefix string) model.Fields {
	var out model.Fields
	for p, v := range f.All() {
		if n, ok := matchPrefix(p, prefix); ok && n < len(p) {
			out.Set(strings.TrimPrefix(p[n:], "."), v)
		}
	}
	return out
}
