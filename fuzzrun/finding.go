package fuzzrun

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"reflect"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/internal/echo"
	"github.com/converge-sim/converge/properties"
	"pgregory.net/rapid"
)

// FindingFormat names the format of finding files; ParseFinding accepts
// this format only.
const FindingFormat = "converge-finding/1"

// Verdicts of findings that have no counterexample: the run never
// reported back, so there is no schedule to replay, only the seed.
const (
	// VerdictHang: the run did not finish within -run-timeout; fuzzrun
	// killed the worker running it.
	VerdictHang = "hang"
	// VerdictCrash: the worker process died during the run (a fatal error
	// in user code, such as a stack overflow or os.Exit).
	VerdictCrash = "crash"
	// VerdictOOM: the worker's heap grew past -worker-memory during the
	// run, or the Go runtime ran out of memory.
	VerdictOOM = "oom"
)

// Finding is a failure found by a campaign, as saved in its file: enough to
// replay it exactly (the shrunk schedule and the recorded interleaving
// choices), to re-run its seed, and to read it without running anything.
type Finding struct {
	Format string `json:"format"`
	// Version is the converge version that found it.
	Version  string `json:"converge_version"`
	Scenario string `json:"scenario"`
	// Faults is the fault mix, as given to -faults.
	Faults   string `json:"faults"`
	Seed     uint64 `json:"seed"`
	Strategy string `json:"strategy"`
	PCTDepth int    `json:"pct_depth,omitempty"`
	// Deviations is the exhaustive strategy's deviation bound, if any.
	Deviations int `json:"deviations,omitempty"`
	// Property is the violated property, Verdict how it failed.
	Property string `json:"property"`
	Verdict  string `json:"verdict"`
	// FaultClass is "adversarial" when the shrunk schedule needs a fault
	// client-go never produces (a handler bug), "faithful" otherwise;
	// findings of the two classes are kept apart.
	FaultClass string `json:"fault_class,omitempty"`
	Summary    string `json:"summary"`
	// Expected is whether the scenario must show this verdict under this
	// mix; an unexpected finding makes the campaign exit 1.
	Expected  bool     `json:"expected"`
	Diagnosis []string `json:"diagnosis,omitempty"`
	// Report is the full failure report, as the campaign printed it.
	Report string `json:"report"`
	// Schedule and Choices replay the minimal run exactly. A hang or a
	// crash has neither.
	Schedule faults.Schedule `json:"schedule"`
	// Transitions are the shrunk state transitions of a scenario with
	// inputs (properties.Inputs), absent for one without.
	Transitions properties.Transitions `json:"transitions,omitempty"`
	Choices     []int                  `json:"choices"`
	Steps       int                    `json:"steps"`
	// TraceSHA256 is the hash of the minimal run's trace; a replay that
	// prints another trace says so.
	TraceSHA256 string `json:"trace_sha256,omitempty"`
	// RunTimeout is, for a hang, the -run-timeout the run exceeded, in
	// seconds.
	RunTimeout float64 `json:"run_timeout_s,omitempty"`
	// Count is how many runs of the campaign found this same failure (same
	// scenario, property and shrunk-schedule signature).
	Count int `json:"count"`
	// Replay replays the file; ReplaySeed re-runs and re-shrinks the seed,
	// and is empty when the seed alone does not make the run again (a
	// -strategy coverage run that mutated its worker's corpus).
	Replay     string `json:"replay"`
	ReplaySeed string `json:"replay_seed"`
	// Planned is, for a run of the plan of faults read off the reference
	// run (docs/design.md, "The plan in campaigns"), its number in the
	// plan, from 1: a seed replay does not make it again (ReplaySeed is
	// empty), its file does.
	Planned int `json:"planned,omitempty"`

	// nullFields are the fields the file gave as null.
	nullFields []string
}

// Bounds of a finding file's numbers, checked before anything runs.
const (
	// MaxFindingSize is the largest finding file read, in bytes.
	MaxFindingSize = 16 << 20
	// maxChoices bounds the recorded choices, and maxChoice each of them.
	maxChoices = 1 << 20
	maxChoice  = 1 << 20
	// maxSteps bounds the recorded step count.
	maxSteps = 1 << 30
	// maxCount bounds how many runs found a finding.
	maxCount = 1 << 40
	// maxRunTimeout bounds a hang's recorded -run-timeout, in seconds.
	maxRunTimeout = 24 * 60 * 60
)

