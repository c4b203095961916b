package model

import (
	"slices"
	"strconv"
)

// DeleteOptions carries optional preconditions and the propagation policy
// for Delete.
type DeleteOptions struct {
	// UID, when set, must match the stored object's UID.
	UID UID
	// ResourceVersion, when non-zero, must match the stored object's.
	ResourceVersion uint64
	// Propagation says what becomes of the object's dependents; empty is
	// PropagationBackground. See propagation.go.
	Propagation Propagation
}

// Server is the model's API server with its storage. It keeps every object
// with a cluster-wide resourceVersion, a compacted history of events for
// watches, and a queue of dependents whose owners are gone, which the
// garbage collector deletes one step at a time.
type Server struct {
	now     func() Time
	rv      uint64
	seq     uint64
	kinds   map[string]*objectStore
	kindSeq []string // kind names in sorted order
	uids    map[UID]Ref

	history     []Event
	window      int
	compactedRV uint64
	watches     []*Stream

	gcQueue []Ref
	gcSet   map[Ref]bool
	gcDid   string // what the last CollectGarbage did of an Orphan or Foreground delete

	// intercepts and onWrite are the hooks, in the order they were
	// added; judged turns the intercepts off (see unchecked).
	intercepts []Intercept
	judged     bool
	onWrite    []func(Write)

	// admission, generation and rejections: see admission.go.
	admission  []Admission
	generation map[string]GenerationRule
	rejections map[rejectionKey]*Rejection
	rejectSeq  uint64

	notFounds map[Ref]*StatusError // see Server.notFound

	// generated is the last GenerateName a create named, and
	// generatedRef its name in a Ref (see createRef).
	generated, generatedRef string
}

// createRef is the Ref a create of o names in the trace: an object the
// server is still to name from its GenerateName shows as that prefix and
// "*". The name is made once for a run of creates with one prefix (a
// controller creating its pods), not once per create and caller.
func (s *Server) createRef(o *Object) Ref {
	ref := o.Ref()
	if ref.Name == "" && o.GenerateName != "" {
		if o.GenerateName != s.generated {
			s.generated, s.generatedRef = o.GenerateName, o.GenerateName+"*"
		}
		ref.Name = s.generatedRef
	}
	return ref
}

// NewServer returns an empty server whose history keeps at least window
// events (a watch from an older resourceVersion gets Expired).
func NewServer(now func() Time, window int) *Server {
	if window < 1 {
		window = 1
	}
	return &Server{
		now:   now,
		kinds: map[string]*objectStore{},
		uids:  map[UID]Ref{},
		// Room for a short run's events: a search builds a server per run,
		// and growing the history from nothing was six allocations of
		// each (BENCHMARKS.md, "Sixth round").
		history: make([]Event, 0, min(2*window, initialHistory)),
		window:  window,
		gcSet:   map[Ref]bool{},
	}
}

// initialHistory is the history's first capacity, in events.
const initialHistory = 64

// AddIntercept appends fn to the hooks that decide API errors. Hooks add
// up and are never replaced: a cluster installs its own (the fault that
// fails writes) when it is made, and a hook added later runs after it.
// For each call the hooks run in the order they were added; the first to
// return an error decides the call and the rest are not asked. A nil fn
// adds nothing.
func (s *Server) AddIntercept(fn Intercept) {
	if fn != nil {
		s.intercepts = append(s.intercepts, fn)
	}
}

// OnWrite appends fn to the callbacks that see every effective write.
// Callbacks add up and are never replaced: a cluster installs its own (the
// trace recorder, which also calls Cluster.OnWrite's listeners) when it is
// made, and one added later runs after it. They run in the order they were
// added. A nil fn adds nothing.
func (s *Server) OnWrite(fn func(Write)) {
	if fn != nil {
		s.onWrite = append(s.onWrite, fn)
	}
}

