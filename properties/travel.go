package properties

import (
	"fmt"
	"strings"

	"github.com/converge-sim/converge/model"
)

// travelLines says, for each time the controller relisted from a server
// behind (the timetravel fault), how far behind and which object it saw in
// an old state, the most telling first: one whose deletion timestamp it saw
// although the object has since gone or been recreated, then one with an
// old spec, then the rest.
func travelLines(c *model.Cluster, controller string) []string {
	var out []string
	for _, t := range c.Faults().Travels() {
		if t.Controller != controller || len(t.Old) == 0 {
			continue
		}
		best := t.Old[0]
		for _, o := range t.Old {
			if travelRank(o) < travelRank(best) {
				best = o
			}
		}
		line := fmt.Sprintf("at t=%d (step %d) %s relisted from a server %s behind: saw %s's old state %s",
			t.At, t.Step, controller, versions(t.Behind()), best.Ref(), oldState(best))
		switch n := len(t.Old) - 1; {
		case n == 1:
			line += " (and 1 more object in an old state)"
		case n > 1:
			line += fmt.Sprintf(" (and %d more objects in an old state)", n)
		}
		out = append(out, line)
	}
	return out
}

// travelRank orders what a time travel showed, most telling first.
func travelRank(o model.Travelled) int {
	switch {
	case o.Then != nil && o.Then.Deleting() && (o.Now == nil || o.Now.UID != o.Then.UID):
		return 0
	case o.Then != nil && o.Now != nil && o.Then.UID == o.Now.UID && specChange(o) != nil:
		return 1
	}
	return 2
}

// specChange returns the first spec field the object changed since the
// view, or nil.
func specChange(o model.Travelled) *model.FieldChange {
	for _, ch := range model.Diff(o.Then, o.Now) {
		if strings.HasPrefix(ch.Path, "spec.") {
			return &ch
		}
	}
	return nil
}

// oldState describes the object as the view showed it, against what it is
// now: "deleting since t=4 (uid-3; since deleted and recreated as uid-9)",
// "spec.replicas=2 (now 3)".
func oldState(o model.Travelled) string {
	then, now := o.Then, o.Now
	switch {
	case then == nil:
		return fmt.Sprintf("absent (created since, as %s)", now.UID)
	case then.Deleting():
		return fmt.Sprintf("deleting since t=%d (%s; %s)", *then.DeletionTimestamp, then.UID, since(then, now))
	case now == nil || now.UID != then.UID:
		return fmt.Sprintf("%s (%s)", then.UID, since(then, now))
	}
	if ch := specChange(o); ch != nil {
		return fmt.Sprintf("%s=%s (now %s)", ch.Path, model.FormatValue(ch.Old), model.FormatValue(ch.New))
	}
	if chs := model.Diff(then, now); len(chs) > 0 {
		return fmt.Sprintf("%s=%s (now %s)", chs[0].Path, model.FormatValue(chs[0].Old), model.FormatValue(chs[0].New))
	}
	return fmt.Sprintf("at resourceVersion %d (now %d)", then.ResourceVersion, now.ResourceVersion)
}

// since says what became of an object after the view showed it.
func since(then, now *model.Object) string {
	switch {
	case now == nil:
		return "since deleted"
	case now.UID != then.UID:
		return "since deleted and recreated as " + string(now.UID)
	}
	return fmt.Sprintf("now at resourceVersion %d", now.ResourceVersion)
}

// versions renders "1 version", "3 versions".
func versions(n uint64) string {
	if n == 1 {
		return "1 version"
	}
	return fmt.Sprintf("%d versions", n)
}

// cachedBehind says in which old state the controller's cache still held
// the object it acted on, when that is not the server's: after a time
// travel, the catch-up may not have reached it yet.
func cachedBehind(c *model.Cluster, controller string, ref model.Ref) string {
	var cached *model.Object
	for _, inf := range c.Informers() {
		if inf.Controller() == controller && inf.Kind() == ref.Kind {
			inf.Each(func(o *model.Object) {
				if o.Ref() == ref {
					cached = o
				}
			})
		}
	}
	now := c.Server().Peek(ref)
	if cached == nil || (now != nil && cached.ResourceVersion == now.ResourceVersion) {
		return ""
	}
	return fmt.Sprintf("when it acted, its cache still held %s's old state %s", ref, oldState(model.Travelled{Then: cached, Now: now}))
}
