package model

import "fmt"

// Client is what a controller sees of the cluster, as a controller-runtime
// client backed by a cache: reads come from the controller's own informer
// caches (which may lag the server), writes go to the API server and can
// fail. Reads return private deep copies, except Peek and PeekList; writes
// copy the server's result (new resourceVersion, generated name, UID) back
// into the object passed in.
type Client interface {
	// Get reads one object from the informer cache of its kind.
	Get(kind, namespace, name string) (*Object, error)
	// List reads the matching objects from the informer cache, in key order.
	List(kind string, opts ListOptions) ([]*Object, error)
	// Peek and PeekList read from the cache without copying, as client-go's
	// listers do: the objects are the cache's own and must not be
	// modified. Modifying one corrupts the cache; the cluster detects it at
	// the end of the step (see Cluster.CacheMutation).
	Peek(kind, namespace, name string) (*Object, error)
	PeekList(kind string, opts ListOptions) ([]*Object, error)
	Create(obj *Object) error
	// Update writes metadata and spec; see Server.Update.
	Update(obj *Object) error
	// UpdateStatus writes status; see Server.UpdateStatus.
	UpdateStatus(obj *Object) error
	Delete(ref Ref, opts DeleteOptions) error
	// Evict deletes a pod through the eviction API, which refuses (429)
	// while a disruption budget allows no disruption.
	Evict(ref Ref) error
	// LastSyncResourceVersion returns the watermark of the informer cache
	// for kind: every write up to that resourceVersion is reflected in it.
	// (client-go's informer reports the last version its reflector
	// received, which can run ahead of the cache; this is the conservative
	// reading a controller's expectations need.)
	LastSyncResourceVersion(kind string) (uint64, error)
	// Now returns the virtual time.
	Now() Time
	// Wait lets d ticks of virtual time pass inside a reconcile: the
	// controller's informers deliver meanwhile, and the rest of the cluster
	// takes a fair round per tick (see wait.go and docs/design.md, "A
	// reconcile that waits"). Outside a reconcile it is an error.
	Wait(d Time) error
}

type client struct {
	ctl *controller
	// reads are the cached versions the controller read during step
	// readStep, to tell whether an unconditional write in the same step
	// (a read-modify-write in one reconcile) loses an update.
	reads    []*Object
	readStep int
	// readRoom is reads' first array: a run's controller reads from its
	// first reconcile, and growing reads from nothing took a few
	// allocations a run (BENCHMARKS.md, "Seventh round").
	readRoom [8]*Object
}

func (cl *client) informer(kind string) (*Informer, error) {
	inf := cl.ctl.informer(kind)
	if inf == nil {
		return nil, fmt.Errorf("controller %q reads %s but does not watch it: add it to For, Owns or Watches", cl.ctl.spec.Name, kind)
	}
	return inf, nil
}

func (cl *client) saw(o *Object) {
	if step := cl.ctl.c.step; cl.readStep != step {
		cl.reads, cl.readStep = cl.reads[:0], step
	}
	cl.reads = append(cl.reads, o)
}

// readThisStep returns the version of ref the controller read in this step,
// the latest if several, or nil.
func (cl *client) readThisStep(ref Ref) *Object {
	if cl.readStep != cl.ctl.c.step {
		return nil
	}
	for i := len(cl.reads) - 1; i >= 0; i-- {
		if o := cl.reads[i]; o.Name == ref.Name && o.Namespace == ref.Namespace && o.Kind == ref.Kind {
			return o
		}
	}
	return nil
}

// cached returns the cache's own object (not a copy), and remembers the
// read.
func (cl *client) cached(kind, namespace, name string) (*Object, error) {
	inf, err := cl.informer(kind)
	if err != nil {
		return nil, err
	}
	o := inf.cache.get(namespace, name)
	if o == nil {
		return nil, notFound(Ref{Kind: kind, Namespace: namespace, Name: name})
	}
	cl.saw(o)
	return o, nil
}

// cachedList returns read of each of the cache's own matching objects, in
// key order (nil for none), remembering the reads.
func (cl *client) cachedList(kind string, opts ListOptions, read func(*Object) *Object) ([]*Object, error) {
	inf, err := cl.informer(kind)
	if err != nil {
		return nil, err
	}
	return inf.cache.list(opts, func(o *Object) *Object {
		cl.saw(o)
		return read(o)
	}), nil
}

