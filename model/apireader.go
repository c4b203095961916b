package model

// APIReader reads from the API server itself, bypassing the informer
// cache, as controller-runtime's manager.GetAPIReader does. The Client every
// controller gets implements it (type-assert a Client to APIReader). Its
// reads see every write so far, so a read followed by a write in the same
// reconcile is atomic: the model runs one step at a time. They fail with
// ServiceUnavailable while the controller is partitioned from the server.
type APIReader interface {
	// GetLive reads one object from the API server.
	GetLive(kind, namespace, name string) (*Object, error)
	// ListLive reads the matching objects from the API server, in key order.
	ListLive(kind string, opts ListOptions) ([]*Object, error)
}

var _ APIReader = (*client)(nil)

// live runs one read, named by what (its object, or its kind for a list),
// against the server on behalf of the controller, with the same partition
// check and trace notes as a write.
func (cl *client) live(what Call, read func() error) error {
	ctl := cl.ctl
	var err error
	if ctl.partitioned() {
		err = statusErr(ReasonUnavailable, "%s cannot reach the API server (partition)", ctl.spec.Name)
	} else {
		err = read()
	}
	if err != nil && !IsNotFound(err) {
		ctl.c.noteFailed(what, err)
	}
	return err
}

// GetLive reads one object from the API server.
func (cl *client) GetLive(kind, namespace, name string) (*Object, error) {
	var o *Object
	err := cl.live(Call{Object: Ref{Kind: kind, Namespace: namespace, Name: name}}, func() (err error) {
		o, err = cl.ctl.c.server.Get(kind, namespace, name)
		return err
	})
	return o, err
}

// ListLive reads the matching objects from the API server, in key order.
func (cl *client) ListLive(kind string, opts ListOptions) ([]*Object, error) {
	var objs []*Object
	err := cl.live(Call{Object: Ref{Kind: kind}, List: true}, func() error {
		objs, _ = cl.ctl.c.server.List(kind, opts)
		return nil
	})
	return objs, err
}
