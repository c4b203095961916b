package properties

import (
	"fmt"
	"slices"
	"strings"

	"github.com/converge-sim/converge/model"
	"pgregory.net/rapid"
)

// RejectedWrites is the verdict when, at the fixed point, a controller
// still retries a write that the API server's validation rejects every time
// (a status that outgrew the schema's maxItems, a sync against an immutable
// field): the controller is stuck in an endless retry loop, whatever its
// goals say.
const RejectedWrites Verdict = "rejected-writes"

func failRejectedWrites(t *rapid.T, msg string) { t.Fatal(msg) }

// stuckOnRejected reports the controllers whose writes the admission chain
// rejected after mark, the start of the last quiet round: at a fixed point,
// a rejected write is one that will be retried and rejected forever.
func (r *runner) stuckOnRejected(mark uint64) *Failure {
	ctrls := r.c.Controllers()
	var stuck []model.Rejection
	for _, rej := range r.c.Server().Rejections(mark) {
		if slices.Contains(ctrls, rej.Caller) {
			stuck = append(stuck, rej)
		}
	}
	if len(stuck) == 0 {
		return nil
	}
	first := stuck[0]
	cause := firstCause(first.Err)
	f := r.failure("no rejected writes", RejectedWrites, fmt.Sprintf("%s retries its %s of %s forever: the API server rejects it %s (%s)",
		first.Caller, first.Verb, first.Ref, how(first.Err), cause.summary()))
	for _, rej := range stuck {
		c := firstCause(rej.Err)
		f.Details = append(f.Details,
			fmt.Sprintf("%s %s of %s: rejected %d times from t=%d to t=%d", rej.Caller, rej.Verb, rej.Ref, rej.Count, rej.First, rej.Last))
		if c.Field != "" {
			f.Details = append(f.Details, "  field: "+c.Field)
		}
		if c.Rule != "" {
			f.Details = append(f.Details, "  rule: "+c.Rule)
		}
		f.Details = append(f.Details, "  error: "+rej.Err.Error())
	}
	f.Diagnosis = []string{
		fmt.Sprintf("%s's %s of %s kept being rejected %s, and nothing else changed: the retry writes the same object, so it can never succeed",
			first.Caller, first.Verb, first.Ref, how(first.Err)),
	}
	var unmet []string
	for _, u := range r.c.Goals() {
		if !slices.Contains(unmet, u.Controller) {
			unmet = append(unmet, u.Controller)
		}
	}
	onlyCaller := len(unmet) == 1 && unmet[0] == first.Caller
	switch {
	case len(unmet) == 0:
		f.Diagnosis = append(f.Diagnosis, fmt.Sprintf("green but dead: every goal holds, so the cluster looks healthy while %s's write never lands", first.Caller))
	case onlyCaller && len(ctrls) > 1:
		f.Diagnosis = append(f.Diagnosis, fmt.Sprintf("green but dead: every other controller's goal holds, so the cluster looks healthy while %s's change never lands", first.Caller))
	case !onlyCaller:
		f.Diagnosis = append(f.Diagnosis, "goals unmet at this fixed point: "+strings.Join(unmet, ", "))
	}
	if model.ReasonOf(first.Err) == model.ReasonConflict {
		f.Diagnosis = append(f.Diagnosis, fmt.Sprintf("server-side apply: %s is owned by another field manager (%s); apply with ForceOwnership to take it, or leave it out of the applied configuration",
			cause.Field, cause.Message))
	} else if cause.Field != "" {
		f.Diagnosis = append(f.Diagnosis, fmt.Sprintf("the controller must change what it writes to %s (respect %s), or replace the object; retrying cannot help", cause.Field, cause.ruleOrMessage()))
	}
	return f
}

// how says how the server rejected a write.
func how(err error) string {
	if model.ReasonOf(err) == model.ReasonConflict {
		return "with an apply conflict"
	}
	return "as invalid"
}

// cause is a rejection's first cause, or its message when it has none.
type cause struct{ model.Cause }

func firstCause(err error) cause {
	se, _ := err.(*model.StatusError)
	if se == nil || len(se.Causes) == 0 {
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		return cause{model.Cause{Message: msg}}
	}
	return cause{se.Causes[0]}
}

func (c cause) summary() string {
	parts := []string{}
	if c.Field != "" {
		parts = append(parts, "field "+c.Field)
	}
	if c.Rule != "" {
		parts = append(parts, "rule "+c.Rule)
	}
	parts = append(parts, c.Message)
	return strings.Join(parts, ", ")
}

func (c cause) ruleOrMessage() string {
	if c.Rule != "" {
		return c.Rule
	}
	return c.Message
}