func (cl *client) Peek(kind, namespace, name string) (*Object, error) {
	o, err := cl.cached(kind, namespace, name)
	if err != nil {
		return nil, err
	}
	cl.ctl.c.lend(cl.ctl.spec.Name, o)
	return o, nil
}

func (cl *client) PeekList(kind string, opts ListOptions) ([]*Object, error) {
	return cl.cachedList(kind, opts, func(o *Object) *Object {
		cl.ctl.c.lend(cl.ctl.spec.Name, o)
		return o
	})
}

func (cl *client) Get(kind, namespace, name string) (*Object, error) {
	o, err := cl.cached(kind, namespace, name)
	if err != nil {
		return nil, err
	}
	return o.DeepCopy(), nil
}

func (cl *client) List(kind string, opts ListOptions) ([]*Object, error) {
	return cl.cachedList(kind, opts, (*Object).DeepCopy)
}

// call runs one write on behalf of the controller: it fails while the
// controller is partitioned, counts the write for a mid-reconcile crash, and
// records failures in the trace.
func (cl *client) call(verb Verb, ref Ref, write func(caller string) error) error {
	ctl := cl.ctl
	var err error
	if ctl.partitioned() {
		err = statusErr(ReasonUnavailable, "%s cannot reach the API server (partition)", ctl.spec.Name)
	} else {
		err = write(ctl.spec.Name)
	}
	if err != nil {
		ctl.c.noteFailed(Call{Verb: verb, Object: ref}, err)
		ctl.track.writeFailed(err)
	} else {
		ctl.wrote()
	}
	return err
}

func (cl *client) Create(obj *Object) error {
	return cl.call(VerbCreate, cl.ctl.c.server.createRef(obj), func(caller string) error { return cl.ctl.c.server.Create(caller, obj) })
}

func (cl *client) Update(obj *Object) error {
	return cl.call(VerbUpdate, obj.Ref(), func(caller string) error {
		cl.checkLostUpdate(VerbUpdate, obj)
		return cl.ctl.c.server.Update(caller, obj)
	})
}

func (cl *client) UpdateStatus(obj *Object) error {
	return cl.call(VerbUpdateStatus, obj.Ref(), func(caller string) error {
		cl.checkLostUpdate(VerbUpdateStatus, obj)
		return cl.ctl.c.server.UpdateStatus(caller, obj)
	})
}

func (cl *client) Delete(ref Ref, opts DeleteOptions) error {
	return cl.call(VerbDelete, ref, func(caller string) error { return cl.ctl.c.server.Delete(caller, ref, opts) })
}

func (cl *client) Evict(ref Ref) error {
	return cl.call(VerbEvict, ref, func(caller string) error { return cl.ctl.c.server.Evict(caller, ref) })
}

func (cl *client) LastSyncResourceVersion(kind string) (uint64, error) {
	inf, err := cl.informer(kind)
	if err != nil {
		return 0, err
	}
	return inf.SyncedRV(), nil
}

func (cl *client) Now() Time { return cl.ctl.c.clock.Now() }

// checkLostUpdate looks at an unconditional write (no resourceVersion)
// before it is made: if another writer changed a field since the version
// this controller read in this step, and the write puts that field back to
// what the controller read, the other writer's change is lost.
func (cl *client) checkLostUpdate(verb Verb, obj *Object) {
	if obj.ResourceVersion != 0 {
		return
	}
	ref := obj.Ref()
	base := cl.readThisStep(ref)
	stored := cl.ctl.c.server.Peek(ref)
	if base == nil || stored == nil || stored.ResourceVersion <= base.ResourceVersion {
		return
	}
	other := stored.writer
	if other == cl.ctl.spec.Name {
		return
	}
	for _, ch := range Diff(base, stored) {
		if IsStatusPath(ch.Path) != (verb == VerbUpdateStatus) {
			continue
		}
		if obj.Field(ch.Path) == ch.Old {
			cl.ctl.c.noteLostUpdate(LostUpdate{
				Writer: cl.ctl.spec.Name, Object: ref, Path: ch.Path,
				Lost: ch.New, Restored: ch.Old, LostWriter: other,
				BaseRV: base.ResourceVersion, StoredRV: stored.ResourceVersion,
			})
			return
		}
	}
}
