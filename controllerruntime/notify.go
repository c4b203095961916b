package controllerruntime

import (
	"context"
	"time"

	"github.com/converge-sim/converge/model"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// notifier turns the model's informer notifications into controller-runtime
// events, runs them through each watch's predicates and event handler, as
// a controller-runtime controller does, and returns what the handlers
// enqueued.
type notifier struct {
	*env
	sources []*source
	global  []predicate.Predicate
}

// notify is the model.Controller's Notify function.
func (n *notifier) notify(note model.Notification) []model.Request {
	var forms eventForms
	q := &collector{}
	ctx := context.Background()
	for _, w := range n.sources {
		if w.kind != note.Kind {
			continue
		}
		_, u := w.obj.(runtime.Unstructured)
		obj, old := forms.get(n.env, note, u, w.readOnly)
		switch note.Type {
		case model.Added:
			e := event.CreateEvent{Object: obj}
			if allow(n.global, w.predicates, func(p predicate.Predicate) bool { return p.Create(e) }) {
				w.handler.Create(ctx, e, q)
			}
		case model.Modified:
			e := event.UpdateEvent{ObjectOld: old, ObjectNew: obj}
			if allow(n.global, w.predicates, func(p predicate.Predicate) bool { return p.Update(e) }) {
				w.handler.Update(ctx, e, q)
			}
		case model.Deleted:
			e := event.DeleteEvent{Object: obj, DeleteStateUnknown: note.FinalStateUnknown}
			if allow(n.global, w.predicates, func(p predicate.Predicate) bool { return p.Delete(e) }) {
				w.handler.Delete(ctx, e, q)
			}
		}
	}
	if note.Type == model.Deleted && n.memo != nil && note.Object != nil {
		n.memo.forget(note.Object.UID)
	}
	return q.requests()
}

// allow reports whether every global and per-watch predicate lets an
// event through.
func allow(global, own []predicate.Predicate, pass func(predicate.Predicate) bool) bool {
	for _, p := range global {
		if !pass(p) {
			return false
		}
	}
	for _, p := range own {
		if !pass(p) {
			return false
		}
	}
	return true
}

// collector is the work queue event handlers see: it collects what they
// add, and the model's queue takes it from there. A delayed or
// rate-limited add counts as an add.
// It keeps them as the model's requests, which the model takes as they are.
type collector struct{ reqs []model.Request }

var _ workqueue.TypedRateLimitingInterface[reconcile.Request] = (*collector)(nil)

// requests returns what the handlers added, in order; never nil.
func (c *collector) requests() []model.Request {
	if c.reqs == nil {
		return []model.Request{}
	}
	return c.reqs
}

func (c *collector) Add(r reconcile.Request) {
	c.reqs = append(c.reqs, model.Request{Namespace: r.Namespace, Name: r.Name})
}
func (c *collector) AddAfter(r reconcile.Request, _ time.Duration) { c.Add(r) }
func (c *collector) AddRateLimited(r reconcile.Request)            { c.Add(r) }
func (c *collector) Forget(reconcile.Request)                      {}
func (c *collector) NumRequeues(reconcile.Request) int             { return 0 }
func (c *collector) Len() int                                      { return len(c.reqs) }
func (c *collector) Get() (reconcile.Request, bool)                { return reconcile.Request{}, true }
func (c *collector) Done(reconcile.Request)                        {}
func (c *collector) ShutDown()                                     {}
func (c *collector) ShutDownWithDrain()                            {}
func (c *collector) ShuttingDown() bool                            { return false }