// newFinding records a counterexample of the run of j.
func newFinding(j *job, cx *properties.Counterexample) *Finding {
	f := &Finding{
		Format:      FindingFormat,
		Version:     version(),
		Scenario:    j.Scenario,
		Faults:      j.Faults,
		Seed:        cx.Seed,
		Strategy:    j.strategy().Name,
		PCTDepth:    j.Depth,
		Deviations:  j.Deviations,
		Property:    cx.Failure.Property,
		Verdict:     string(cx.Failure.Verdict),
		FaultClass:  string(cx.Class),
		Summary:     cx.Failure.Summary,
		Diagnosis:   cx.Failure.Diagnosis,
		Report:      cx.Report(),
		Schedule:    cx.Schedule,
		Transitions: cx.Inputs,
		Choices:     cx.Choices,
		Steps:       cx.Steps,
		TraceSHA256: cx.Trace.Hash(),
		Count:       1,
	}
	if f.Schedule == nil {
		f.Schedule = faults.Schedule{}
	}
	if f.Choices == nil {
		f.Choices = []int{}
	}
	return f
}

// lost records the run of seed that never reported back: a hang, a crash
// or an out-of-memory death.
//
// A crash or an out-of-memory death carries its cause from the worker's
// stderr: the fatal line, and the trimmed stack in details.
func lost(j *job, seed uint64, verdict, summary string, details []string) *Finding {
	property := "terminates"
	switch verdict {
	case VerdictCrash:
		property = "no crash"
	case VerdictOOM:
		property = "bounded memory"
	}
	report := fmt.Sprintf("scenario %s, faults %s, seed %d: %s violated (%s): %s\n", j.Scenario, j.Faults, seed, property, verdict, summary)
	for _, d := range details {
		report += "  " + d + "\n"
	}
	return &Finding{
		Format:     FindingFormat,
		Version:    version(),
		Scenario:   j.Scenario,
		Faults:     j.Faults,
		Seed:       seed,
		Strategy:   j.strategy().Name,
		PCTDepth:   j.Depth,
		Deviations: j.Deviations,
		Property:   property,
		Verdict:    verdict,
		Summary:    summary,
		Report:     report,
		Count:      1,
	}
}

// Lost reports whether the finding is a run that never reported back (a
// hang its worker was killed for, a crash, an out-of-memory death), which
// replays only by re-running the seed.
//
// A hang caught inside the run (by properties' per-run time limit) is not
// lost: it has its schedule and choices, and its replay hangs again.
func (f *Finding) Lost() bool {
	switch f.Verdict {
	case VerdictHang, VerdictCrash, VerdictOOM:
		return f.Choices == nil
	}
	return false
}

// key identifies the bug: the same scenario, property and shrunk-schedule
// signature is the same finding, whatever the seed or the exact fault
// times. Hangs, crashes and OOMs have no schedule, or one rapid had little
// time to shrink (each hung candidate costs its time limit): one per
// scenario and mix.
func (f *Finding) key() string {
	if f.Lost() || f.Verdict == VerdictHang {
		return strings.Join([]string{f.Scenario, f.Verdict, f.Faults}, "\n")
	}
	key := []string{f.Scenario, f.Property, f.FaultClass, f.Schedule.Signature()}
	if len(f.Transitions) > 0 {
		key = append(key, fmt.Sprintf("%d transitions", len(f.Transitions)))
	}
	return strings.Join(key, "\n")
}

// fileName is the finding's file name: scenario, verdict and a hash of
// its key.
func (f *Finding) fileName() string {
	sum := sha256.Sum256([]byte(f.key()))
	return fmt.Sprintf("finding-%s-%s-%s.json", safeName(f.Scenario), safeName(f.Verdict), hex.EncodeToString(sum[:6]))
}

