package model

// State is a read-only view of the API server for goals, invariants and
// properties. The objects it returns are the stored ones, not copies: they
// must not be modified.
type State struct {
	s   *Server
	now Time
}

// Now returns the virtual time of the view.
func (st State) Now() Time { return st.now }

// Get returns the stored object, or nil.
func (st State) Get(kind, namespace, name string) *Object {
	return st.s.Peek(Ref{Kind: kind, Namespace: namespace, Name: name})
}

// List returns the stored objects of kind matching opts, in key order.
func (st State) List(kind string, opts ListOptions) []*Object {
	store := st.s.kinds[kind]
	if store == nil {
		return nil
	}
	return store.list(opts, func(o *Object) *Object { return o })
}

// Kinds returns the kinds the server has stored, sorted.
func (st State) Kinds() []string { return st.s.Kinds() }

// Len returns how many objects of kind are stored.
func (st State) Len(kind string) int { return st.s.Count(kind) }

// Nth returns the i-th stored object of kind in key order, or nil.
func (st State) Nth(kind string, i int) *Object {
	store := st.s.kinds[kind]
	if store == nil {
		return nil
	}
	k, ok := store.keys.nth(i)
	if !ok {
		return nil
	}
	return store.objs[k]
}

// Count returns how many stored objects of kind match opts.
func (st State) Count(kind string, opts ListOptions) int {
	n := 0
	st.s.Each(kind, opts, func(*Object) bool {
		n++
		return true
	})
	return n
}
