package model

// Revision names one state of one API server: the server and its latest
// resourceVersion. Every write moves it, so two views with the same
// Revision hold the same objects; properties that are functions of the
// stored objects alone can be memoized by it.
type Revision struct {
	s  *Server
	rv uint64
}

// Revision returns the view's Revision.
func (st State) Revision() Revision { return Revision{st.s, st.s.rv} }

// KindRevision names the state of one kind's objects on the view's server:
// the server and the resourceVersion of the last write that stored or
// removed an object of kind (zero before any). Two views with the same
// KindRevision of a kind hold the same objects of that kind, whatever was
// written to other kinds in between, so a property that reads only some
// kinds can be memoized by theirs.
func (st State) KindRevision(kind string) Revision {
	if store := st.s.kinds[kind]; store != nil {
		return Revision{st.s, store.rev}
	}
	return Revision{st.s, 0}
}
