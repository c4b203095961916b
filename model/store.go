package model

// objectStore holds the objects of one kind by key, in key order, with a
// label index and an owner index so that List by selector or by owner does
// not scan every object. The API server and every informer cache use one per
// kind. Stored objects are never mutated: a write replaces the pointer.
//
// Each index is built on its first use (labelIndex, ownerIndex) and kept
// from then on: most stores are never listed by label, and many never by
// owner (an informer cache of a kind nobody lists that way), so they skip
// the upkeep of indexes nobody reads. An index holds the same keys however
// late it was built, so no result depends on when.
type objectStore struct {
	objs    map[objKey]*Object
	keys    keySet
	byLabel index // "key=value" → object keys; nil until first used
	byOwner index // owner UID → object keys; nil until first used
	// rev is the resourceVersion of the last write that stored or
	// removed an object of this store (a server's store; see
	// State.KindRevision).
	rev uint64
}

func newObjectStore() *objectStore {
	return &objectStore{objs: map[objKey]*Object{}}
}

// labelIndex returns the label index, building it on first use.
func (s *objectStore) labelIndex() index {
	if s.byLabel == nil {
		s.byLabel = index{}
		s.keys.each(func(k objKey) bool {
			o := s.objs[k]
			for l, v := range o.Labels.All() {
				s.byLabel.addLabel(l, v, entry{k, o})
			}
			return true
		})
	}
	return s.byLabel
}

// ownerIndex returns the owner index, building it on first use.
func (s *objectStore) ownerIndex() index {
	if s.byOwner == nil {
		s.byOwner = index{}
		s.keys.each(func(k objKey) bool {
			o := s.objs[k]
			for _, r := range o.OwnerReferences {
				s.byOwner.add(string(r.UID), entry{k, o})
			}
			return true
		})
	}
	return s.byOwner
}

func (s *objectStore) get(namespace, name string) *Object {
	return s.objs[objKey{namespace: namespace, name: name}]
}

func (s *objectStore) len() int { return len(s.objs) }

// put stores o under its key, replacing any previous version, and returns
// that version, or nil.
func (s *objectStore) put(o *Object) (old *Object) {
	key := keyOf(o)
	old = s.objs[key]
	s.objs[key] = o
	s.rev = o.ResourceVersion
	switch {
	case old == nil:
		s.keys.insert(key)
		s.indexAdd(key, o)
	case old == o || (s.byLabel == nil && s.byOwner == nil):
	case sameIndexValues(old, o):
		s.indexRefresh(key, o)
	default:
		s.indexRemove(key, old)
		s.indexAdd(key, o)
	}
	return old
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

// indexAdd adds o, stored at key, to the indexes built so far.
func (s *objectStore) indexAdd(key objKey, o *Object) {
	if s.byLabel != nil {
		for k, v := range o.Labels.All() {
			s.byLabel.addLabel(k, v, entry{key, o})
		}
	}
	if s.byOwner != nil {
		for _, r := range o.OwnerReferences {
			s.byOwner.add(string(r.UID), entry{key, o})
		}
	}
}

// indexRefresh makes o, a new version stored at key with the labels and
// owners of the version it replaces, the object of its index entries.
func (s *objectStore) indexRefresh(key objKey, o *Object) {
	if s.byLabel != nil {
		for k, v := range o.Labels.All() {
			s.byLabel.labelSet(k, v).replace(entry{key, o})
		}
	}
	if s.byOwner != nil {
		for _, r := range o.OwnerReferences {
			s.byOwner[string(r.UID)].replace(entry{key, o})
		}
	}
}

// indexRemove removes o, stored at key, from the indexes built so far.
func (s *objectStore) indexRemove(key objKey, o *Object) {
	if s.byLabel != nil {
		for k, v := range o.Labels.All() {
			s.byLabel.remove(k+"="+v, key)
		}
	}
	if s.byOwner != nil {
		for _, r := range o.OwnerReferences {
			s.byOwner.remove(string(r.UID), key)
		}
	}
}

func sameIndexValues(a, b *Object) bool {
	if !a.Labels.Equal(b.Labels) || len(a.OwnerReferences) != len(b.OwnerReferences) {
		return false
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
	if opts.Owner != "" && !ownedBy(o, opts.Owner) {
		return false
	}
	return opts.Selector.Matches(o.Labels)
}

// ownedBy reports whether o has an owner reference to uid.
func ownedBy(o *Object, uid UID) bool {
	for _, r := range o.OwnerReferences {
		if r.UID == uid {
			return true
		}
	}
	return false
}

// matchesEntry is matches for a candidate from an index set: the namespace
// is read from the entry's key, and the owner is not checked again when the
// set is the owner's (owned), so that an object no filter needs is not read
// at all.
func (opts ListOptions) matchesEntry(e entry, owned bool) bool {
	if opts.Namespace != "" && e.key.namespace != opts.Namespace {
		return false
	}
	if opts.Owner != "" && !owned && !ownedBy(e.obj, opts.Owner) {
		return false
	}
	return len(opts.Selector) == 0 || opts.Selector.Matches(e.obj.Labels)
}

// candidates returns the smallest index set that holds every object
// matching opts, and whether it is the owner's set (so every object in it
// has the owner opts asks for). It returns all when no index narrows the
// list, so every stored object is a candidate, and nil when none can match.
func (s *objectStore) candidates(opts ListOptions) (set *entrySet, owned, all bool) {
	if opts.Owner != "" {
		set = s.ownerIndex()[string(opts.Owner)]
		if set == nil {
			return nil, false, false
		}
		owned = true
	}
	for k, v := range opts.Selector {
		ls := s.labelIndex().labelSet(k, v)
		if ls == nil {
			return nil, false, false
		}
		if set == nil || ls.len() < set.len() {
			set, owned = ls, false
		}
	}
	return set, owned, set == nil
}

// maxListCap bounds the room list makes: a list narrowed by namespace
// alone may match a few of many candidates.
const maxListCap = 64

// list returns read of every stored object matching opts, in key order, or
// nil for none. The slice is made once, with room for the candidates (at
// most maxListCap), rather than grown.
func (s *objectStore) list(opts ListOptions, read func(*Object) *Object) []*Object {
	set, owned, all := s.candidates(opts)
	n := set.len()
	if all {
		n = s.keys.len()
	}
	if n == 0 {
		return nil
	}
	out := make([]*Object, 0, min(n, maxListCap))
	s.scan(opts, set, owned, all, func(o *Object) bool {
		out = append(out, read(o))
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
	set, owned, all := s.candidates(opts)
	s.scan(opts, set, owned, all, fn)
}

// scan calls fn for every candidate (as candidates returns them) that
// matches opts, in key order, until fn returns false.
func (s *objectStore) scan(opts ListOptions, set *entrySet, owned, all bool, fn func(*Object) bool) {
	if all {
		s.keys.each(func(k objKey) bool {
			o := s.objs[k]
			if !opts.matches(o) {
				return true
			}
			return fn(o)
		})
		return
	}
	set.each(func(e entry) bool {
		if !opts.matchesEntry(e, owned) {
			return true
		}
		return fn(e.obj)
	})
}
