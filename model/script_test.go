package model

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestScripts runs the step-level scripts in testdata/*.txt: each drives one
// fresh cluster a step at a time and prints the trace records each command
// adds, then an error ("error: ...") or what it shows; a view with nothing
// to show prints "(none)". See datadriven_test.go for the file format and
// -rewrite.
//
// Objects are named "Kind ns/name"; an informer "controller/Kind". Values
// of fields are integers, true or false, or strings. Commands:
//
//	controller <name> <keeper|echo> [resync=T]   declare a test controller
//	start                                        start the controllers
//	create <Kind> <ns/name> [path=value...] [by=W]   write as outside writer W (default user)
//	update <Kind> <ns/name> path=value... [by=W]     fields are spec., status. or metadata.labels. paths
//	delete <Kind> <ns/name> [by=W]
//
//	enabled                          list the enabled actions, in the scheduler's order
//	deliver <ctl/Kind>               deliver the informer's next event (must be enabled)
//	rewatch <ctl/Kind>               re-establish its broken watch (must be enabled)
//	reconcile <ctl>                  reconcile the controller's next queued key (must be enabled)
//	collect                          let the garbage collector delete one dependent
//	restore <rival>                  let a rival write its value back (must be enabled)
//	tick                             fire the next timer, advancing the clock (must be enabled)
//	step [n=N]                       take the first enabled action N times
//	run [until=T]                    take the first enabled action until none is left,
//	                                 firing only timers due at or before T (default: now)
//
//	lag <ctl/Kind> behind=N for=T    the fault primitives, each as one step
//	partition <ctl> for=T            recorded as "fault <the command line>"
//	crash <ctl> down=T
//	crash-after-writes <ctl> writes=N down=T
//	fail-writes <ctl> reason=R n=N [applied]
//	arm-delay <ctl/Kind> for=T
//	arm-duplicate <ctl/Kind>
//	arm-drop <ctl/Kind>
//	expire <ctl/Kind>
//	timetravel <ctl> behind=N down=T
//	timetravel-landmark <ctl> landmark=N down=T
//	rival <name> <Kind> <ns/name> <path>=<value> [persistent]
//	heal
//
//	state [Kind]                     the server's objects, by kind then key
//	cache <ctl/Kind>                 the informer's cached objects, in key order
//	goals                            the unmet goals
//	trace                            the whole trace
//
// The test controllers: keeper (For Set, Owns Pod) keeps spec.replicas pods
// named <set>-0, <set>-1, ... owned by each Set, creating the missing ones
// in index order and deleting the others, reading its cache; echo (For
// Echo) copies spec.value to status.value.
func TestScripts(t *testing.T) {
	runScripts(t, "testdata/*.txt", func(*testing.T) func(*scriptCase) string {
		d := &scriptDriver{c: NewCluster(Config{})}
		return d.run
	})
}

// scriptDriver runs script commands against one cluster.
type scriptDriver struct {
	c *Cluster
	// printed is how many trace records earlier commands have printed.
	printed int
}

// run executes one command and returns the trace records it added, then
// an error or what the command prints.
func (d *scriptDriver) run(tc *scriptCase) string {
	a := parseScriptArgs(tc.args)
	out, err := d.exec(tc.cmd, a, strings.Join(append([]string{tc.cmd}, tc.args...), " "))
	if err == nil {
		err = a.unused()
	}
	var b strings.Builder
	for _, r := range d.c.Trace().Records[d.printed:] {
		b.WriteString(r.String() + "\n")
	}
	d.printed = len(d.c.Trace().Records)
	if err != nil {
		b.WriteString("error: " + err.Error() + "\n")
	}
	b.WriteString(out)
	return b.String()
}

// exec runs one command. Every command reads its arguments and checks
// that none is left over before it acts.
func (d *scriptDriver) exec(cmd string, a *scriptArgs, line string) (string, error) {
	switch cmd {
	case "controller":
		return "", d.addController(a)
	case "start":
		if err := a.unused(); err != nil {
			return "", err
		}
		return "", d.c.Start()
	case "create", "update", "delete":
		return "", d.write(cmd, a)
	case "deliver", "rewatch", "reconcile", "restore", "collect", "tick", "step", "run":
		return "", d.drive(cmd, a)
	case "lag", "partition", "crash", "crash-after-writes", "fail-writes",
		"arm-delay", "arm-duplicate", "arm-drop", "expire", "timetravel", "timetravel-landmark", "rival", "heal":
		return "", d.fault(cmd, a, line)
	case "enabled", "state", "cache", "goals", "trace":
		return d.show(cmd, a)
	}
	return "", fmt.Errorf("unknown command %q", cmd)
}

// drive takes steps: a named enabled action, or the first enabled ones.
func (d *scriptDriver) drive(cmd string, a *scriptArgs) error {
	var target string
	n, until := 1, d.c.Now()
	switch cmd {
	case "step":
		n = a.int("n", 1)
	case "run":
		until = Time(a.int("until", int(until)))
	case "deliver", "rewatch", "reconcile", "restore":
		target = a.pos(0)
	}
	if err := a.unused(); err != nil {
		return err
	}
	switch cmd {
	case "step":
		for range n {
			acts := d.c.Enabled(nil)
			if len(acts) == 0 {
				return fmt.Errorf("nothing is enabled")
			}
			d.c.Do(acts[0])
		}
		return nil
	case "run":
		return d.runUntil(until)
	}
	return d.do(cmd, target)
}

// show prints a view of the cluster; it takes no step.
func (d *scriptDriver) show(cmd string, a *scriptArgs) (string, error) {
	var arg string
	if cmd == "state" {
		arg = a.opt(0)
	} else if cmd == "cache" {
		arg = a.pos(0)
	}
	if err := a.unused(); err != nil {
		return "", err
	}
	var lines []string
	switch cmd {
	case "enabled":
		for _, act := range d.c.Enabled(nil) {
			lines = append(lines, d.describe(act))
		}
	case "state":
		lines = d.state(arg)
	case "cache":
		inf, err := d.informer(arg)
		if err != nil {
			return "", err
		}
		inf.Each(func(o *Object) { lines = append(lines, formatObject(o)) })
	case "goals":
		for _, g := range d.c.Goals() {
			lines = append(lines, g.Controller+": "+g.Unmet.String())
		}
	case "trace":
		for _, r := range d.c.Trace().Records {
			lines = append(lines, r.String())
		}
	}
	if len(lines) == 0 {
		return "(none)\n", nil
	}
	return strings.Join(lines, "\n") + "\n", nil
}

// addController declares a test controller.
func (d *scriptDriver) addController(a *scriptArgs) error {
	name, typ := a.pos(0), a.pos(1)
	spec := Controller{Name: name, ResyncPeriod: Time(a.int("resync", 0))}
	switch typ {
	case "keeper":
		spec.For, spec.Owns, spec.NewReconciler, spec.Goal = "Set", []string{"Pod"}, newKeeper, keeperGoal
	case "echo":
		spec.For, spec.NewReconciler = "Echo", newEcho
	default:
		return fmt.Errorf("unknown controller type %q (want keeper or echo)", typ)
	}
	if err := a.unused(); err != nil {
		return err
	}
	return d.c.AddController(spec)
}

// write makes an outside create, update or delete.
func (d *scriptDriver) write(cmd string, a *scriptArgs) error {
	ref, err := parseRef(a.pos(0), a.pos(1))
	if err != nil {
		return err
	}
	out := d.c.Outside(a.str("by", "user"))
	var paths []string
	if cmd != "delete" {
		paths = a.fields()
	}
	if err := a.unused(); err != nil {
		return err
	}
	if cmd == "delete" {
		return out.Delete(ref, DeleteOptions{})
	}
	obj := &Object{Kind: ref.Kind, Namespace: ref.Namespace, Name: ref.Name}
	if cmd == "update" {
		if obj, err = out.Get(ref.Kind, ref.Namespace, ref.Name); err != nil {
			return err
		}
	}
	status := false
	for _, p := range paths {
		if err := obj.SetField(p, scriptValue(a.kv[p])); err != nil {
			return err
		}
		status = status || IsStatusPath(p)
	}
	switch {
	case cmd == "create":
		return out.Create(obj)
	case status:
		return out.UpdateStatus(obj)
	}
	return out.Update(obj)
}

// do takes the enabled action a command names, or says what is enabled.
func (d *scriptDriver) do(cmd, target string) error {
	want := cmd
	if target != "" {
		want += " " + target
	}
	acts := d.c.Enabled(nil)
	var enabled []string
	for _, act := range acts {
		desc := d.describe(act)
		if desc == want || strings.HasPrefix(desc, want+" (") {
			d.c.Do(act)
			return nil
		}
		enabled = append(enabled, desc)
	}
	if len(enabled) == 0 {
		enabled = []string{"nothing"}
	}
	return fmt.Errorf("%q is not enabled; enabled: %s", want, strings.Join(enabled, ", "))
}

// describe names an action as the command that takes it, with what it
// would work on in parentheses.
func (d *scriptDriver) describe(act Action) string {
	c := d.c
	switch act.Kind {
	case ActDeliver:
		inf := c.Informers()[act.Index]
		return fmt.Sprintf("deliver %s (%d pending)", inf.Name(), inf.Pending())
	case ActRewatch:
		return "rewatch " + c.Informers()[act.Index].Name()
	case ActReconcile:
		ctl := c.ctrls[act.Index]
		return fmt.Sprintf("reconcile %s (%d queued)", ctl.spec.Name, ctl.queue.Len())
	case ActCollect:
		return "collect"
	case ActRival:
		return "restore " + c.rivals[act.Index].Name
	case ActTimer:
		next := c.NextTimer()
		return fmt.Sprintf("tick (t=%d %s)", next.At, next.Name)
	}
	return fmt.Sprintf("unknown action %+v", act)
}

// runUntil takes the first enabled action until none is left but timers
// due after until.
func (d *scriptDriver) runUntil(until Time) error {
	for range 1000 {
		var next *Action
		for _, act := range d.c.Enabled(nil) {
			if act.Kind != ActTimer || d.c.NextTimer().At <= until {
				next = &act
				break
			}
		}
		if next == nil {
			return nil
		}
		d.c.Do(*next)
	}
	return fmt.Errorf("still busy after 1000 steps")
}

// fault applies a fault primitive now, as one step, the way a fault
// schedule injects it: through a timer set with Interrupt, so that it
// strikes even while events are in flight. Its notes, and an error as
// "fault had no target", go to the step's record.
func (d *scriptDriver) fault(cmd string, a *scriptArgs, line string) error {
	if cmd == "heal" {
		if err := a.unused(); err != nil {
			return err
		}
		d.c.Faults().Heal()
		return nil
	}
	apply, err := d.primitive(cmd, a)
	if err == nil {
		err = a.unused()
	}
	if err != nil {
		return err
	}
	tm := d.c.Faults().Interrupt(d.c.Now(), "fault", line, func() {
		if err := apply(); err != nil {
			d.c.Note("fault had no target: %v", err)
		}
	})

	if next := d.c.NextTimer(); next != tm {
		tm.Cancel()
		return fmt.Errorf("timer %q is due first: tick it before the fault", next.Name)
	}
	d.c.Do(Action{Kind: ActTimer})
	return nil
}

// primitive reads a fault command's arguments and returns the call of the
// Cluster's fault primitive it names.
func (d *scriptDriver) primitive(cmd string, a *scriptArgs) (func() error, error) {
	c := d.c
	switch cmd {
	case "lag":
		ctl, kind := splitInformer(a.pos(0))
		behind, dur := uint64(a.need("behind")), Time(a.need("for"))
		return func() error { return c.Faults().Lag(ctl, kind, behind, dur) }, nil
	case "partition":
		ctl, dur := a.pos(0), Time(a.need("for"))
		return func() error { return c.Faults().Partition(ctl, dur) }, nil
	case "crash":
		ctl, down := a.pos(0), Time(a.need("down"))
		return func() error { return c.Faults().Crash(ctl, down) }, nil
	case "crash-after-writes":
		ctl, writes, down := a.pos(0), a.need("writes"), Time(a.need("down"))
		return func() error { return c.Faults().CrashAfterWrites(ctl, writes, down) }, nil
	case "fail-writes":
		ctl, n, applied := a.pos(0), a.need("n"), a.flag("applied")
		reason := Reason(a.str("reason", ""))
		if !slices.Contains([]Reason{ReasonConflict, ReasonTimeout, ReasonTooManyReqs, ReasonInternal, ReasonUnavailable}, reason) {
			return nil, fmt.Errorf("reason=%s: want Conflict, Timeout, TooManyRequests, InternalError or ServiceUnavailable", reason)
		}
		err := &StatusError{Reason: reason, Message: "injected"}
		return func() error { return c.Faults().FailWrites(ctl, err, n, applied) }, nil
	case "arm-delay":
		ctl, kind := splitInformer(a.pos(0))
		dur := Time(a.need("for"))
		return func() error { return c.Faults().ArmDelay(ctl, kind, dur) }, nil
	case "arm-duplicate":
		ctl, kind := splitInformer(a.pos(0))
		return func() error { return c.Faults().ArmDuplicate(ctl, kind) }, nil
	case "arm-drop":
		ctl, kind := splitInformer(a.pos(0))
		return func() error { return c.Faults().ArmDrop(ctl, kind) }, nil
	case "expire":
		ctl, kind := splitInformer(a.pos(0))
		return func() error { return c.Faults().Expire(ctl, kind) }, nil
	case "timetravel":
		ctl, behind, down := a.pos(0), uint64(a.need("behind")), Time(a.need("down"))
		return func() error { return c.Faults().TimeTravel(ctl, behind, down) }, nil
	case "timetravel-landmark":
		ctl, landmark, down := a.pos(0), int(a.need("landmark")), Time(a.need("down"))
		return func() error { return c.Faults().TimeTravelToLandmark(ctl, landmark, down) }, nil
	case "rival":
		r, err := parseRival(a)
		return func() error { return c.Faults().StartRival(r) }, err
	}
	return nil, fmt.Errorf("unknown fault %q", cmd)
}

// parseRival reads "rival <name> <Kind> <ns/name> <path>=<value> [persistent]".
func parseRival(a *scriptArgs) (Rival, error) {
	ref, err := parseRef(a.pos(1), a.pos(2))
	if err != nil {
		return Rival{}, err
	}
	paths := a.fields()
	if len(paths) != 1 {
		return Rival{}, fmt.Errorf("a rival owns exactly one field, got %d", len(paths))
	}
	return Rival{Name: a.pos(0), Target: ref, Path: paths[0], Value: scriptValue(a.kv[paths[0]]), Persistent: a.flag("persistent")}, nil
}

func (d *scriptDriver) informer(name string) (*Informer, error) {
	ctl, kind := splitInformer(name)
	return d.c.lookupInformer(ctl, kind)
}

// state renders the server's objects of kind, or of every kind.
func (d *scriptDriver) state(kind string) []string {
	st := d.c.State()
	kinds := st.Kinds()
	if kind != "" {
		kinds = []string{kind}
	}
	var lines []string
	for _, k := range kinds {
		for _, o := range st.List(k, ListOptions{}) {
			lines = append(lines, formatObject(o))
		}
	}
	return lines
}

// formatObject renders "Pod default/web-0@5 owner=Set/web spec={...}",
// leaving out what is empty.
func formatObject(o *Object) string {
	s := o.String()
	if ref, ok := o.ControllerRef(); ok {
		s += " owner=" + ref.Kind + "/" + ref.Name
	}
	if o.Deleting() {
		s += " deleting"
	}
	if o.Labels.Len() > 0 {
		s += " labels=" + o.Labels.String()
	}
	if o.Spec.Len() > 0 {
		s += " spec=" + o.Spec.String()
	}
	if o.Status.Len() > 0 {
		s += " status=" + o.Status.String()
	}
	return s
}

func parseRef(kind, key string) (Ref, error) {
	if kind == "" || key == "" {
		return Ref{}, fmt.Errorf("want an object as <Kind> <ns/name>")
	}
	ns, name := SplitKey(key)
	return Ref{Kind: kind, Namespace: ns, Name: name}, nil
}

// splitInformer splits "ctl/Kind".
func splitInformer(s string) (ctl, kind string) {
	ctl, kind, _ = strings.Cut(s, "/")
	return ctl, kind
}

// scriptValue reads a field value: an integer, a boolean, or a string.
func scriptValue(s string) any {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n
	}
	if b, err := strconv.ParseBool(s); err == nil && (s == "true" || s == "false") {
		return b
	}
	return s
}
