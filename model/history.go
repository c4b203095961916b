package model

import "slices"

// A past view of the API server: what a lagging API server, or a watch
// cache behind the newest write, serves to a client that lists from it
// (the timetravel fault, docs/design.md, section "Time travel").
//
// The server keeps no snapshots. Every event of its history carries the
// state its write replaced (Event.Old), so the view at a retained
// resourceVersion is the current store with the later events undone, newest
// first. It costs one pointer per retained event when nobody asks, and a
// walk over the events after rv when someone does.

// ViewAt returns the objects of kind as they were stored at resourceVersion
// rv, in key order: objects created since are absent, objects deleted since
// are there in their last state (deletion timestamp and all), and every
// other object has the spec, status and metadata it had then. The objects
// are the server's own and must not be modified. It fails with Expired when
// the history after rv has been compacted away, and with Invalid for an
// rv past the current revision.
func (s *Server) ViewAt(kind string, rv uint64) ([]*Object, error) {
	if rv < s.compactedRV {
		return nil, statusErr(ReasonExpired, "too old resource version: %d (%d)", rv, s.compactedRV)
	}
	if rv > s.rv {
		return nil, statusErr(ReasonInvalid, "resource version %d is in the future (current %d)", rv, s.rv)
	}
	then := map[objKey]*Object{} // undone keys: their state at rv, nil if absent
	for i := len(s.history) - 1; i >= 0 && s.history[i].RV() > rv; i-- {
		if e := s.history[i]; e.Object.Kind == kind {
			then[keyOf(e.Object)] = e.Old
		}
	}
	var out []*Object
	s.Each(kind, ListOptions{}, func(o *Object) bool {
		if _, undone := then[keyOf(o)]; !undone {
			out = append(out, o)
		}
		return true
	})
	for _, o := range then {
		if o != nil {
			out = append(out, o)
		}
	}
	slices.SortFunc(out, func(a, b *Object) int { return compareKeys(keyOf(a), keyOf(b)) })
	return out, nil
}