// Revision returns the current resourceVersion of the whole store.
func (s *Server) Revision() uint64 { return s.rv }

func (s *Server) store(kind string) *objectStore {
	st := s.kinds[kind]
	if st == nil {
		st = newObjectStore()
		s.kinds[kind] = st
		i, _ := slices.BinarySearch(s.kindSeq, kind)
		s.kindSeq = slices.Insert(s.kindSeq, i, kind)
	}
	return st
}

func (s *Server) lookup(ref Ref) *Object {
	st := s.kinds[ref.Kind]
	if st == nil {
		return nil
	}
	return st.get(ref.Namespace, ref.Name)
}

// maxNotFounds bounds the NotFound errors a server keeps for reuse.
const maxNotFounds = 64

// notFound returns the NotFound error of ref. The errors of recent refs
// are kept and returned again, since an error is never modified once made
// (its message is rendered once, the same for every reader): a controller
// on a lagging cache deletes the same gone pods on reconcile after
// reconcile, and its failures then cost no allocation.
func (s *Server) notFound(ref Ref) *StatusError {
	if e := s.notFounds[ref]; e != nil {
		return e
	}
	if s.notFounds == nil {
		s.notFounds = map[Ref]*StatusError{}
	} else if len(s.notFounds) >= maxNotFounds {
		clear(s.notFounds)
	}
	e := notFound(ref)
	s.notFounds[ref] = e
	return e
}

// Get returns a deep copy of the object, or NotFound.
func (s *Server) Get(kind, namespace, name string) (*Object, error) {
	o := s.lookup(Ref{Kind: kind, Namespace: namespace, Name: name})
	if o == nil {
		return nil, s.notFound(Ref{Kind: kind, Namespace: namespace, Name: name})
	}
	return o.DeepCopy(), nil
}

// List returns deep copies of the matching objects in key order, and the
// resourceVersion the list is consistent with.
func (s *Server) List(kind string, opts ListOptions) ([]*Object, uint64) {
	var out []*Object
	if st := s.kinds[kind]; st != nil {
		st.each(opts, func(o *Object) bool {
			out = append(out, o.DeepCopy())
			return true
		})
	}
	return out, s.rv
}

// Peek returns the stored object itself, without copying, or nil. Callers
// must not modify it. Properties and invariants read the store this way.
func (s *Server) Peek(ref Ref) *Object { return s.lookup(ref) }

// Each calls fn for every stored object of kind that matches opts, in key
// order, without copying, until fn returns false. fn must not modify the
// objects or write to the server.
func (s *Server) Each(kind string, opts ListOptions, fn func(*Object) bool) {
	if st := s.kinds[kind]; st != nil {
		st.each(opts, fn)
	}
}

// Count returns the number of stored objects of kind.
func (s *Server) Count(kind string) int {
	if st := s.kinds[kind]; st != nil {
		return st.len()
	}
	return 0
}

// Kinds returns the kinds that have ever been stored, sorted.
func (s *Server) Kinds() []string { return slices.Clone(s.kindSeq) }

// Exists reports whether an object with this UID is stored.
func (s *Server) Exists(uid UID) bool {
	_, ok := s.uids[uid]
	return ok
}

// unchecked runs fn with interception off: the parts of one request that
// the intercepts have already judged.
func (s *Server) unchecked(fn func() error) error {
	saved := s.judged
	s.judged = true
	defer func() { s.judged = saved }()
	return fn()
}

// check asks the intercepts, in order, whether the call fails; the first
// error decides.
func (s *Server) check(caller string, verb Verb, ref Ref) (error, bool) {
	if s.judged {
		return nil, false
	}
	for _, fn := range s.intercepts {
		if err, applied := fn(caller, verb, ref); err != nil {
			return err, applied
		}
	}
	return nil, false
}