// safeName keeps letters, digits, '-' and '_' of s for use in a file name.
func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			return r
		}
		return '_'
	}, s)
}

// strategy returns the finding's strategy.
func (f *Finding) strategy() properties.Strategy {
	return properties.Strategy{Name: f.Strategy, Depth: f.PCTDepth, Deviations: f.Deviations}
}

// Marshal renders the finding as indented JSON with a final newline.
func (f *Finding) Marshal() ([]byte, error) {
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

// ParseFinding reads a finding file's content. It rejects anything but one
// JSON object in FindingFormat with every field a replay needs, and says
// what is wrong.
func ParseFinding(data []byte) (*Finding, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, errors.New("empty file")
	}
	// The fields first, so that an unknown one is named clipped (the
	// decoder would echo it whole).
	dec := json.NewDecoder(bytes.NewReader(data))
	var raw map[string]json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, errors.New("not valid JSON: the file ends early (truncated?)")
		}
		return nil, fmt.Errorf("not valid JSON: %s", echo.Clip(err.Error(), maxEcho))
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("not valid JSON: data after the finding object")
	}
	for _, name := range slices.Sorted(maps.Keys(raw)) {
		if !slices.Contains(findingFields(), name) {
			return nil, fmt.Errorf("unknown field %s", echo.Quote(name))
		}
	}
	dec = json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var f Finding
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("not valid JSON: %s", echo.Clip(err.Error(), maxEcho))
	}
	// A null schedule or choices decodes as empty: refuse it, since a
	// replay would then run a different run and blame the code.
	for _, field := range []string{"schedule", "choices"} {
		if v, ok := raw[field]; ok && string(bytes.TrimSpace(v)) == "null" {
			f.nullFields = append(f.nullFields, field)
		}
	}
	if err := f.validate(); err != nil {
		return nil, err
	}
	return &f, nil
}

// maxEcho bounds the bytes of a decoder's message an error repeats: one
// about a number echoes the number's text, however long.
const maxEcho = 300

// findingFields are the JSON names of a finding's fields.
var findingFields = sync.OnceValue(func() []string {
	var names []string
	t := reflect.TypeFor[Finding]()
	for i := range t.NumField() {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); name != "" && name != "-" {
			names = append(names, name)
		}
	}
	return names
})

// validate reports the first missing or invalid field.
func (f *Finding) validate() error {
	switch {
	case f.Format != FindingFormat:
		return fmt.Errorf("format %s: want %q", echo.Quote(f.Format), FindingFormat)
	case f.Scenario == "":
		return errors.New("no scenario")
	case f.Seed == 0 && f.strategy().Seeded():
		return errors.New("seed must be at least 1")
	case f.Property == "":
		return errors.New("no property")
	case f.Verdict == "":
		return errors.New("no verdict")
	case f.Count < 1 || f.Count > maxCount:
		return fmt.Errorf("count %d: must be in [1, %d]", f.Count, int64(maxCount))
	case f.Steps < 0 || f.Steps > maxSteps:
		return fmt.Errorf("steps %d: must be in [0, %d]", f.Steps, maxSteps)
	case f.RunTimeout < 0 || f.RunTimeout > maxRunTimeout:
		return fmt.Errorf("run_timeout_s %v: must be in [0, %d]", f.RunTimeout, maxRunTimeout)
	case len(f.Choices) > maxChoices:
		return fmt.Errorf("choices: %d of them, at most %d", len(f.Choices), maxChoices)
	case f.Planned < 0 || f.Planned > maxChoices:
		return fmt.Errorf("planned %d: must be in [0, %d]", f.Planned, maxChoices)
	}
	if _, err := faults.ParseMix(f.Faults); err != nil {
		return fmt.Errorf("faults: %w", err)
	}
	if err := f.strategy().Validate(); err != nil {
		return fmt.Errorf("strategy: %w", err)
	}
	if f.Lost() && f.Verdict == VerdictHang && f.RunTimeout <= 0 {
		return errors.New("a hang needs its run_timeout_s")
	}
	if f.Lost() {
		return nil
	}
	switch {
	case f.Schedule == nil || slices.Contains(f.nullFields, "schedule"):
		return errors.New("no schedule: a replay needs the shrunk fault schedule")
	case f.Choices == nil || slices.Contains(f.nullFields, "choices"):
		return errors.New("no choices: a replay needs the recorded interleaving choices")
	}
	for i, c := range f.Choices {
		if c < 0 || c > maxChoice {
			return fmt.Errorf("choices[%d] %d: must be in [0, %d]", i, c, maxChoice)
		}
	}
	return nil
}

