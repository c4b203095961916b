package model

import "slices"

// orderedSet is a set of strings kept in sorted order, so that iterating it
// is deterministic without sorting on every read (Known trap 9 in DESIGN.md).
// Insert and remove are a binary search and a memmove.
type orderedSet struct {
	keys []string
}

func (s *orderedSet) insert(k string) bool {
	i, found := slices.BinarySearch(s.keys, k)
	if found {
		return false
	}
	s.keys = slices.Insert(s.keys, i, k)
	return true
}

func (s *orderedSet) remove(k string) bool {
	i, found := slices.BinarySearch(s.keys, k)
	if !found {
		return false
	}
	s.keys = slices.Delete(s.keys, i, i+1)
	return true
}

func (s *orderedSet) has(k string) bool {
	_, found := slices.BinarySearch(s.keys, k)
	return found
}

func (s *orderedSet) len() int { return len(s.keys) }

// index maps an index value ("app=web", an owner UID) to the ordered set of
// object keys that carry it.
type index map[string]*orderedSet

func (ix index) add(value, key string) {
	s := ix[value]
	if s == nil {
		s = &orderedSet{}
		ix[value] = s
	}
	s.insert(key)
}

func (ix index) remove(value, key string) {
	if s := ix[value]; s != nil {
		s.remove(key)
		if s.len() == 0 {
			delete(ix, value)
		}
	}
}
