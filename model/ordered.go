package model

import (
	"cmp"
	"slices"
)

// objKey identifies an object within one kind.
type objKey struct {
	namespace, name string
}

func keyOf(o *Object) objKey { return objKey{namespace: o.Namespace, name: o.Name} }

func compareKeys(a, b objKey) int {
	if c := cmp.Compare(a.namespace, b.namespace); c != 0 {
		return c
	}
	return cmp.Compare(a.name, b.name)
}

// setKey makes an objKey an element of an orderedSet.
func (k objKey) setKey() objKey { return k }

// entry is an element of an index set: an object's key and the object
// stored at that key now. The store keeps the object current on every write
// (objectStore.put), so that a list through an index reads its candidates
// without looking each up in the store's map: at 10,000 objects that lookup
// is a cache miss or two per listed object.
type entry struct {
	key objKey
	obj *Object
}

func (e entry) setKey() objKey { return e.key }

// keyed is what an orderedSet holds: an object key, or an entry.
type keyed interface{ setKey() objKey }

// chunkSize bounds a chunk of an orderedSet: an insert or delete moves at
// most that many elements.
const chunkSize = 128

// orderedSet is a set of elements kept in the order of their object keys,
// so that iterating it is deterministic without sorting on every read
// (docs/design.md, trap 9). Elements live in sorted chunks of at most
// chunkSize: finding a key is two binary searches, inserting or deleting
// one moves a chunk, not the set, so the cost stays flat as the set grows.
type orderedSet[E keyed] struct {
	chunks [][]E
	n      int
}

// keySet is a store's set of every key; entrySet is an index's set of the
// objects that carry one label or owner.
type (
	keySet   = orderedSet[objKey]
	entrySet = orderedSet[entry]
)

func compareElem[E keyed](e E, k objKey) int { return compareKeys(e.setKey(), k) }

// find returns the chunk that holds k or would hold it.
func (s *orderedSet[E]) find(k objKey) int {
	i, _ := slices.BinarySearchFunc(s.chunks, k, func(c []E, k objKey) int { return compareElem(c[0], k) })
	// chunk i starts after k (or i == len): k belongs in the chunk before,
	// unless k sorts before every chunk.
	if i > 0 && (i == len(s.chunks) || compareElem(s.chunks[i][0], k) > 0) {
		i--
	}
	return i
}

// insert adds e, unless an element with its key is there already.
func (s *orderedSet[E]) insert(e E) bool {
	if len(s.chunks) == 0 {
		// Room for a few keys: most sets (an owner's dependents, a
		// label's objects) stay small.
		c := make([]E, 1, 4)
		c[0] = e
		s.chunks = [][]E{c}
		s.n = 1
		return true
	}
	k := e.setKey()
	ci := s.find(k)
	c := s.chunks[ci]
	j, found := slices.BinarySearchFunc(c, k, compareElem[E])
	if found {
		return false
	}
	c = slices.Insert(c, j, e)
	if len(c) > chunkSize {
		half := len(c) / 2
		tail := slices.Clone(c[half:])
		c = c[:half:half]
		s.chunks = slices.Insert(s.chunks, ci+1, tail)
	}
	s.chunks[ci] = c
	s.n++
	return true
}

// replace puts e in place of the element with its key, if there is one.
func (s *orderedSet[E]) replace(e E) {
	if s == nil || len(s.chunks) == 0 {
		return
	}
	k := e.setKey()
	c := s.chunks[s.find(k)]
	if j, found := slices.BinarySearchFunc(c, k, compareElem[E]); found {
		c[j] = e
	}
}

func (s *orderedSet[E]) remove(k objKey) bool {
	if len(s.chunks) == 0 {
		return false
	}
	ci := s.find(k)
	c := s.chunks[ci]
	j, found := slices.BinarySearchFunc(c, k, compareElem[E])
	if !found {
		return false
	}
	c = slices.Delete(c, j, j+1)
	if len(c) == 0 {
		s.chunks = slices.Delete(s.chunks, ci, ci+1)
	} else {
		s.chunks[ci] = c
	}
	s.n--
	return true
}

// nth returns the i-th element in order (0-based), walking the chunks.
func (s *orderedSet[E]) nth(i int) (E, bool) {
	if s == nil || i < 0 || i >= s.n {
		var zero E
		return zero, false
	}
	for _, c := range s.chunks {
		if i < len(c) {
			return c[i], true
		}
		i -= len(c)
	}
	var zero E
	return zero, false
}

func (s *orderedSet[E]) len() int {
	if s == nil {
		return 0
	}
	return s.n
}

// each calls fn for every element in order until fn returns false. fn must
// not change the set.
func (s *orderedSet[E]) each(fn func(E) bool) {
	if s == nil {
		return
	}
	for _, c := range s.chunks {
		for _, e := range c {
			if !fn(e) {
				return
			}
		}
	}
}

// keys returns the keys in order, as a new slice.
func (s *orderedSet[E]) keys() []objKey {
	out := make([]objKey, 0, s.len())
	s.each(func(e E) bool {
		out = append(out, e.setKey())
		return true
	})
	return out
}

// appendTo appends the elements in order to dst.
func (s *orderedSet[E]) appendTo(dst []E) []E {
	if s == nil {
		return dst
	}
	for _, c := range s.chunks {
		dst = append(dst, c...)
	}
	return dst
}

// index maps an index value ("app=web", an owner UID) to the ordered set of
// the objects that carry it.
type index map[string]*entrySet

func (ix index) add(value string, e entry) {
	if s := ix[value]; s != nil {
		s.insert(e)
		return
	}
	ix[value] = newEntrySet(e)
}

// newEntrySet returns the set of e, made with its first chunk in one
// allocation, with room for a few entries: most sets in an index (an
// owner's dependents, a label's objects) stay small.
func newEntrySet(e entry) *entrySet {
	r := &struct {
		set    entrySet
		chunks [1][]entry
		elems  [4]entry
	}{}
	r.elems[0] = e
	r.chunks[0] = r.elems[:1]
	r.set = entrySet{chunks: r.chunks[:], n: 1}
	return &r.set
}

// labelSet returns the set of the label "k=v", or nil, without building
// the string.
func (ix index) labelSet(k, v string) *entrySet {
	var buf [64]byte
	return ix[string(append(append(append(buf[:0], k...), '='), v...))]
}

// addLabel adds e under the label "k=v", building that string only when
// the index has no set for it yet.
func (ix index) addLabel(k, v string, e entry) {
	if s := ix.labelSet(k, v); s != nil {
		s.insert(e)
		return
	}
	ix.add(k+"="+v, e)
}

func (ix index) remove(value string, key objKey) {
	if s := ix[value]; s != nil {
		s.remove(key)
		if s.len() == 0 {
			delete(ix, value)
		}
	}
}
