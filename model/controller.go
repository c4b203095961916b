package model

import (
	"errors"
	"fmt"
	"slices"
)

// Request names the object a reconcile is for, as controller-runtime's
// reconcile.Request does.
type Request struct {
	Namespace string
	Name      string
}

// Key returns "namespace/name".
func (r Request) Key() string { return Key(r.Namespace, r.Name) }

// RequestFor returns the request for object o.
func RequestFor(o *Object) Request { return Request{Namespace: o.Namespace, Name: o.Name} }

// Result tells the queue what to do with a key after a successful reconcile,
// with controller-runtime's semantics: RequeueAfter > 0 adds the key again
// after that many ticks (and forgets its backoff); Requeue adds it again with
// backoff. A returned error overrides both: the key is requeued with backoff.
type Result struct {
	Requeue      bool
	RequeueAfter Time
}

// Reconciler is a level-triggered controller: it reads the current state for
// one key and acts on the difference from the desired state.
type Reconciler interface {
	Reconcile(req Request) (Result, error)
}

// ReconcilerFunc adapts a function to Reconciler.
type ReconcilerFunc func(req Request) (Result, error)

// Reconcile calls f.
func (f ReconcilerFunc) Reconcile(req Request) (Result, error) { return f(req) }

// Handler is an edge-triggered controller: it reacts to each notification of
// its informers. Objects passed to it are private copies.
//
// As in client-go, which callback fires depends on the informer's cache, not
// on the watch event: a second Added for a cached object is an update; a
// relist delivers an add for every object the cache did not have (so after a
// restart, an add for every object); a resync delivers an update with
// old == new; a delete the informer learns of only by relisting arrives with
// finalStateUnknown set and the last state the cache had.
type Handler interface {
	OnAdd(obj *Object)
	OnUpdate(old, new *Object)
	OnDelete(obj *Object, finalStateUnknown bool)
}

// HandlerFuncs adapts optional functions to Handler.
type HandlerFuncs struct {
	AddFunc    func(obj *Object)
	UpdateFunc func(old, new *Object)
	DeleteFunc func(obj *Object, finalStateUnknown bool)
}

// OnAdd calls AddFunc if set.
func (h HandlerFuncs) OnAdd(obj *Object) {
	if h.AddFunc != nil {
		h.AddFunc(obj)
	}
}

// OnUpdate calls UpdateFunc if set.
func (h HandlerFuncs) OnUpdate(old, new *Object) {
	if h.UpdateFunc != nil {
		h.UpdateFunc(old, new)
	}
}

// OnDelete calls DeleteFunc if set.
func (h HandlerFuncs) OnDelete(obj *Object, finalStateUnknown bool) {
	if h.DeleteFunc != nil {
		h.DeleteFunc(obj, finalStateUnknown)
	}
}

// Watch asks a level-triggered controller to watch a further kind and says
// which keys its events enqueue. Map may read the controller's caches
// through c, as controller-runtime's map functions do. The object it gets
// is the cache's own, as with Client.Peek: it must not be modified, and a
// modification is caught as a cache mutation.
type Watch struct {
	Kind string
	Map  func(c Client, obj *Object) []Request
}

// Unmet is a goal that does not hold: the object it concerns and what is
// wrong, in words ("wants 3 pods, has 2").
type Unmet struct {
	Object  Ref
	Message string
}

func (u Unmet) String() string { return u.Object.String() + " " + u.Message }

// Controller declares a controller to run in the cluster.
type Controller struct {
	// Name identifies the controller in traces, faults and reports.
	Name string
	// For is the primary kind: its events enqueue the object's own key.
	For string
	// Owns lists kinds whose events enqueue the key of the object's
	// controlling owner, when that owner is of kind For.
	Owns []string
	// Watches lists further kinds with their own mapping to keys.
	Watches []Watch
	// Notify, when set, replaces the For, Owns and Watches mapping of a
	// level-triggered controller: every notification of its informers goes
	// to Notify, which returns the keys to enqueue (an event handler and
	// predicates, as controller-runtime has them). For, Owns and Watches
	// then only say which kinds the controller watches; a Watch needs no Map.
	Notify func(n Notification) []Request

	// NewReconciler builds a level-triggered controller. It is called at
	// start and after every restart: a restart loses whatever it kept.
	NewReconciler func(c Client) Reconciler
	// NewHandler builds an edge-triggered controller instead.
	NewHandler func(c Client) Handler

	// ResyncPeriod is how often each informer replays its cache to the
	// controller as updates with old == new; zero turns resync off.
	ResyncPeriod Time
	// Backoff is the rate-limited requeue's backoff; zero means DefaultBackoff.
	Backoff Backoff

	// Goal reports what is unmet in s from this controller's point of view.
	// Converges requires it to report nothing at the fixed point.
	Goal func(s State) []Unmet

	// Platform marks a controller that stands in for the platform under
	// a project (Kubernetes' own Deployment and Job controllers, the
	// kubelet) rather than a controller under test: faults aimed at
	// controllers leave it alone unless the scenario opts in
	// (properties.Scenario.FaultPlatform, or FaultTargets naming it).
	Platform bool

	_ struct{}
}

// kinds returns every kind the controller watches, sorted and unique.
func (c *Controller) kinds() []string {
	ks := []string{c.For}
	ks = append(ks, c.Owns...)
	for _, w := range c.Watches {
		ks = append(ks, w.Kind)
	}
	slices.Sort(ks)
	return slices.Compact(ks)
}

func (c *Controller) validate() error {
	var errs []error
	if c.Name == "" {
		errs = append(errs, errors.New("controller has no name"))
	}
	if c.For == "" {
		errs = append(errs, fmt.Errorf("controller %q: For (the primary kind) is empty", c.Name))
	}
	if (c.NewReconciler == nil) == (c.NewHandler == nil) {
		errs = append(errs, fmt.Errorf("controller %q: set exactly one of NewReconciler and NewHandler", c.Name))
	}
	for _, k := range c.Owns {
		if k == "" {
			errs = append(errs, fmt.Errorf("controller %q: empty kind in Owns", c.Name))
		}
	}
	for _, w := range c.Watches {
		if w.Kind == "" || (w.Map == nil && c.Notify == nil) {
			errs = append(errs, fmt.Errorf("controller %q: a Watch needs a Kind and a Map", c.Name))
		}
	}
	if c.ResyncPeriod < 0 {
		errs = append(errs, fmt.Errorf("controller %q: negative ResyncPeriod %d", c.Name, c.ResyncPeriod))
	}
	if c.Backoff.Base < 0 || c.Backoff.Max < c.Backoff.Base {
		errs = append(errs, fmt.Errorf("controller %q: backoff must satisfy 0 <= Base <= Max, got %+v", c.Name, c.Backoff))
	}
	return errors.Join(errs...)
}

// Edge reports whether the controller is edge-triggered.
func (c *Controller) Edge() bool { return c.NewHandler != nil }
