package model

import (
	"cmp"
	"slices"
)

// Admission is one step of the API server's write path before storage, as
// Kubernetes' defaulting, validation and admission: it sees the caller, the
// verb, the stored object (nil for a create) and the candidate, the object
// as it would be stored, a private copy whose Spec and Status it may change
// (defaults). Changes to anything else are ignored. An error rejects the
// write; an Invalid StatusError with Causes names the offending fields.
//
// Admission runs for create, update and update-status, after the
// not-found and resourceVersion checks and before the no-op check, so a
// default that fills an absent field is a change, and an update that
// changes nothing once defaulted writes nothing.
//
// It runs for delete too (VerbDelete), as a real API server sends DELETE
// requests through its admission chain (a validating webhook may refuse
// one): old is the stored object and obj is nil, so a step that does not
// judge deletes must return early on VerbDelete before it reads obj. An
// error refuses the delete; nothing is changed. The delete an eviction
// makes does not pass through it, as in Kubernetes. See docs/design.md,
// "An operator's webhooks".
type Admission func(caller string, verb Verb, old, obj *Object) error

// AddAdmission appends fn to the server's admission chain. The steps run
// in the order they were added; the first error stops the chain.
func (s *Server) AddAdmission(fn Admission) { s.admission = append(s.admission, fn) }

// Cause is one reason of an Invalid error, as Kubernetes' metav1.StatusCause
// (which has no Rule): the field path ("spec.replicas", "status.active"),
// the kind of problem ("FieldValueTooMany") and the message ("Too many: 11:
// must have at most 10 items").
type Cause struct {
	Type    string
	Field   string
	Message string
	// Rule names the rule that failed, when known: a schema keyword with
	// its value ("maxItems: 10") or a CEL rule ("self == oldSelf").
	Rule string
}

// GenerationRule says when a kind's metadata.generation moves.
type GenerationRule uint8

const (
	// GenerationOnSpec: generation is 1 on create and grows by one with
	// every write that changes the spec (workloads, custom resources with
	// a status subresource). The default for every kind.
	GenerationOnSpec GenerationRule = iota
	// GenerationNone: the kind has no generation; it stays 0 (ConfigMap,
	// Secret, Service and most built-in kinds without a spec/status split).
	GenerationNone
	// GenerationAnyChange: the kind has no status subresource, so its
	// status is part of the object: Create keeps it, Update writes it, and
	// generation grows with every change of spec or status (custom
	// resources without a status subresource).
	GenerationAnyChange
)

// SetGenerationRule sets how the generation of kind's objects moves.
func (s *Server) SetGenerationRule(kind string, r GenerationRule) {
	if s.generation == nil {
		s.generation = map[string]GenerationRule{}
	}
	s.generation[kind] = r
}

// hasGeneration reports whether kind's objects have a generation.
func (s *Server) hasGeneration(kind string) bool { return s.generation[kind] != GenerationNone }

// statusInMain reports whether kind's status is written by Update, the
// kind having no status subresource.
func (s *Server) statusInMain(kind string) bool { return s.generation[kind] == GenerationAnyChange }

// Rejection summarises the writes of one caller to one object that the
// admission chain rejected with the same verb.
type Rejection struct {
	Caller string
	Verb   Verb
	Ref    Ref
	// Err is the last rejection's error.
	Err error
	// First and Last are the virtual times of the first and last
	// rejection; Count is how many there were.
	First, Last Time
	Count       int
	// Seq numbers the last rejection among all the server's rejections.
	Seq uint64
}

type rejectionKey struct {
	caller string
	verb   Verb
	ref    Ref
}

// admit runs the admission chain on a candidate (nil for a delete, whose
// object is old) and records a rejection.
func (s *Server) admit(caller string, verb Verb, old, obj *Object) error {
	for _, fn := range s.admission {
		if err := fn(caller, verb, old, obj); err != nil {
			ref := old
			if obj != nil {
				ref = obj
			}
			s.recordRejection(caller, verb, ref.Ref(), err)
			return err
		}
	}
	return nil
}

