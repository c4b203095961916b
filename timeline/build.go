package timeline

import (
	"slices"
	"strconv"
	"strings"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
)

// page is the data the page's script draws, as JSON. Keys are short: a
// run of thousands of steps has thousands of marks and records.
type page struct {
	Title     string       `json:"title"`
	Replay    string       `json:"replay,omitempty"`
	Violation *Violation   `json:"violation,omitempty"`
	QuietFrom int          `json:"quietFrom"`
	Lanes     []lane       `json:"lanes"`
	Marks     []mark       `json:"marks"`
	Records   []record     `json:"records"`
	Objects   []object     `json:"objects"`
	Faults    []faultEntry `json:"faults"`
	Writers   []string     `json:"writers"`
	_         struct{}     `json:"-"`
}

// Lane kinds.
const (
	laneFaults     = "faults"
	laneController = "controller"
	laneInformer   = "informer"
	laneActor      = "actor"
	laneServer     = "server"
	laneCluster    = "cluster"
)

type lane struct {
	Kind string `json:"kind"`
	Name string `json:"name"`
}

// mark is one thing drawn on a lane at a step: C lists its classes
// ("reconcile error"), O is the object it touched (-1: none), R the record
// it belongs to, whose text is its tooltip.
type mark struct {
	L int    `json:"l"`
	S int    `json:"s"`
	R int    `json:"r"`
	C string `json:"c"`
	O int    `json:"o"`
	// E is the last step of a span: a lag, a held event, a partition, a
	// controller down; zero for a mark of one step.
	E int `json:"e,omitempty"`
}

// record is one step: its time, its full text, the object it was about
// (with the version it saw) and the versions its writes made.
type record struct {
	Step   int        `json:"s"`
	Time   model.Time `json:"t"`
	Line   string     `json:"line"`
	Actor  string     `json:"a"`
	Object int        `json:"o"`
	// Version indexes the object's versions: the one the step was about
	// (the delivered version, or the latest at the step); -1 when none.
	Version int        `json:"v"`
	Writes  []writeRef `json:"w,omitempty"`
}

type writeRef struct {
	Object  int `json:"o"`
	Version int `json:"v"`
}

// object is one object's history: every version the API server stored,
// in order, each with all its fields flattened to "path": "value".
type object struct {
	Ref      string    `json:"ref"`
	Versions []version `json:"v"`
}

type version struct {
	Step int    `json:"s"`
	RV   uint64 `json:"rv"`
	// Writer indexes page.Writers.
	Writer  int               `json:"w"`
	Verb    string            `json:"verb"`
	Deleted bool              `json:"del,omitempty"`
	Fields  map[string]string `json:"f,omitempty"`
}

// faultEntry is one fault of the schedule and the record of the step it
// struck at (-1: it never struck).
type faultEntry struct {
	Text   string `json:"text"`
	Record int    `json:"r"`
}

// builder turns a run into page data.
type builder struct {
	p                                  page
	objects                            map[model.Ref]int
	writers                            map[string]int
	ctrlLane                           map[string]int
	infLane                            map[string]int // "controller/Kind"
	infKinds                           map[string][]string
	actorLane                          map[string]int
	faultLane, serverLane, clusterLane int
	// delivered holds, per informer lane, the object versions delivered
	// since its last (re)list, to tell a duplicate delivery.
	delivered map[int]map[deliveryKey]bool
	// open holds the spans not yet ended, per lane and kind, oldest first.
	open  map[spanKey][]int
	sched faults.Schedule
}

type spanKey struct {
	lane int
	kind string
}

type deliveryKey struct {
	ref model.Ref
	rv  uint64
}

