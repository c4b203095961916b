package properties

import (
	"errors"
	"fmt"
	"hash"
	"time"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
)

// Invariant is a predicate over the API server's state that must hold after
// every step. Check returns an error saying what is wrong.
type Invariant struct {
	Name  string
	Check func(s model.State) error
	// Fingerprint, if set, writes what the invariant remembers across
	// steps, canonically, as model.Fingerprinter does: a monitor
	// (Scenario.Monitors) that keeps memory sets it so that bounded
	// exploration tells apart states that differ in that memory. Monitors
	// without it make the guarantee name "monitors" as not fingerprinted;
	// an invariant of Scenario.Invariants, a function of the state alone,
	// needs none.
	Fingerprint func(h hash.Hash64)
}

// Expectation states what a scenario must show under a fault mix (an empty
// mix: without faults): converge (Fails empty) or fail with the named
// verdict.
type Expectation struct {
	Faults faults.Mix
	Fails  Verdict
}

// String renders "converges" or "fails: goal-unmet".
func (e Expectation) String() string {
	if e.Fails == "" {
		return "converges"
	}
	return "fails: " + string(e.Fails)
}

// Scenario is what a property runs: a cluster to build afresh for every
// run, the outside edits faults may make, invariants, bounds, and what the
// scenario must show.
type Scenario struct {
	Name string
	// Doc says in a sentence what the scenario is and what it must show.
	Doc string
	// Program, if set, is the command, run from its module's root, of the
	// fuzzrun-like program that knows this scenario (one that calls
	// fuzzrun.Main with it), such as "go run ./cmd/mycheck": a finding's
	// replay line is then that program's, with -scenario, -faults and
	// -seed. Without it, a search in a Go test prints the test's go test
	// line (SearchOptions.Test).
	Program string
	// Build returns a fresh, unstarted cluster with its controllers,
	// actors and initial objects, configured with cfg.
	Build func(cfg model.Config) (*model.Cluster, error)
	// Edits lists what the edit fault may do in this scenario. Without
	// any, an edit deletes a child one of its controllers made, alive at
	// the fault's time (faults.OwnedChildren; docs/design.md, "Faults",
	// "Edits of the children controllers make"): a scenario whose
	// controllers keep children as history, which they do not make
	// again, declares its edits instead.
	Edits []faults.EditTarget
	// Rivals lists the fields a rival fault may fight a controller over.
	Rivals []faults.EditTarget
	// FaultTargets, if set, names the controllers the faults aimed at a
	// controller strike (every kind but edit and rival): the operator
	// under test, say, among built-in controllers whose restarts and lost
	// events it is not about. Empty: every controller of the cluster but
	// those marked model.Controller.Platform (the controllerruntime
	// module's built-in Deployment, Job and StatefulSet controllers and
	// kubelet), unless FaultPlatform is set or every controller is one.
	FaultTargets []string
	// FaultPlatform aims faults at the platform's controllers too, when
	// FaultTargets is empty: the project is then tested against a
	// platform whose own controllers crash and miss events.
	FaultPlatform bool
	// Invariants are checked after every step.
	Invariants []Invariant
	// Monitors, if set, returns further invariants for one run, built on
	// its cluster: they may keep state across steps and watch writes with
	// Cluster.OnWrite (say, "from the start of a rollout until the first
	// involuntary disruption").
	Monitors func(c *model.Cluster) []Invariant
	// Budget bounds fault schedules. Zero fields take defaults: 3 faults,
	// a horizon of twice the longest resync period (60 ticks without
	// resync); and, for a mix with faults, from the scenario's own
	// fault-free run (Prepare): durations (a restart's down time, a
	// partition) up to 10 ticks or the time its controllers take to
	// settle, whichever is longer, apierror's count up to the writes
	// they make (at least 3), and, in a world without actors or inputs,
	// half the faults' times within that settle time plus the longest
	// duration (faults.Budget.Busy). A
	// field set here wins over the one drawn from the run.
	Budget faults.Budget
	// FaultSteps caps the steps of the fault phase; default 1000, enough for
	// the clock to reach every scheduled fault in the reference scenarios.
	FaultSteps int
	// MaxSteps caps the steps of a whole run, plus one step for each
	// event in flight when quiescence begins (owed deliveries the fault
	// phase left); reaching it while the cluster is still busy is a
	// no-fixed-point failure. Default 5000: every shrink candidate of such
	// a failure runs to the bound, so a modest bound keeps shrinking fast
	// (trap 8 in docs/design.md).
	MaxSteps int
	// CheckIdempotence makes every reconcile that wrote something be
	// followed at once by a second reconcile of the same key, which must
	// write nothing (the idempotence property).
	CheckIdempotence bool
	// RunTimeout is how long one run may take before it is a hang; zero
	// means DefaultRunTimeout. It is wall-clock time, the one thing the
	// harness measures that way: a run that exceeds it is stuck in user
	// code, not slow.
	RunTimeout time.Duration
	// SettleRounds is how many quiet rounds (each one resync period long,
	// or until the requeue waiting fires, past idle resyncs: see
	// docs/design.md, "Quiescence") quiescence may take to reach a round
	// that writes nothing; default 5.
	SettleRounds int
	// ConvergeWithin, if positive, bounds the virtual time from the last
	// disturbance (a fault healing, an outside write) to the fixed point:
	// a run that takes longer fails with slow-convergence. Zero measures
	// the time (Outcome.ConvergeTime) without judging it.
	ConvergeWithin model.Time
	// Expect lists the fault mixes the scenario is run under by default and
	// what it must show under each.
	Expect []Expectation
	// Inputs, if set, are state transitions of one object every run draws
	// and applies, judged by the goal-free differential oracle besides
	// the goals (see Inputs, HistoryDependent).
	Inputs *Inputs

	_ struct{}
}