func validate(o *Object) error {
	if o == nil {
		return statusErr(ReasonInvalid, "nil object")
	}
	if o.Kind == "" {
		return statusErr(ReasonInvalid, "object %q has no kind", o.Key())
	}
	if o.Name == "" && o.GenerateName == "" {
		return statusErr(ReasonInvalid, "%s has neither name nor generateName", o.Kind)
	}
	return nil
}

// Create stores a new object on behalf of caller. It assigns name (from
// GenerateName), UID, resourceVersion, generation 1 and the creation time,
// drops any status (status is written through UpdateStatus, as with a
// status subresource) and copies the stored result back into obj.
func (s *Server) Create(caller string, obj *Object) error {
	if err := validate(obj); err != nil {
		return err
	}
	spec, err := obj.Spec.normalize("spec")
	if err != nil {
		return statusErr(ReasonInvalid, "%s: %v", obj.Ref(), err)
	}
	var status Fields // kept only for a kind without a status subresource
	inMain := s.statusInMain(obj.Kind)
	if inMain {
		if status, err = obj.Status.normalize("status"); err != nil {
			return statusErr(ReasonInvalid, "%s: %v", obj.Ref(), err)
		}
	}
	failure, applied := s.check(caller, VerbCreate, s.createRef(obj))
	if failure != nil && !applied {
		return failure
	}
	st := s.store(obj.Kind)
	stored := obj.DeepCopy()
	stored.Spec = spec
	if stored.Name == "" {
		stored.key = s.generateName(st, obj.Namespace, obj.GenerateName)
		stored.Name = stored.key[len(stored.key)-len(obj.GenerateName)-nameSuffixLen:]
	}
	stored.Status = status
	defaulted := false
	if len(s.admission) > 0 {
		if defaulted, err = s.admitSpec(caller, VerbCreate, nil, stored); err != nil {
			return err
		}
	}
	if obj.Name != "" && st.get(stored.Namespace, stored.Name) != nil {
		return statusErr(ReasonAlreadyExists, "%s already exists", stored.Ref())
	}
	s.seq++
	s.rv++
	stored.UID = uidOf(s.seq)
	stored.ResourceVersion = s.rv
	stored.Generation = 0
	if s.hasGeneration(stored.Kind) {
		stored.Generation = 1
	}
	stored.CreationTimestamp = s.now()
	stored.DeletionTimestamp = nil
	if !inMain {
		stored.Status = Fields{}
	}
	stored.FieldManager = ""
	if !isKey(stored.key, stored.Namespace, stored.Name) { // admission may have renamed it
		stored.key = Key(stored.Namespace, stored.Name)
	}
	st.put(stored)
	s.uids[stored.UID] = stored.Ref()
	s.emit(Added, stored, Write{Caller: caller, Verb: VerbCreate, New: stored, FieldManager: obj.FieldManager})
	if s.orphaned(stored) {
		s.enqueueGC(stored.Ref())
	}
	s.wakeOwners(stored)
	obj.Name = stored.Name
	same := fromCallerMeta
	if obj.Spec.normal() && !defaulted {
		same |= fromCallerSpec
	}
	if inMain && obj.Status.normal() && !defaulted {
		same |= fromCallerStatus
	}
	reflect(obj, stored, same)
	return failure
}

// nameSuffixLen is the length of the suffix generateName appends.
const nameSuffixLen = 5

// generateName appends a deterministic five-character suffix to prefix, as
// the Kubernetes name generator does with random characters. It returns
// the new object's key, whose last len(prefix)+nameSuffixLen bytes are the
// name: one string serves as both.
func (s *Server) generateName(st *objectStore, namespace, prefix string) string {
	const alphabet = "bcdfghjklmnpqrstvwxz2456789"
	for {
		s.seq++
		n := s.seq * 2654435761 // spread consecutive numbers across the alphabet
		var suffix [nameSuffixLen]byte
		for i := range suffix {
			suffix[i] = alphabet[n%uint64(len(alphabet))]
			n /= uint64(len(alphabet))
		}
		var key string // as Key builds it, in one allocation
		if namespace == "" {
			key = prefix + string(suffix[:])
		} else {
			key = namespace + "/" + prefix + string(suffix[:])
		}
		if name := key[len(key)-len(prefix)-nameSuffixLen:]; st.get(namespace, name) == nil {
			return key
		}
	}
}

