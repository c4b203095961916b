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
