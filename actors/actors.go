// Package actors holds reference outside actors: the world beyond the
// controllers, which changes the cluster while they work.
package actors

import (
	"fmt"

	"github.com/converge-sim/converge/model"
)

// Scaler is a user who sets an integer spec field (say spec.replicas) of an
// object of Kind to a value in [Min, Max], both drawn from the run's source.
type Scaler struct {
	Actor string // name, default "user"
	Kind  string
	Field string
	Min   int64
	Max   int64
}

// Name returns the actor's name.
func (s Scaler) Name() string {
	if s.Actor == "" {
		return "user"
	}
	return s.Actor
}

// Act picks an object and a value and updates the object. It reads the
// object fresh, so the update only conflicts with a write in the same step.
func (s Scaler) Act(o *model.Outside) error {
	obj := o.Pick(s.Kind, s.Name()+" picks a "+s.Kind)
	if obj == nil {
		return nil
	}
	v := s.Min + int64(o.Choose(int(s.Max-s.Min+1), s.Name()+" picks "+s.Field))
	return o.Set(obj, "spec."+s.Field, v)
}

// Killer deletes an object of Kind picked from the run's source: a chaos
// monkey deleting pods.
type Killer struct {
	Actor string // name, default "chaos"
	Kind  string
}

// Name returns the actor's name.
func (k Killer) Name() string {
	if k.Actor == "" {
		return "chaos"
	}
	return k.Actor
}

// Act deletes one live object of Kind, if there is any.
func (k Killer) Act(o *model.Outside) error {
	victim := o.Pick(k.Kind, k.Name()+" picks a "+k.Kind)
	if victim == nil {
		return nil
	}
	if err := o.Delete(victim.Ref(), model.DeleteOptions{UID: victim.UID}); err != nil {
		return fmt.Errorf("delete %s: %w", victim.Ref(), err)
	}
	return nil
}

// Recreator deletes an object of Kind picked from the run's source and
// creates it again under the same name, with the same spec and labels and
// a new UID (see model.Outside.Recreate): a user's `kubectl replace
// --force`, or a GitOps tool re-creating what it manages. A controller
// that keys its memory by name rather than UID meets a different object.
type Recreator struct {
	Actor string // name, default "recreator"
	Kind  string
}

// Name returns the actor's name.
func (r Recreator) Name() string {
	if r.Actor == "" {
		return "recreator"
	}
	return r.Actor
}

// Act deletes and recreates one live object of Kind, if there is any. An
// object whose finalizers hold the delete is left deleting.
func (r Recreator) Act(o *model.Outside) error {
	obj := o.Pick(r.Kind, r.Name()+" picks a "+r.Kind)
	if obj == nil {
		return nil
	}
	if err := o.Recreate(obj); err != nil {
		return fmt.Errorf("recreate %s: %w", obj.Ref(), err)
	}
	return nil
}

// Set is an outside writer that sets the field at Path ("spec.<path>" or
// "status.<path>") of an object of Kind to one of Values, both picked from
// the run's source: a user rolling out a new image, a node dying, an admin
// asking for a drain, traffic changing.
type Set struct {
	Actor  string // name, required
	Kind   string
	Path   string
	Values []any
}

// Name returns the actor's name.
func (s Set) Name() string { return s.Actor }

// Act picks an object and a value and writes it, unless the object already
// has that value.
func (s Set) Act(o *model.Outside) error {
	if len(s.Values) == 0 {
		return fmt.Errorf("actor %s has no values to set", s.Actor)
	}
	obj := o.Pick(s.Kind, s.Actor+" picks a "+s.Kind)
	if obj == nil {
		return nil
	}
	v := s.Values[o.Choose(len(s.Values), s.Actor+" picks a value")]
	if obj.Field(s.Path) == v {
		return nil
	}
	return o.Set(obj, s.Path, v)
}
