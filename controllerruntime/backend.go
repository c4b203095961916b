package controllerruntime

import "github.com/converge-sim/converge/model"

// reader is where a client's reads come from: a controller's informer
// cache, the API server itself, or a read-only view of its state.
type reader interface {
	Get(kind, namespace, name string) (*model.Object, error)
	List(kind string, opts model.ListOptions) ([]*model.Object, error)
}

// writer is where a client's writes go: model.Client for a controller,
// model.Outside for an actor.
type writer interface {
	Create(obj *model.Object) error
	Update(obj *model.Object) error
	UpdateStatus(obj *model.Object) error
	Delete(ref model.Ref, opts model.DeleteOptions) error
}

// peekReader reads a controller's informer cache without copying
// (model.Client's Peek and PeekList, as client-go's listers read): a
// client only decodes what it reads and never modifies it, so the copy
// Get and List make would be thrown away. The cluster's cache-mutation
// detector checks, at the end of every step, that nothing was modified.
// Before each read it lets the time its reconcile waited pass in the model
// (wait.go), so a reconcile that polls its cache sees it change.
type peekReader struct {
	c model.Client
	w *waiter
}

func (p peekReader) Get(kind, namespace, name string) (*model.Object, error) {
	p.w.catchUp()
	return p.c.Peek(kind, namespace, name)
}

func (p peekReader) List(kind string, opts model.ListOptions) ([]*model.Object, error) {
	p.w.catchUp()
	return p.c.PeekList(kind, opts)
}

// liveReader reads a controller's API server through model.APIReader,
// after letting the time its reconcile waited pass in the model.
type liveReader struct {
	r model.APIReader
	w *waiter
}

func (l liveReader) Get(kind, namespace, name string) (*model.Object, error) {
	l.w.catchUp()
	return l.r.GetLive(kind, namespace, name)
}

func (l liveReader) List(kind string, opts model.ListOptions) ([]*model.Object, error) {
	l.w.catchUp()
	return l.r.ListLive(kind, opts)
}

// outsideReader reads the API server through an outside handle.
type outsideReader struct{ o *model.Outside }

func (o outsideReader) Get(kind, namespace, name string) (*model.Object, error) {
	return o.o.Get(kind, namespace, name)
}

func (o outsideReader) List(kind string, opts model.ListOptions) ([]*model.Object, error) {
	return o.o.List(kind, opts), nil
}

// stateReader reads a read-only view of the API server's state. It hands
// out the stored objects; the client only converts them.
type stateReader struct{ s model.State }

func (s stateReader) Get(kind, namespace, name string) (*model.Object, error) {
	if o := s.s.Get(kind, namespace, name); o != nil {
		return o, nil
	}
	return nil, &model.StatusError{Reason: model.ReasonNotFound, Message: kind + " " + model.Key(namespace, name) + " not found"}
}

func (s stateReader) List(kind string, opts model.ListOptions) ([]*model.Object, error) {
	return s.s.List(kind, opts), nil
}
