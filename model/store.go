package model

// objectStore holds the objects of one kind by key, in key order, with a
// label index and an owner index so that List by selector or by owner does
// not scan every object. The API server and every informer cache use one per
// kind. Stored objects are never mutated: a write replaces the pointer.
type objectStore struct {
	objs    map[objKey]*Object
	keys    keySet
	byLabel index // "key=value" → object keys
	byOwner index // owner UID → object keys
}

func newObjectStore() *objectStore {
	return &objectStore{objs: map[objKey]*Object{}, byLabel: index{}, byOwner: index{}}
}

func (s *objectStore) get(namespace, name string) *Object {
	return s.objs[objKey{namespace: namespace, name: name}]
}

func (s *objectStore) len() int { return len(s.objs) }

// put stores o under its key, replacing any previous version.
func (s *objectStore) put(o *Object) {
	key := keyOf(o)
	old := s.objs[key]
	s.objs[key] = o
	if old == nil {
		s.keys.insert(key)
		s.indexAdd(key, o)
		return
	}
	if !sameIndexValues(old, o) {
		s.indexRemove(key, old)
		s.indexAdd(key, o)
	}
}

// del removes the object at key and returns it, or nil.
func (s *objectStore) del(key objKey) *Object {
	old := s.objs[key]
	if old == nil {
		return nil
	}
	delete(s.objs, key)
	s.keys.remove(key)
	s.indexRemove(key, old)
	return old
}

func (s *objectStore) indexAdd(key objKey, o *Object) {
	for k, v := range o.Labels {
		s.byLabel.addLabel(k, v, key)
	}
	for _, r := range o.OwnerReferences {
		s.byOwner.add(string(r.UID), key)
	}
}

func (s *objectStore) indexRemove(key objKey, o *Object) {
	for k, v := range o.Labels {
		s.byLabel.remove(k+"="+v, key)
	}
	for _, r := range o.OwnerReferences {
		s.byOwner.remove(string(r.UID), key)
	}
}

func sameIndexValues(a, b *Object) bool {
	if len(a.Labels) != len(b.Labels) || len(a.OwnerReferences) != len(b.OwnerReferences) {
		return false
	}
	for k, v := range a.Labels {
		if w, ok := b.Labels[k]; !ok || w != v {
			return false
		}
	}
	for i := range a.OwnerReferences {
		if a.OwnerReferences[i].UID != b.OwnerReferences[i].UID {
			return false
		}
	}
	return true
}

// ListOptions narrows a List. The zero value lists every object of the kind.
type ListOptions struct {
	// Namespace restricts the list to one namespace; "" means all.
	Namespace string
	// Selector restricts the list to objects whose labels match.
	Selector Selector
	// Owner restricts the list to objects with an owner reference to Owner.
	Owner UID
}

// matches reports whether o passes every filter in opts.
func (opts ListOptions) matches(o *Object) bool {
	if opts.Namespace != "" && o.Namespace != opts.Namespace {
		return false
	}
	if opts.Owner != "" {
		owned := false
		for _, r := range o.OwnerReferences {
			if r.UID == opts.Owner {
				owned = true
				break
			}
		}
		if !owned {
			return false
		}
	}
	return opts.Selector.Matches(o.Labels)
}

// candidates returns the smallest ordered key set that holds every object
// matching opts, using the owner and label indexes; nil when none can
// match.
func (s *objectStore) candidates(opts ListOptions) *keySet {
	best := &s.keys
	if opts.Owner != "" {
		set := s.byOwner[string(opts.Owner)]
		if set == nil {
			return nil
		}
		best = set
	}
	for k, v := range opts.Selector {
		set := s.byLabel[k+"="+v]
		if set == nil {
			return nil
		}
		if set.len() < best.len() {
			best = set
		}
	}
	return best
}

// maxListCap bounds the room list makes: a list narrowed by namespace
// alone may match a few of many candidates.
const maxListCap = 64

// list returns read of every stored object matching opts, in key order, or
// nil for none. The slice is made once, with room for the candidates (at
// most maxListCap), rather than grown.
func (s *objectStore) list(opts ListOptions, read func(*Object) *Object) []*Object {
	cand := s.candidates(opts)
	if cand.len() == 0 {
		return nil
	}
	out := make([]*Object, 0, min(cand.len(), maxListCap))
	cand.each(func(k objKey) bool {
		if o := s.objs[k]; opts.matches(o) {
			out = append(out, read(o))
		}
		return true
	})
	if len(out) == 0 {
		return nil
	}
	return out
}

// each calls fn for every stored object matching opts, in key order, and
// stops early when fn returns false. The objects are the stored ones: fn
// must not modify them, nor write to the store.
func (s *objectStore) each(opts ListOptions, fn func(*Object) bool) {
	s.candidates(opts).each(func(k objKey) bool {
		o := s.objs[k]
		if !opts.matches(o) {
			return true
		}
		return fn(o)
	})
}
