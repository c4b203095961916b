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

// Recreator is a user who deletes an object of Kind, picked from the run's
// source, and creates it again under the same name with a new UID, as
// `kubectl replace --force` or a GitOps tool re-creating an object do
// (model.Outside.Recreate). When finalizers hold the delete, it remembers
// the object and creates it again on a later act, once it is gone; until
// then it acts on nothing else. Use it as a pointer: it keeps that memory.
type Recreator struct {
	Actor string // name, default "recreator"
	Kind  string
	// held is the object whose delete finalizers held, to create again
	// once it is gone.
	held *model.Object
}

// Name returns the actor's name.
func (r *Recreator) Name() string {
	if r.Actor == "" {
		return "recreator"
	}
	return r.Actor
}

// Act creates again the object it deleted once that object is gone, or
// else deletes and recreates one live object of Kind, if there is any.
func (r *Recreator) Act(o *model.Outside) error {
	if h := r.held; h != nil {
		cur, err := o.Get(h.Kind, h.Namespace, h.Name)
		switch {
		case err == nil && cur.UID == h.UID:
			return nil // still deleting
		case err != nil && !model.IsNotFound(err):
			return err
		}
		r.held = nil
		if err == nil {
			return nil // somebody else created it again meanwhile
		}
		return o.Create(model.Recreation(h))
	}
	obj := o.Pick(r.Kind, r.Name()+" picks a "+r.Kind)
	if obj == nil {
		return nil
	}
	if err := o.Recreate(obj); err != nil {
		return fmt.Errorf("recreate %s: %w", obj.Ref(), err)
	}
	if cur, err := o.Get(obj.Kind, obj.Namespace, obj.Name); err == nil && cur.UID == obj.UID {
		r.held = obj
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
