package model

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestStoreIndexesBuiltLateAgree checks that an index built on first use,
// after writes it did not see, lists what a scan of the store finds, and
// stays right through later writes.
func TestStoreIndexesBuiltLateAgree(t *testing.T) {
	s := newObjectStore()
	obj := func(name, app string, owner UID) *Object {
		return &Object{Namespace: "ns", Name: name, Labels: NewLabels(map[string]string{"app": app}),
			OwnerReferences: []OwnerReference{{UID: owner}}}
	}
	scan := func(opts ListOptions) []string {
		var names []string
		s.keys.each(func(k objKey) bool {
			if o := s.objs[k]; opts.matches(o) {
				names = append(names, o.Name)
			}
			return true
		})
		return names
	}
	listed := func(opts ListOptions) []string {
		var names []string
		for _, o := range s.list(opts, func(o *Object) *Object { return o }) {
			names = append(names, o.Name)
		}
		return names
	}
	// contents is what an index holds, value by value (a value whose keys
	// were all removed counts as absent). Each entry's object must be the
	// version stored at its key now.
	contents := func(ix index) map[string][]objKey {
		out := map[string][]objKey{}
		for v, es := range ix {
			es.each(func(e entry) bool {
				out[v] = append(out[v], e.key)
				assert.Same(t, s.objs[e.key], e.obj, "index %q holds a stale version of %v", v, e.key)
				return true
			})
		}
		return out
	}
	check := func(when string) {
		for _, opts := range []ListOptions{
			{Selector: Selector{"app": "web"}}, {Selector: Selector{"app": "db"}},
			{Owner: "u1"}, {Owner: "u2"}, {Namespace: "ns", Owner: "u1", Selector: Selector{"app": "web"}},
		} {
			assert.Equal(t, scan(opts), listed(opts), "%s: %+v", when, opts)
		}
		// The indexes hold exactly what indexes kept from the start hold
		// for the same objects: no key left under an old label or owner
		// (the owner index is read unfiltered by propagation).
		fresh := newObjectStore()
		fresh.labelIndex()
		fresh.ownerIndex()
		s.keys.each(func(k objKey) bool {
			fresh.put(s.objs[k])
			return true
		})
		assert.Equal(t, contents(fresh.byLabel), contents(s.labelIndex()), when)
		assert.Equal(t, contents(fresh.byOwner), contents(s.ownerIndex()), when)
	}
	for i := range 6 {
		s.put(obj(fmt.Sprint("p", i), []string{"web", "db"}[i%2], UID(fmt.Sprint("u", 1+i%3))))
	}
	s.put(obj("p0", "db", "u2")) // relabelled and re-owned before any index exists
	s.del(objKey{namespace: "ns", name: "p3"})
	assert.Nil(t, s.byLabel, "no index before a list needs it")
	assert.Nil(t, s.byOwner)
	check("first use")
	s.put(obj("p1", "web", "u1"))
	s.put(obj("p7", "web", "u1"))
	s.del(objKey{namespace: "ns", name: "p2"})
	check("after later writes")
	// New versions with the same label and owner (a status write): the
	// indexes keep their keys and must hand out the new versions.
	for _, name := range []string{"p1", "p4", "p5"} {
		o := *s.objs[objKey{namespace: "ns", name: name}]
		o.ResourceVersion++
		s.put(&o)
	}
	check("after writes that keep labels and owners")
	for _, opts := range []ListOptions{{Owner: "u1"}, {Selector: Selector{"app": "web"}}} {
		for _, o := range s.list(opts, func(o *Object) *Object { return o }) {
			assert.Same(t, s.objs[keyOf(o)], o, "%+v lists a stale version of %s", opts, o.Name)
		}
	}
}
