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

// chunkSize bounds a chunk of a keySet: an insert or delete moves at most
// that many keys.
const chunkSize = 128

// keySet is a set of object keys kept in order, so that iterating it is
// deterministic without sorting on every read (docs/design.md, trap 9).
// Keys live in sorted chunks of at most chunkSize: finding a key is two
// binary searches, inserting or deleting one moves a chunk, not the set, so
// the cost stays flat as the set grows.
type keySet struct {
	chunks [][]objKey
	n      int
}

// find returns the chunk that holds k or would hold it.
func (s *keySet) find(k objKey) int {
	i, _ := slices.BinarySearchFunc(s.chunks, k, func(c []objKey, k objKey) int { return compareKeys(c[0], k) })
	// chunk i starts after k (or i == len): k belongs in the chunk before,
	// unless k sorts before every chunk.
	if i > 0 && (i == len(s.chunks) || compareKeys(s.chunks[i][0], k) > 0) {
		i--
	}
	return i
}

func (s *keySet) insert(k objKey) bool {
	if len(s.chunks) == 0 {
		// Room for a few keys: most sets (an owner's dependents, a
		// label's objects) stay small.
		c := make([]objKey, 1, 4)
		c[0] = k
		s.chunks = [][]objKey{c}
		s.n = 1
		return true
	}
	ci := s.find(k)
	c := s.chunks[ci]
	j, found := slices.BinarySearchFunc(c, k, compareKeys)
	if found {
		return false
	}
	c = slices.Insert(c, j, k)
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

func (s *keySet) remove(k objKey) bool {
	if len(s.chunks) == 0 {
		return false
	}
	ci := s.find(k)
	c := s.chunks[ci]
	j, found := slices.BinarySearchFunc(c, k, compareKeys)
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

// nth returns the i-th key in order (0-based), walking the chunks.
func (s *keySet) nth(i int) (objKey, bool) {
	if s == nil || i < 0 || i >= s.n {
		return objKey{}, false
	}
	for _, c := range s.chunks {
		if i < len(c) {
			return c[i], true
		}
		i -= len(c)
	}
	return objKey{}, false
}

func (s *keySet) len() int {
	if s == nil {
		return 0
	}
	return s.n
}

// each calls fn for every key in order until fn returns false. fn must not
// change the set.
func (s *keySet) each(fn func(objKey) bool) {
	if s == nil {
		return
	}
	for _, c := range s.chunks {
		for _, k := range c {
			if !fn(k) {
				return
			}
		}
	}
}

// keys returns the keys in order, as a new slice.
func (s *keySet) keys() []objKey { return s.appendTo(make([]objKey, 0, s.len())) }

// appendTo appends the keys in order to dst.
func (s *keySet) appendTo(dst []objKey) []objKey {
	if s == nil {
		return dst
	}
	for _, c := range s.chunks {
		dst = append(dst, c...)
	}
	return dst
}

// index maps an index value ("app=web", an owner UID) to the ordered set of
// object keys that carry it.
type index map[string]*keySet

func (ix index) add(value string, key objKey) {
	if s := ix[value]; s != nil {
		s.insert(key)
		return
	}
	ix[value] = newKeySet(key)
}

// newKeySet returns the set of key, made with its first chunk in one
// allocation, with room for a few keys: most sets in an index (an owner's
// dependents, a label's objects) stay small.
func newKeySet(key objKey) *keySet {
	r := &struct {
		set    keySet
		chunks [1][]objKey
		keys   [4]objKey
	}{}
	r.keys[0] = key
	r.chunks[0] = r.keys[:1]
	r.set = keySet{chunks: r.chunks[:], n: 1}
	return &r.set
}

// addLabel adds key under the label "k=v", building that string only when
// the index has no set for it yet.
func (ix index) addLabel(k, v string, key objKey) {
	var buf [64]byte
	if s := ix[string(append(append(append(buf[:0], k...), '='), v...))]; s != nil {
		s.insert(key)
		return
	}
	ix.add(k+"="+v, key)
}

func (ix index) remove(value string, key objKey) {
	if s := ix[value]; s != nil {
		s.remove(key)
		if s.len() == 0 {
			delete(ix, value)
		}
	}
}