func build(run Run) page {
	c := run.Cluster
	b := &builder{
		objects:   map[model.Ref]int{},
		writers:   map[string]int{},
		ctrlLane:  map[string]int{},
		infLane:   map[string]int{},
		infKinds:  map[string][]string{},
		actorLane: map[string]int{},
		delivered: map[int]map[deliveryKey]bool{},
		open:      map[spanKey][]int{},
		sched:     run.Schedule.Sorted(),
	}
	b.p.Title = run.Title
	b.p.Replay = run.Replay
	b.p.Violation = run.Violation
	b.p.QuietFrom = run.QuietFrom
	b.faultLane = b.addLane(laneFaults, "faults")
	for _, inf := range c.Informers() {
		b.infKinds[inf.Controller()] = append(b.infKinds[inf.Controller()], inf.Kind())
	}
	for _, name := range c.Controllers() {
		b.ctrlLane[name] = b.addLane(laneController, name)
		for _, kind := range b.infKinds[name] {
			b.infLane[name+"/"+kind] = b.addLane(laneInformer, name+"/"+kind)
		}
	}
	recs := c.Trace().Records
	// Outside actors get their lanes in order of first appearance, after
	// the controllers.
	for i := range recs {
		if a := recs[i].Actor; b.isOutside(a) {
			if _, ok := b.actorLane[a]; !ok {
				b.actorLane[a] = b.addLane(laneActor, a)
			}
		}
	}
	b.serverLane = b.addLane(laneServer, "API server")
	b.clusterLane = b.addLane(laneCluster, "cluster")

	faultRecord := map[int]int{}
	for i := range recs {
		if n := b.addRecord(i, &recs[i]); n > 0 {
			faultRecord[n] = i
		}
	}
	if len(recs) > 0 {
		b.closeAll(run.QuietFrom, recs[len(recs)-1].Step)
	}
	for i, t := range b.sched {
		r, ok := faultRecord[i+1]
		if !ok {
			r = -1
		}
		b.p.Faults = append(b.p.Faults, faultEntry{Text: t.String(), Record: r})
	}
	if b.p.Marks == nil {
		b.p.Marks = []mark{}
	}
	if b.p.Records == nil {
		b.p.Records = []record{}
	}
	if b.p.Objects == nil {
		b.p.Objects = []object{}
	}
	return b.p
}

func (b *builder) addLane(kind, name string) int {
	b.p.Lanes = append(b.p.Lanes, lane{Kind: kind, Name: name})
	return len(b.p.Lanes) - 1
}

// system actors act for the harness, not for the world outside.
func isSystem(actor string) bool {
	switch actor {
	case model.Setup, "cluster", "clock", model.GarbageCollector:
		return true
	}
	return false
}

func (b *builder) isOutside(actor string) bool {
	if actor == "fault" || isSystem(actor) {
		return false
	}
	_, ctrl := b.ctrlLane[actor]
	return !ctrl
}

func (b *builder) writer(name string) int {
	if i, ok := b.writers[name]; ok {
		return i
	}
	b.p.Writers = append(b.p.Writers, name)
	b.writers[name] = len(b.p.Writers) - 1
	return len(b.p.Writers) - 1
}

func (b *builder) object(ref model.Ref) int {
	if i, ok := b.objects[ref]; ok {
		return i
	}
	b.p.Objects = append(b.p.Objects, object{Ref: ref.String()})
	b.objects[ref] = len(b.p.Objects) - 1
	return len(b.p.Objects) - 1
}

// addRecord adds record i and its marks. It returns the fault number of a
// fault step, else 0.
func (b *builder) addRecord(i int, r *model.Record) int {
	rec := record{Step: r.Step, Time: r.Time, Line: r.String(), Actor: r.Actor, Object: -1, Version: -1}
	for _, w := range r.Writes {
		o := b.object(w.Ref())
		b.p.Objects[o].Versions = append(b.p.Objects[o].Versions, newVersion(r.Step, w, b.writer(w.Caller)))
		rec.Writes = append(rec.Writes, writeRef{Object: o, Version: len(b.p.Objects[o].Versions) - 1})
	}
	if r.Target.Kind != "" {
		rec.Object = b.object(r.Target)
		rec.Version = b.versionAt(rec.Object, r.RV)
	} else if len(rec.Writes) > 0 {
		rec.Object, rec.Version = rec.Writes[0].Object, rec.Writes[0].Version
	}
	b.p.Records = append(b.p.Records, rec)

	var kinds []noteKind
	for i := range r.Notes {
		kinds = append(kinds, classifyNote(&r.Notes[i]))
	}
	has := func(k noteKind) bool { return slices.Contains(kinds, k) }
	add := func(l int, class string) {
		b.p.Marks = append(b.p.Marks, mark{L: l, S: r.Step, R: i, C: class, O: rec.Object})
	}

	fault := 0
	switch {
	case r.Fault > 0:
		fault = r.Fault
		add(b.faultLane, "fault")
		if fault > 0 && fault <= len(b.sched) {
			b.faultSpan(b.sched[fault-1].Fault, r.Step, i, rec.Object)
		}
	case isSystem(r.Actor):
		add(b.clusterLane, "system")
	case b.isOutside(r.Actor):
		add(b.actorLane[r.Actor], "act"+writesClass(r))
	default:
		b.controllerMarks(r, has, add)
	}
	b.serverMarks(r, has, add)
	return fault
}

