package faults

import (
	"fmt"

	"github.com/converge-sim/converge/model"
)

// Faults made by writers outside the controllers.

// EditTarget says what an edit or rival may touch: objects of Resource, and
// either delete them (Path empty, edits only) or set the integer field at
// Path ("spec.replicas", "status.replicas") to a value in [Min, Max].
type EditTarget struct {
	Resource string
	Path     string
	Min, Max int64
}

func (e EditTarget) validate() error {
	if e.Resource == "" {
		return fmt.Errorf("edit target without a resource kind")
	}
	if e.Path != "" {
		if err := (&model.Object{}).SetField(e.Path, e.Min); err != nil {
			return fmt.Errorf("edit target %s: %v", e.Resource, err)
		}
		if e.Max < e.Min {
			return fmt.Errorf("edit target %s %s: Max %d < Min %d", e.Resource, e.Path, e.Max, e.Min)
		}
	}
	return nil
}

// pick returns the Pick-th object of kind (in key order, modulo the count),
// or the next one after it that is not being deleted; nil if there is none.
func pick(c *model.Cluster, kind string, n int) *model.Object {
	st := c.State()
	count := st.Len(kind)
	for i := range count {
		if o := st.Nth(kind, (n+i)%count); !o.Deleting() {
			return o
		}
	}
	return nil
}

// Editor is the writer name edits are made under.
const Editor = "outside-edit"

// Edit is a one-shot outside change to the Pick-th object (in key order,
// modulo the count) of Target.Resource: a delete, or Target.Path = Value.
type Edit struct {
	Target EditTarget
	Pick   int
	Value  int64
}

// Kind returns KindEdit.
func (Edit) Kind() Kind { return KindEdit }

// Apply makes the edit through the API server, as writer Editor.
func (f Edit) Apply(c *model.Cluster) error {
	o := pick(c, f.Target.Resource, f.Pick)
	if o == nil {
		c.Note("no %s to edit", f.Target.Resource)
		return nil
	}
	out := c.Outside(Editor)
	if f.Target.Path == "" {
		return out.Delete(o.Ref(), model.DeleteOptions{UID: o.UID})
	}
	return out.Set(o.DeepCopy(), f.Target.Path, f.Value)
}

func (f Edit) String() string {
	if f.Target.Path == "" {
		return fmt.Sprintf("edit: delete %s #%d", f.Target.Resource, f.Pick)
	}
	return fmt.Sprintf("edit: set %s=%d on %s #%d", f.Target.Path, f.Value, f.Target.Resource, f.Pick)
}

// RivalWriter is the writer name of rival faults.
const RivalWriter = "rival"

// Rival starts a second writer that owns Target.Path of the Pick-th object
// of Target.Resource and wants it to be Value: whenever the field differs,
// it writes Value back. A transient rival stops when the cluster heals; a
// persistent one never does, so a controller that owns the same field
// fights it forever, and the run reports the fight.
type Rival struct {
	Target     EditTarget
	Pick       int
	Value      int64
	Persistent bool
}

// Kind returns KindRival.
func (Rival) Kind() Kind { return KindRival }

// Apply starts the rival.
func (f Rival) Apply(c *model.Cluster) error {
	o := pick(c, f.Target.Resource, f.Pick)
	if o == nil {
		c.Note("no %s to rival over", f.Target.Resource)
		return nil
	}
	return c.StartRival(model.Rival{Name: RivalWriter, Target: o.Ref(), Path: f.Target.Path, Value: f.Value, Persistent: f.Persistent})
}

func (f Rival) String() string {
	lifetime := "transient"
	if f.Persistent {
		lifetime = "persistent"
	}
	return fmt.Sprintf("%s rival keeps %s=%d on %s #%d", lifetime, f.Target.Path, f.Value, f.Target.Resource, f.Pick)
}