// Validate reports what is wrong with the scenario's declaration.
func (sc *Scenario) Validate() error {
	var errs []error
	if sc.Name == "" {
		errs = append(errs, errors.New("scenario has no name"))
	}
	if sc.Build == nil {
		errs = append(errs, fmt.Errorf("scenario %q has no Build function", sc.Name))
	}
	for i, inv := range sc.Invariants {
		if inv.Name == "" || inv.Check == nil {
			errs = append(errs, fmt.Errorf("scenario %q: invariant %d needs a Name and a Check", sc.Name, i))
		}
	}
	if sc.Budget.MaxFaults < 0 || sc.Budget.Horizon < 0 || sc.Budget.MaxDown < 0 || sc.Budget.MaxFailures < 0 || sc.Budget.Busy < 0 {
		errs = append(errs, fmt.Errorf("scenario %q: negative budget %+v", sc.Name, sc.Budget))
	}
	if sc.RunTimeout < 0 {
		errs = append(errs, fmt.Errorf("scenario %q: negative RunTimeout %v", sc.Name, sc.RunTimeout))
	}
	if sc.ConvergeWithin < 0 {
		errs = append(errs, fmt.Errorf("scenario %q: negative ConvergeWithin %d", sc.Name, sc.ConvergeWithin))
	}
	if sc.FaultSteps < 0 || sc.MaxSteps < 0 || sc.SettleRounds < 0 {
		errs = append(errs, fmt.Errorf("scenario %q: negative step bounds", sc.Name))
	}
	if sc.Inputs != nil {
		if err := sc.Inputs.validate(); err != nil {
			errs = append(errs, fmt.Errorf("scenario %q: %w", sc.Name, err))
		}
	}
	for _, e := range sc.Expect {
		if e.Fails != "" && !knownVerdict(e.Fails) {
			errs = append(errs, fmt.Errorf("scenario %q: unknown verdict %q", sc.Name, e.Fails))
		}
	}
	return errors.Join(errs...)
}

// EveryFault is every fault kind the scenario can take: edit only when it
// declares edits, rival only when it declares rivals.
func (sc *Scenario) EveryFault() faults.Mix {
	var mix faults.Mix
	for _, k := range faults.Kinds() {
		if (k == faults.KindEdit && len(sc.Edits) == 0) || (k == faults.KindRival && len(sc.Rivals) == 0) {
			continue
		}
		mix = append(mix, k)
	}
	return mix
}

// ExpectationFor returns the expectation declared for exactly this mix.
func (sc *Scenario) ExpectationFor(mix faults.Mix) (Expectation, bool) {
	for _, e := range sc.Expect {
		if sameMix(e.Faults, mix) {
			return e, true
		}
	}
	return Expectation{}, false
}

func sameMix(a, b faults.Mix) bool {
	if len(a) != len(b) {
		return false
	}
	for _, k := range a {
		if !b.Has(k) {
			return false
		}
	}
	return true
}

// bounds are a scenario's limits with defaults filled in from a built
// cluster.
type bounds struct {
	budget       faults.Budget
	faultSteps   int
	maxSteps     int
	settleRounds int
	round        model.Time
}

func (sc *Scenario) bounds(c *model.Cluster) bounds {
	var resync model.Time
	for _, name := range c.Controllers() {
		spec, _ := c.Spec(name)
		resync = max(resync, spec.ResyncPeriod)
	}
	b := bounds{budget: sc.Budget, faultSteps: sc.FaultSteps, maxSteps: sc.MaxSteps, settleRounds: sc.SettleRounds}
	if b.budget.MaxFaults == 0 {
		b.budget.MaxFaults = 3
	}
	if b.budget.Horizon == 0 {
		b.budget.Horizon = 60
		if resync > 0 {
			b.budget.Horizon = 2 * resync
		}
	}
	if b.budget.MaxDown == 0 {
		b.budget.MaxDown = 10
	}
	if b.faultSteps == 0 {
		b.faultSteps = 1000
	}
	if b.maxSteps == 0 {
		b.maxSteps = 5000
	}
	if b.settleRounds == 0 {
		b.settleRounds = 5
	}
	// A quiet round lasts one resync period, so that every informer
	// replays its cache once; without resync, long enough for the longest
	// backoff to fire.
	b.round = resync
	if b.round == 0 {
		b.round = model.DefaultBackoff.Max
	}
	return b
}