// controllerMarks puts a controller's step on its own lane (reconciles,
// restarts, partitions) or on one of its informers' lanes.
func (b *builder) controllerMarks(r *model.Record, has func(noteKind) bool, add func(int, string)) {
	ctl := r.Actor
	if kind := r.Informer; kind != "" {
		l, ok := b.infLane[ctl+"/"+kind]
		if !ok {
			l = b.ctrlLane[ctl]
		}
		seen := b.delivered[l]
		if seen == nil {
			seen = map[deliveryKey]bool{}
			b.delivered[l] = seen
		}
		class := "deliver"
		switch {
		case r.Kind == model.ActRewatch && has(noteExpired):
			class = "relist"
			clear(seen)
		case r.Kind == model.ActRewatch:
			class = "rewatch"
		case r.Timer == model.TimerResync:
			class = "resync-start"
		case r.Replay:
			class = "resync"
		case r.Timer == model.TimerLagEnds:
			class = "lag"
		case has(noteDropped):
			class = "drop"
		case has(noteHeld):
			class = "held"
		}
		switch {
		case class == "lag":
			b.closeSpan(l, "lag", r.Step)
		case class == "held":
			b.openSpan(l, "held", r.Step, len(b.p.Records)-1, b.p.Records[len(b.p.Records)-1].Object)
		case r.Timer == model.TimerRelease:
			b.closeSpan(l, "held", r.Step)
		}
		if delivered(r) || r.Timer == model.TimerRelease {
			key := deliveryKey{ref: r.Target, rv: r.RV}
			if r.RV != 0 && seen[key] {
				class += " dup"
			}
			seen[key] = true
		}
		add(l, class+writesClass(r))
		return
	}
	var class string
	switch {
	case r.Kind == model.ActReconcile:
		class = "reconcile"
		switch {
		case has(noteError):
			class += " error"
		case has(noteConflict), has(noteFailed):
			class += " failed"
		case has(noteRequeue):
			class += " requeue"
		}
	case r.Timer == model.TimerPartitionEnds:
		b.closeSpan(b.ctrlLane[ctl], "partition", r.Step)
		class = "other"
	case r.Timer == model.TimerRestart:
		class = "restart"
		b.closeSpan(b.ctrlLane[ctl], "down", r.Step)
		// A restart relists every informer of the controller.
		for _, kind := range b.infKinds[ctl] {
			l := b.infLane[ctl+"/"+kind]
			clear(b.delivered[l])
			add(l, "relist")
		}
	default:
		class = "other"
	}
	add(b.ctrlLane[ctl], class+writesClass(r))
}

// serverMarks puts the step's writes, and its failed calls, on the API
// server's lane.
func (b *builder) serverMarks(r *model.Record, has func(noteKind) bool, add func(int, string)) {
	if len(r.Writes) == 0 && !has(noteConflict) && !has(noteFailed) {
		return
	}
	class := "write"
	if len(r.Writes) > 0 {
		class += " " + r.Writes[0].Verb.String()
	}
	if has(noteConflict) {
		class += " conflict"
	}
	if has(noteFailed) {
		class += " failed"
	}
	add(b.serverLane, class)
}

func writesClass(r *model.Record) string {
	if len(r.Writes) > 0 {
		return " wrote"
	}
	return ""
}