// fit checks the finding against the scenario it names, before anything
// runs: its fault mix can be drawn for the scenario, and its schedule is
// one the scenario's generator could have drawn (declared edit and rival
// targets, existing controllers and informers, times, durations, counts
// and values within the scenario's budget). A finding that does not fit
// cannot replay; the error says which field is out and its limit. The
// budget is the one the scenario's dry run gives (properties.Prepare,
// inside wrap as the campaign's was; nil outside a test binary), made
// only for a schedule past the fixed defaults (properties.PlanFor), which
// it only widens: a replay runs no code of the scenario before its own
// runs unless it must.
func (f *Finding) fit(sc properties.Scenario, wrap func(func(*rapid.T)) func(*rapid.T)) error {
	mix, err := faults.ParseMix(f.Faults)
	if err != nil {
		return fmt.Errorf("faults: %w", err)
	}
	plan, err := properties.PlanFor(sc, mix)
	if err != nil {
		return fmt.Errorf("faults %s: %w", echo.Quote(f.Faults), err)
	}
	if len(mix) > 0 && f.Schedule.Fits(mix, plan.Topology, plan.Budget) != nil {
		p, err := properties.PrepareWith(sc, mix, properties.PrepareOptions{Wrap: wrap})
		if err != nil {
			return fmt.Errorf("faults %s: %w", echo.Quote(f.Faults), err)
		}
		plan = p.Plan()
	}
	if f.Lost() {
		return nil
	}
	switch in := sc.Inputs; {
	case in == nil && len(f.Transitions) > 0:
		return fmt.Errorf("transitions: scenario %s declares no inputs, yet the finding has %d transitions", sc.Name, len(f.Transitions))
	case in != nil && len(f.Transitions) > in.MaxTransitions():
		return fmt.Errorf("transitions: %d of them, at most %d for scenario %s", len(f.Transitions), in.MaxTransitions(), sc.Name)
	}
	return f.Schedule.Fits(mix, plan.Topology, plan.Budget)
}

// fileType names a file's type in words.
func fileType(m os.FileMode) string {
	switch {
	case m&os.ModeNamedPipe != 0:
		return "a named pipe"
	case m&os.ModeDevice != 0, m&os.ModeCharDevice != 0:
		return "a device"
	case m.IsDir():
		return "a directory"
	case m&os.ModeSocket != 0:
		return "a socket"
	}
	return "not a plain file"
}

// readRegular reads the file at path if it is a regular file of at most
// limit bytes. It opens without blocking (a FIFO with no writer would
// block a plain open) and checks the opened file, so a path swapped after
// a check cannot slip through.
func readRegular(path string, limit int64) ([]byte, error) {
	file, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	info, err := file.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (%s)", path, fileType(info.Mode()))
	}
	if info.Size() > limit {
		return nil, fmt.Errorf("%s is %d bytes: a finding file is at most %d", path, info.Size(), limit)
	}
	data, err := io.ReadAll(io.LimitReader(file, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s grew past %d bytes while being read", path, limit)
	}
	return data, nil
}

// ReadFinding reads and parses a finding file; its errors name the file.
// It reads only a regular file of at most MaxFindingSize bytes: a FIFO, a
// device (a link to /dev/zero) or a directory is refused before a byte is
// read, so a bad path can neither block nor exhaust memory.
func ReadFinding(path string) (*Finding, error) {
	data, err := readRegular(path, MaxFindingSize)
	if err != nil {
		return nil, fmt.Errorf("cannot read finding: %w", err)
	}
	f, err := ParseFinding(data)
	if err != nil {
		return nil, fmt.Errorf("finding file %s is corrupt: %w", path, err)
	}
	return f, nil
}