// isKey reports whether key is Key(namespace, name), without building it.
func isKey(key, namespace, name string) bool {
	if namespace == "" {
		return key == name
	}
	return len(key) == len(namespace)+1+len(name) && key[:len(namespace)] == namespace &&
		key[len(namespace)] == '/' && key[len(namespace)+1:] == name
}

func (s *Server) preconditions(stored *Object, uid UID, rv uint64) error {
	if uid != "" && uid != stored.UID {
		return statusErr(ReasonConflict, "%s: UID precondition failed: have %s, stored %s", stored.Ref(), uid, stored.UID)
	}
	if rv != 0 && rv != stored.ResourceVersion {
		return statusErr(ReasonConflict,
			"Operation cannot be fulfilled on %s: the object has been modified; please apply your changes to the latest version and try again (have resourceVersion %d, stored %d)",
			stored.Ref(), rv, stored.ResourceVersion)
	}
	return nil
}

// Update writes obj's labels, finalizers, owner references and spec on
// behalf of caller. A non-zero obj.ResourceVersion must match the stored one
// (Conflict otherwise). Status is ignored. A changed spec bumps generation;
// an update that changes nothing is a no-op that bumps nothing. Removing the
// last finalizer of an object being deleted completes the delete.
func (s *Server) Update(caller string, obj *Object) error {
	return s.update(caller, VerbUpdate, obj)
}

// UpdateStatus writes obj's status on behalf of caller, with the same
// resourceVersion precondition as Update. Everything else is ignored.
func (s *Server) UpdateStatus(caller string, obj *Object) error {
	return s.update(caller, VerbUpdateStatus, obj)
}

func (s *Server) update(caller string, verb Verb, obj *Object) error {
	if err := validate(obj); err != nil {
		return err
	}
	part, in := "spec", obj.Spec
	if verb == VerbUpdateStatus {
		part, in = "status", obj.Status
	}
	fields, err := in.normalize(part)
	if err != nil {
		return statusErr(ReasonInvalid, "%s: %v", obj.Ref(), err)
	}
	var status Fields // what an update writes of a kind without a status subresource
	inMain := verb == VerbUpdate && s.statusInMain(obj.Kind)
	if inMain {
		if status, err = obj.Status.normalize("status"); err != nil {
			return statusErr(ReasonInvalid, "%s: %v", obj.Ref(), err)
		}
	}
	ref := obj.Ref()
	failure, applied := s.check(caller, verb, ref)
	if failure != nil && !applied {
		return failure
	}
	stored := s.lookup(ref)
	if stored == nil {
		return s.notFound(ref)
	}
	if err := s.preconditions(stored, obj.UID, obj.ResourceVersion); err != nil {
		return err
	}
	defaulted := false
	if len(s.admission) > 0 {
		if fields, status, defaulted, err = s.admitUpdate(caller, verb, stored, obj, fields, status, inMain); err != nil {
			return err
		}
	}
	next := *stored
	same := fromCallerMeta
	if in.normal() && !defaulted {
		same |= fromCallerSpec
	}
	if inMain && obj.Status.normal() && !defaulted {
		same |= fromCallerStatus
	}
	if verb == VerbUpdateStatus {
		same = 0
		if in.normal() && !defaulted {
			same = fromCallerStatus
		}
		if stored.Status.Equal(fields) {
			reflect(obj, stored, same)
			return failure
		}
		next.Status = fields
	} else {
		specChanged := !stored.Spec.Equal(fields)
		statusChanged := inMain && !stored.Status.Equal(status)
		labelsSame := stored.Labels.Equal(obj.Labels)
		finalizersSame := slices.Equal(stored.Finalizers, obj.Finalizers)
		ownersSame := slices.Equal(stored.OwnerReferences, obj.OwnerReferences)
		if !specChanged && !statusChanged && labelsSame && finalizersSame && ownersSame {
			reflect(obj, stored, same)
			return failure
		}
		// Unchanged parts keep sharing the stored version's memory: stored
		// objects are never modified.
		if !labelsSame {
			next.Labels = obj.Labels
		}
		if !finalizersSame {
			next.Finalizers = slices.Clone(obj.Finalizers)
		}
		if !ownersSame {
			next.OwnerReferences = slices.Clone(obj.OwnerReferences)
		}
		if specChanged {
			next.Spec = fields
		}
		if statusChanged {
			next.Status = status
		}
		if (specChanged || statusChanged) && s.hasGeneration(ref.Kind) {
			next.Generation++
		}
	}
	s.rv++
	next.ResourceVersion = s.rv
	w := Write{Caller: caller, Verb: verb, Old: stored, Unconditional: obj.ResourceVersion == 0, FieldManager: obj.FieldManager}
	if next.Deleting() && len(next.Finalizers) == 0 {
		s.remove(&next, w)
		reflect(obj, &next, same)
		return failure
	}
	s.store(ref.Kind).put(&next)
	w.New = &next
	s.emit(Modified, &next, w)
	if verb == VerbUpdate && s.orphaned(&next) {
		s.enqueueGC(ref)
	}
	if !slices.Equal(stored.Finalizers, next.Finalizers) && propagating(&next) != "" {
		s.enqueueGC(ref)
	}
	if !slices.Equal(stored.OwnerReferences, next.OwnerReferences) {
		s.wakeOwners(stored)
		s.wakeOwners(&next)
	}
	reflect(obj, &next, same)
	return failure
}