// RecordRejection records a write that the caller's client refused on the
// server's behalf before it reached storage: a server-side apply conflict,
// which the field manager computes in the client. It counts as a
// rejection for Rejections.
func (s *Server) RecordRejection(caller string, verb Verb, ref Ref, err error) {
	s.recordRejection(caller, verb, ref, err)
}

func (s *Server) recordRejection(caller string, verb Verb, ref Ref, err error) {
	if s.rejections == nil {
		s.rejections = map[rejectionKey]*Rejection{}
	}
	s.rejectSeq++
	k := rejectionKey{caller, verb, ref}
	r := s.rejections[k]
	if r == nil {
		r = &Rejection{Caller: caller, Verb: verb, Ref: ref, First: s.now()}
		s.rejections[k] = r
	}
	r.Err, r.Last, r.Seq = err, s.now(), s.rejectSeq
	r.Count++
}

// RejectionMark returns a mark for Rejections: the number of writes the
// admission chain has rejected so far.
func (s *Server) RejectionMark() uint64 { return s.rejectSeq }

// Rejections returns, for every caller, verb and object whose last
// rejected write came after mark, the summary of its rejections, in the
// order of their last rejection.
func (s *Server) Rejections(mark uint64) []Rejection {
	var out []Rejection
	for _, r := range s.rejections {
		if r.Seq > mark {
			out = append(out, *r)
		}
	}
	slices.SortFunc(out, func(a, b Rejection) int { return cmp.Compare(a.Seq, b.Seq) })
	return out
}

// admitSpec runs the admission chain on a create's candidate and reports
// whether it changed the spec or status (defaulted it).
func (s *Server) admitSpec(caller string, verb Verb, old, cand *Object) (bool, error) {
	orig, origStatus := cand.Spec, cand.Status
	if err := s.admit(caller, verb, old, cand); err != nil {
		return false, err
	}
	spec, err := cand.Spec.normalize("spec")
	if err != nil {
		return false, statusErr(ReasonInvalid, "%s: admission: %v", cand.Ref(), err)
	}
	status, err := cand.Status.normalize("status")
	if err != nil {
		return false, statusErr(ReasonInvalid, "%s: admission: %v", cand.Ref(), err)
	}
	cand.Spec, cand.Status = spec, status
	return !orig.Equal(spec) || !origStatus.Equal(status), nil
}

// admitUpdate runs the admission chain on the candidate of an update
// (the stored object with the caller's metadata and spec, and with
// inMain its status) or of a status update (the stored object with the
// caller's status), and returns the spec or status to write, the status
// an update writes with inMain, and whether admission changed them.
func (s *Server) admitUpdate(caller string, verb Verb, stored, obj *Object, fields, status Fields, inMain bool) (Fields, Fields, bool, error) {
	cand := stored.DeepCopy()
	part := "spec"
	if verb == VerbUpdateStatus {
		part = "status"
		cand.Status = fields
	} else {
		cand.Labels = obj.Labels
		cand.Finalizers = slices.Clone(obj.Finalizers)
		cand.OwnerReferences = slices.Clone(obj.OwnerReferences)
		cand.Spec = fields
		if inMain {
			cand.Status = status
		}
	}
	if err := s.admit(caller, verb, stored, cand); err != nil {
		return Fields{}, Fields{}, false, err
	}
	out := cand.Spec
	if verb == VerbUpdateStatus {
		out = cand.Status
	}
	out, err := out.normalize(part)
	if err != nil {
		return Fields{}, Fields{}, false, statusErr(ReasonInvalid, "%s: admission: %v", cand.Ref(), err)
	}
	changed := !out.Equal(fields)
	if inMain {
		st, err := cand.Status.normalize("status")
		if err != nil {
			return Fields{}, Fields{}, false, statusErr(ReasonInvalid, "%s: admission: %v", cand.Ref(), err)
		}
		changed = changed || !st.Equal(status)
		status = st
	}
	return out, status, changed, nil
}
