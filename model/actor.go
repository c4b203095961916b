package model

// Actor is part of the world outside the controllers: a user applying spec
// changes, a chaos monkey deleting pods, a node dying. Each time the
// scheduler picks it, it makes one change through an Outside handle.
type Actor interface {
	// Name identifies the actor in traces and as the writer of its changes.
	Name() string
	// Act makes one outside change. An error is recorded in the trace; it
	// does not stop the run.
	Act(o *Outside) error
}

// Chooser is the single source of every nondeterministic choice in a run.
// Choose returns an integer in [0, n); label names the choice for logs.
type Chooser interface {
	Choose(n int, label string) int
}

// firstChoice always picks 0. It is the chooser of a cluster nobody set one
// on, which makes such a cluster deterministic too.
type firstChoice struct{}

func (firstChoice) Choose(int, string) int { return 0 }

// Outside is a handle for writes from outside the controllers: actors,
// scenario setup and fault edits. Unlike a controller's client it reads
// fresh state from the API server.
type Outside struct {
	c    *Cluster
	name string
}

// Name returns the writer name the handle writes under.
func (o *Outside) Name() string { return o.name }

// Now returns the virtual time.
func (o *Outside) Now() Time { return o.c.clock.Now() }

// Choose draws a choice from the run's single source.
func (o *Outside) Choose(n int, label string) int {
	if n <= 1 {
		return 0
	}
	defer func() {
		if r := recover(); r != nil {
			panic(sourcePanic{r})
		}
	}()
	return o.c.chooser.Choose(n, label)
}

// sourcePanic carries a panic raised by the chooser (rapid stops a run this
// way when a shrunk input runs out) through the guard around user code, so
// that it reaches the caller instead of being reported as a user's panic.
type sourcePanic struct{ value any }

// Pick draws one object of kind that is not being deleted, in key order,
// and returns a copy of it, or nil when there is none. It draws among all
// the objects of kind, skipping forward past those being deleted, so that
// picking costs the same in a cluster of ten objects or ten thousand.
func (o *Outside) Pick(kind, label string) *Object {
	st := o.c.State()
	n := st.Len(kind)
	if n == 0 {
		return nil
	}
	start := o.Choose(n, label)
	for i := range n {
		if obj := st.Nth(kind, (start+i)%n); !obj.Deleting() {
			return obj.DeepCopy()
		}
	}
	return nil
}

// Get reads an object from the API server.
func (o *Outside) Get(kind, namespace, name string) (*Object, error) {
	return o.c.server.Get(kind, namespace, name)
}

// List reads the matching objects from the API server, in key order.
func (o *Outside) List(kind string, opts ListOptions) []*Object {
	objs, _ := o.c.server.List(kind, opts)
	return objs
}

// Create creates obj on the API server.
func (o *Outside) Create(obj *Object) error {
	return o.noted(VerbCreate, obj.Ref(), o.c.server.Create(o.name, obj))
}

// Update updates obj's metadata and spec on the API server.
func (o *Outside) Update(obj *Object) error {
	return o.noted(VerbUpdate, obj.Ref(), o.c.server.Update(o.name, obj))
}

// UpdateStatus updates obj's status on the API server.
func (o *Outside) UpdateStatus(obj *Object) error {
	return o.noted(VerbUpdateStatus, obj.Ref(), o.c.server.UpdateStatus(o.name, obj))
}

// Set sets the field at path ("spec.<path>", "status.<path>",
// "metadata.labels.<key>" or "metadata.annotations.<name>") of obj to v and writes it: through UpdateStatus
// for a status path, Update otherwise.
func (o *Outside) Set(obj *Object, path string, v any) error {
	if err := obj.SetField(path, v); err != nil {
		return err
	}
	if IsStatusPath(path) {
		return o.UpdateStatus(obj)
	}
	return o.Update(obj)
}

// Delete deletes the object on the API server.
func (o *Outside) Delete(ref Ref, opts DeleteOptions) error {
	return o.noted(VerbDelete, ref, o.c.server.Delete(o.name, ref, opts))
}

// Recreate deletes obj (with its UID as precondition) and creates it again
// with the same name, spec and labels and a new UID, as `kubectl replace
// --force` or a GitOps tool re-creating an object do; its status and owner
// references are gone. If finalizers hold the delete, the object is left
// deleting, with a note in the trace, and nothing is created.
func (o *Outside) Recreate(obj *Object) error {
	if err := o.Delete(obj.Ref(), DeleteOptions{UID: obj.UID}); err != nil {
		return err
	}
	if still, err := o.Get(obj.Kind, obj.Namespace, obj.Name); err == nil && still.UID == obj.UID {
		o.c.Note("%s is held by finalizers: not recreated", obj.Ref())
		return nil
	}
	return o.Create(Recreation(obj))
}

// Recreation returns the object a re-creation of obj creates: the same
// kind, namespace, name, labels and spec, and no UID, status or owner
// references.
func Recreation(obj *Object) *Object {
	return &Object{Kind: obj.Kind, Namespace: obj.Namespace, Name: obj.Name, Labels: obj.Labels, Spec: obj.Spec}
}

func (o *Outside) noted(verb Verb, ref Ref, err error) error {
	if err != nil {
		o.c.noteFailed(Call{Verb: verb, Object: ref}, err)
	}
	return err
}