// parts says which parts of an object a write took from the caller: they
// already equal what the server stored.
type parts uint8

const (
	fromCallerMeta   parts = 1 << iota // labels, finalizers, owner references
	fromCallerSpec                     // spec
	fromCallerStatus                   // status
)

// reflect makes the caller's object what the server stored after a write,
// as a client's Update does: metadata the server sets, and the parts the
// write did not take from the caller, copied only where they differ.
func reflect(obj, stored *Object, same parts) {
	obj.UID = stored.UID
	obj.ResourceVersion = stored.ResourceVersion
	obj.Generation = stored.Generation
	obj.CreationTimestamp = stored.CreationTimestamp
	obj.DeletionTimestamp = nil
	if stored.DeletionTimestamp != nil {
		t := *stored.DeletionTimestamp
		obj.DeletionTimestamp = &t
	}
	if same&fromCallerMeta == 0 {
		obj.Labels = stored.Labels
		if !slices.Equal(obj.Finalizers, stored.Finalizers) {
			obj.Finalizers = slices.Clone(stored.Finalizers)
		}
		if !slices.Equal(obj.OwnerReferences, stored.OwnerReferences) {
			obj.OwnerReferences = slices.Clone(stored.OwnerReferences)
		}
	}
	if same&fromCallerSpec == 0 && !obj.Spec.Equal(stored.Spec) {
		obj.Spec = stored.Spec
	}
	if same&fromCallerStatus == 0 && !obj.Status.Equal(stored.Status) {
		obj.Status = stored.Status
	}
}

// Delete deletes the object on behalf of caller. With finalizers it only
// sets the deletion timestamp (a Modified event); the object leaves when its
// last finalizer is removed. Dependents whose owners are all gone are queued
// for the garbage collector. The Orphan and Foreground policies add their
// finalizer and leave the rest to the collector; a policy given to an
// object already being deleted switches its finalizer (see
// propagation.go). An unknown policy is Invalid. The admission chain sees
// the delete (VerbDelete, with the stored object as old and a nil obj)
// and may refuse it.
func (s *Server) Delete(caller string, ref Ref, opts DeleteOptions) error {
	return s.delete(caller, ref, opts, true)
}