// versionAt returns the index of the object's version with resourceVersion
// rv, or its latest version when rv is 0 or not stored; -1 when it has
// none.
func (b *builder) versionAt(o int, rv uint64) int {
	vs := b.p.Objects[o].Versions
	if rv != 0 {
		for i := len(vs) - 1; i >= 0; i-- {
			if vs[i].RV == rv {
				return i
			}
		}
	}
	return len(vs) - 1
}

func newVersion(step int, w model.Write, writer int) version {
	v := version{Step: step, RV: w.RV(), Writer: writer, Verb: w.Verb.String()}
	if w.New == nil {
		v.Deleted = true
		return v
	}
	v.Fields = flatten(w.New)
	return v
}

// flatten renders every field of an object as "path": "value", with the
// paths of model.Diff for labels, spec and status.
func flatten(o *model.Object) map[string]string {
	f := map[string]string{
		"metadata.uid":        string(o.UID),
		"metadata.generation": strconv.FormatInt(o.Generation, 10),
	}
	if o.DeletionTimestamp != nil {
		f["metadata.deletionTimestamp"] = "t=" + strconv.FormatInt(int64(*o.DeletionTimestamp), 10)
	}
	if len(o.Finalizers) > 0 {
		f["metadata.finalizers"] = strings.Join(o.Finalizers, ", ")
	}
	for i, ref := range o.OwnerReferences {
		s := ref.Kind + " " + ref.Name
		if ref.Controller {
			s += " (controller)"
		}
		f["metadata.ownerReferences."+strconv.Itoa(i)] = s
	}
	for k, v := range o.Labels.All() {
		f[model.MetadataPath(k)] = model.FormatValue(v)
	}
	for k, v := range o.Spec.All() {
		f["spec."+k] = model.FormatValue(v)
	}
	for k, v := range o.Status.All() {
		f["status."+k] = model.FormatValue(v)
	}
	return f
}

// faultSpan opens the span a fault starts, if it has one: a lag on the
// informer's lane, a partition or an immediate crash (a restart's, or a
// time travel's) on the controller's.
func (b *builder) faultSpan(f faults.Fault, step, rec, obj int) {
	switch f := f.(type) {
	case faults.Stale:
		if l, ok := b.infLane[f.Controller+"/"+f.Resource]; ok {
			b.openSpan(l, "lag", step, rec, obj)
		}
	case faults.Partition:
		if l, ok := b.ctrlLane[f.Controller]; ok {
			b.openSpan(l, "partition", step, rec, obj)
		}
	case faults.Restart:
		if l, ok := b.ctrlLane[f.Controller]; ok && f.AfterWrites == 0 {
			b.openSpan(l, "down", step, rec, obj)
		}
	case faults.TimeTravel:
		if l, ok := b.ctrlLane[f.Controller]; ok {
			b.openSpan(l, "down", step, rec, obj)
		}
	}
}

// openSpan starts a span of the given kind on a lane; it lasts until
// closeSpan ends it.
func (b *builder) openSpan(lane int, kind string, step, rec, obj int) {
	b.p.Marks = append(b.p.Marks, mark{L: lane, S: step, R: rec, C: "span " + kind, O: obj, E: step})
	key := spanKey{lane: lane, kind: kind}
	b.open[key] = append(b.open[key], len(b.p.Marks)-1)
}

// closeSpan ends the oldest open span of the kind on the lane at step.
func (b *builder) closeSpan(lane int, kind string, step int) {
	key := spanKey{lane: lane, kind: kind}
	if q := b.open[key]; len(q) > 0 {
		b.p.Marks[q[0]].E = step
		b.open[key] = q[1:]
	}
}

// closeAll ends the spans still open: healing ends them when quiescence
// begins, and a run that failed before then ends them at its last step.
func (b *builder) closeAll(quietFrom, last int) {
	for _, q := range b.open {
		for _, i := range q {
			end := last
			if quietFrom > b.p.Marks[i].S {
				end = quietFrom
			}
			b.p.Marks[i].E = end
		}
	}
	clear(b.open)
}
