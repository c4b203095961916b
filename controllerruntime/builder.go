package controllerruntime

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/converge-sim/converge/model"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// Builder declares a controller as controller-runtime's builder does:
// For the kind it reconciles, Owns the kinds it creates, Watches further
// kinds through any handler.EventHandler, with predicate.Predicates per
// watch or for all. A SetupWithManager translates line by line:
//
//	ctrl.NewControllerManagedBy(mgr).For(&appsv1.ReplicaSet{}).Owns(&corev1.Pod{}).Complete(r)
//
// becomes
//
//	crt.NewControllerManagedBy(mgr).For(&appsv1.ReplicaSet{}).Owns(&corev1.Pod{}).
//		Complete(func(c client.Client) reconcile.Reconciler { return &Reconciler{Client: c} })
//
// Complete takes a constructor rather than a reconciler: the model builds
// a fresh reconciler at start and after every restart, which loses what
// the old one kept in memory. The package example declares a controller
// this way.
type Builder struct {
	m       *Manager
	name    string
	forIn   *source
	watches []*source
	global  []predicate.Predicate
	goal    GoalFunc
	errs    []error
}

// source is one source of events: a kind, its handler and predicates.
type source struct {
	obj             client.Object
	kind            string
	handler         handler.EventHandler
	predicates      []predicate.Predicate
	owned           bool
	matchEveryOwner bool
	// readOnly: only controller-runtime's own code sees its events (see
	// readOnly in sources.go).
	readOnly bool
}

// Option configures one For, Owns or Watches.
type Option interface{ apply(*source) }

type predicatesOption []predicate.Predicate

func (p predicatesOption) apply(w *source) { w.predicates = append(w.predicates, p...) }

// WithPredicates filters the events of one watch, as builder.WithPredicates.
func WithPredicates(predicates ...predicate.Predicate) Option {
	return predicatesOption(predicates)
}

type matchEveryOwner struct{}

func (matchEveryOwner) apply(w *source) { w.matchEveryOwner = true }

// MatchEveryOwner makes Owns enqueue every owner of the For kind, not only
// the controlling one, as builder.MatchEveryOwner.
var MatchEveryOwner Option = matchEveryOwner{}

// NewControllerManagedBy starts declaring a controller of m.
func NewControllerManagedBy(m *Manager) *Builder { return &Builder{m: m} }

func (b *Builder) add(obj client.Object, h handler.EventHandler, opts []Option) *source {
	if _, err := b.m.pin(obj); err != nil {
		b.errs = append(b.errs, err)
	}
	kind, err := b.m.kind(obj)
	if err != nil {
		b.errs = append(b.errs, err)
	}
	w := &source{obj: obj, kind: kind, handler: h}
	for _, o := range opts {
		o.apply(w)
	}
	return w
}

// For declares the kind the controller reconciles: its events enqueue the
// object's own key.
func (b *Builder) For(obj client.Object, opts ...Option) *Builder {
	if b.forIn != nil {
		b.errs = append(b.errs, errors.New("For() can only be called once"))
	}
	b.forIn = b.add(obj, &handler.EnqueueRequestForObject{}, opts)
	return b
}

// Owns declares a kind the controller creates: its events enqueue the
// controlling owner of the For kind (every owner with MatchEveryOwner).
func (b *Builder) Owns(obj client.Object, opts ...Option) *Builder {
	w := b.add(obj, nil, opts)
	w.owned = true
	b.watches = append(b.watches, w)
	return b
}

// Watches declares a further kind whose events go through h, for example
// handler.EnqueueRequestsFromMapFunc. A kind the controller only reads
// needs a watch too (its informer is the client's cache): use an empty
// &handler.Funcs{}.
func (b *Builder) Watches(obj client.Object, h handler.EventHandler, opts ...Option) *Builder {
	b.watches = append(b.watches, b.add(obj, h, opts))
	return b
}

// WithEventFilter filters the events of every watch.
func (b *Builder) WithEventFilter(p predicate.Predicate) *Builder {
	b.global = append(b.global, p)
	return b
}

// Named names the controller; the default is the For kind in lower case.
func (b *Builder) Named(name string) *Builder {
	b.name = name
	return b
}

// WithGoal sets what must hold once the cluster is at a fixed point; see
// properties.Converges.
func (b *Builder) WithGoal(g GoalFunc) *Builder {
	b.goal = g
	return b
}

// Complete adds the controller to the manager's cluster. newReconciler
// builds the reconciler from the client the controller gets: its reads
// come from the controller's own informer caches, its writes go to the
// API server.
func (b *Builder) Complete(newReconciler func(c client.Client) reconcile.Reconciler) error {
	if b.forIn == nil {
		b.errs = append(b.errs, errors.New("must provide an object for reconciliation: call For()"))
	}
	if newReconciler == nil {
		b.errs = append(b.errs, errors.New("Complete needs a reconciler constructor"))
	}
	if err := errors.Join(b.errs...); err != nil {
		return err
	}
	for _, w := range b.watches {
		if w.owned {
			opts := []handler.OwnerOption{handler.OnlyControllerOwner()}
			if w.matchEveryOwner {
				opts = nil
			}
			w.handler = handler.EnqueueRequestForOwner(b.m.GetScheme(), b.m.mapper, b.forIn.obj, opts...)
		}
	}
	name := b.name
	if name == "" {
		name = strings.ToLower(b.forIn.kind)
	}
	spec := model.Controller{
		Name:         name,
		For:          b.forIn.kind,
		ResyncPeriod: b.m.conv.Ticks(b.m.opts.SyncPeriod),
		Backoff:      b.m.opts.Backoff,
	}
	n := &notifier{env: b.m.env, sources: append([]*source{b.forIn}, b.watches...), global: b.global}
	for _, w := range n.sources {
		// An owned kind's handler is the EnqueueRequestForOwner made above.
		w.readOnly = len(n.global) == 0 && (w.owned && len(w.predicates) == 0 || readOnly(reflect.ValueOf(w.handler), reflect.ValueOf(w.predicates)))
	}
	m := b.m
	syncClock := func() { m.clock.sync(m.cluster) }
	spec.Notify = func(note model.Notification) []model.Request {
		syncClock()
		return n.notify(note)
	}
	for _, w := range b.watches {
		if w.owned {
			spec.Owns = append(spec.Owns, w.kind)
		} else {
			spec.Watches = append(spec.Watches, model.Watch{Kind: w.kind})
		}
	}
	ctx := logIntoContext(b.m.opts.Logger.WithValues("controller", name))
	spec.NewReconciler = func(mc model.Client) model.Reconciler {
		live, ok := mc.(model.APIReader)
		if !ok {
			panic(fmt.Sprintf("controllerruntime: the model's client %T does not read the API server", mc))
		}
		wt := newWaiter(mc, b.m.conv, m.clock.bubble)
		cl := &modelClient{env: b.m.env, cache: peekReader{mc, wt}, live: liveReader{live, wt}, w: waitingWriter{mc, wt}, name: name}
		r := newReconciler(cl)
		return declaring(&adapter{ctx: ctx, r: r, conv: b.m.conv, before: syncClock, waiter: wt, random: b.m.random}, r)
	}
	if g := b.goal; g != nil {
		e := b.m.env
		spec.Goal = func(s model.State) []model.Unmet {
			syncClock()
			return g(context.Background(), newStateReader(e, s))
		}
	}
	return b.m.cluster.AddController(spec)
}