// delete is Delete; admit says whether the admission chain sees it (an
// eviction's delete does not: as in Kubernetes, admission judged the
// eviction instead).
func (s *Server) delete(caller string, ref Ref, opts DeleteOptions, admit bool) error {
	if err := opts.Propagation.validate(ref); err != nil {
		return err
	}
	failure, applied := s.check(caller, VerbDelete, ref)
	if failure != nil && !applied {
		return failure
	}
	stored := s.lookup(ref)
	if stored == nil {
		return s.notFound(ref)
	}
	if err := s.preconditions(stored, opts.UID, opts.ResourceVersion); err != nil {
		return err
	}
	if admit && len(s.admission) > 0 {
		// Admission sees the delete, old the stored object and no new
		// one; a step may refuse it (docs/design.md, "An operator's
		// webhooks").
		if err := s.admit(caller, VerbDelete, stored, nil); err != nil {
			return err
		}
	}
	w := Write{Caller: caller, Verb: VerbDelete, Old: stored, Propagation: opts.Propagation}
	if fs, changed := opts.Propagation.finalizers(stored.Finalizers); changed {
		s.deleteWithFinalizers(stored, fs, w)
		return failure
	}
	if len(stored.Finalizers) > 0 {
		if stored.Deleting() {
			return failure
		}
		next := *stored
		now := s.now()
		next.DeletionTimestamp = &now
		s.rv++
		next.ResourceVersion = s.rv
		s.store(ref.Kind).put(&next)
		w.New = &next
		s.emit(Modified, &next, w)
		if propagating(&next) != "" {
			s.enqueueGC(ref)
		}
		return failure
	}
	next := *stored
	s.rv++
	next.ResourceVersion = s.rv
	s.remove(&next, w)
	return failure
}

// remove takes last (carrying the deletion's resourceVersion) out of the
// store, emits Deleted and queues orphaned dependents for collection.
func (s *Server) remove(last *Object, w Write) {
	st := s.store(last.Kind)
	st.del(keyOf(last))
	st.rev = last.ResourceVersion
	delete(s.uids, last.UID)
	s.emit(Deleted, last, w)
	s.wakeOwners(last)
	for _, kind := range s.kindSeq {
		set := s.kinds[kind].ownerIndex()[string(last.UID)]
		for _, key := range set.keys() {
			if dep := s.kinds[kind].objs[key]; s.orphaned(dep) {
				s.enqueueGC(dep.Ref())
			}
		}
	}
}

// uidOf returns the UID "uid-N" of the server's Nth number. The first
// smallUIDs are substrings of one string made once, so that the creates
// of a short run (a search makes a cluster a run) allocate no UID:
// BENCHMARKS.md, "Seventh round".
func uidOf(n uint64) UID {
	if n+1 < uint64(len(smallUIDEnds)) {
		return UID(smallUIDText[smallUIDEnds[n]:smallUIDEnds[n+1]])
	}
	return UID("uid-" + strconv.FormatUint(n, 10))
}

// smallUIDs is how many UIDs uidOf gives without allocating.
const smallUIDs = 1024

// smallUIDText is "uid-0uid-1…uid-1023"; UID n runs from smallUIDEnds[n]
// to smallUIDEnds[n+1]. Both are made once and never written.
var smallUIDText, smallUIDEnds = makeSmallUIDs()

func makeSmallUIDs() (string, []uint32) {
	var b []byte
	ends := make([]uint32, 0, smallUIDs+1)
	for n := range uint64(smallUIDs) {
		ends = append(ends, uint32(len(b)))
		b = append(b, "uid-"...)
		b = strconv.AppendUint(b, n, 10)
	}
	ends = append(ends, uint32(len(b)))
	return string(b), ends
}
