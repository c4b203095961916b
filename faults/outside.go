package faults

import (
	"fmt"
	"slices"

	"github.com/converge-sim/converge/model"
)

// Faults made by writers outside the controllers.

// EditTarget says what an edit or rival may touch: objects of Resource,
// and one of
//   - delete them (Path empty, edits only), or delete and recreate them
//     with the same name and a new UID (Recreate, edits only);
//   - with Owned, delete a child a controller made: an object, of
//     Resource or of any kind when Resource is empty, that has a
//     controller owner reference to an owner that exists and is not
//     being deleted, chosen among those live at the fault's time (edits
//     only; no path, no recreation; docs/design.md, "Faults", "Edits of
//     the children controllers make");
//   - set the integer field at Path ("spec.replicas") to a value in
//     [Min, Max];
//   - set the field at Path to one of Values: strings (an enum such as
//     "status.phase"), booleans, or nil, which removes the field. Paths
//     name labels ("metadata.labels.team"), annotations
//     ("metadata.annotations.example.com/owner"), map entries
//     ("spec.data.color" for a ConfigMap's data) and conditions
//     ("status.conditions.Ready") as well as plain fields.
type EditTarget struct {
	Resource string
	Path     string
	Min, Max int64
	Values   []any
	Recreate bool
	Owned    bool
}

// OwnedChildren is the edit target Prepare gives a scenario that declares
// no edits of its own: delete one of the children its controllers made,
// whichever lives at the fault's time.
var OwnedChildren = EditTarget{Owned: true}

func (e EditTarget) validate() error {
	if e.Owned {
		if e.Path != "" || e.Recreate || len(e.Values) > 0 || e.Min != 0 || e.Max != 0 {
			return fmt.Errorf("edit target of owned children %s: takes no path, values, range or recreation", e.Resource)
		}
		return nil
	}
	if e.Resource == "" {
		return fmt.Errorf("edit target without a resource kind")
	}
	if e.Recreate && e.Path != "" {
		return fmt.Errorf("edit target %s: Recreate takes no field path", e.Resource)
	}
	if len(e.Values) > 0 && e.Path == "" {
		return fmt.Errorf("edit target %s: Values need a field path", e.Resource)
	}
	for _, v := range e.Values {
		switch v.(type) {
		case string, bool, nil:
		default:
			return fmt.Errorf("edit target %s %s: value %v is not a string, a boolean or nil", e.Resource, e.Path, v)
		}
		if err := (&model.Object{}).SetField(e.Path, v); err != nil {
			return fmt.Errorf("edit target %s: %v", e.Resource, err)
		}
	}
	if e.Path != "" && len(e.Values) == 0 {
		if err := (&model.Object{}).SetField(e.Path, e.Min); err != nil {
			return fmt.Errorf("edit target %s: %v", e.Resource, err)
		}
		if e.Max < e.Min {
			return fmt.Errorf("edit target %s %s: Max %d < Min %d", e.Resource, e.Path, e.Max, e.Min)
		}
	}
	return nil
}

// value returns what an edit or rival drawn with value and choice sets.
// equal reports whether e and o name the same target: resource, path,
// range, values and recreation alike.
func (e EditTarget) equal(o EditTarget) bool {
	return e.Resource == o.Resource && e.Path == o.Path && e.Min == o.Min && e.Max == o.Max &&
		e.Recreate == o.Recreate && e.Owned == o.Owned && slices.Equal(e.Values, o.Values)
}

func (e EditTarget) value(value int64, choice int) any {
	if len(e.Values) > 0 {
		return e.Values[choice%len(e.Values)]
	}
	return value
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

// pickOwned returns the n-th (modulo their count) of the objects of kind,
// or of every kind when kind is empty, that a controller owns: each has a
// controller owner reference to an owner of the same namespace that
// exists, with that UID, and is not being deleted, and is not being
// deleted itself. Kinds are taken in name order, objects in key order, so
// the choice depends on the cluster's state alone; nil if there is none.
func pickOwned(c *model.Cluster, kind string, n int) *model.Object {
	st := c.State()
	kinds := []string{kind}
	if kind == "" {
		kinds = st.Kinds()
	}
	var live []*model.Object
	for _, k := range kinds {
		for i := range st.Len(k) {
			o := st.Nth(k, i)
			if o == nil || o.Deleting() {
				continue
			}
			ref, ok := o.ControllerRef()
			if !ok {
				continue
			}
			owner := st.Get(ref.Kind, o.Namespace, ref.Name)
			if owner == nil || owner.UID != ref.UID || owner.Deleting() {
				continue
			}
			live = append(live, o)
		}
	}
	if len(live) == 0 {
		return nil
	}
	return live[n%len(live)]
}

// Editor is the writer name edits are made under.
const Editor = "outside-edit"

// Edit is a one-shot outside change to the Pick-th object (in key order,
// modulo the count) of Target.Resource: a delete, a delete and recreate, or
// Target.Path set to Value (integer targets) or to Target.Values[Choice].
type Edit struct {
	Target EditTarget
	Pick   int
	Value  int64
	Choice int
}

// Kind returns KindEdit.
func (Edit) Kind() Kind { return KindEdit }

// Apply makes the edit through the API server, as writer Editor.
func (f Edit) Apply(c *model.Cluster) error {
	if f.Target.Owned {
		o := pickOwned(c, f.Target.Resource, f.Pick)
		if o == nil {
			c.Note("no child of a controller to delete")
			return nil
		}
		return c.Outside(Editor).Delete(o.Ref(), model.DeleteOptions{UID: o.UID})
	}
	o := pick(c, f.Target.Resource, f.Pick)
	if o == nil {
		c.Note("no %s to edit", f.Target.Resource)
		return nil
	}
	out := c.Outside(Editor)
	switch {
	case f.Target.Recreate:
		return out.Recreate(o)
	case f.Target.Path == "":
		return out.Delete(o.Ref(), model.DeleteOptions{UID: o.UID})
	}
	return out.Set(o.DeepCopy(), f.Target.Path, f.Target.value(f.Value, f.Choice))
}

func (f Edit) String() string {
	switch {
	case f.Target.Owned && f.Target.Resource == "":
		return fmt.Sprintf("edit: delete child #%d (of any kind, that a controller owns)", f.Pick)
	case f.Target.Owned:
		return fmt.Sprintf("edit: delete child %s #%d (that a controller owns)", f.Target.Resource, f.Pick)
	case f.Target.Recreate:
		return fmt.Sprintf("edit: delete and recreate %s #%d (same name, new UID)", f.Target.Resource, f.Pick)
	case f.Target.Path == "":
		return fmt.Sprintf("edit: delete %s #%d", f.Target.Resource, f.Pick)
	}
	v := f.Target.value(f.Value, f.Choice)
	if v == nil {
		return fmt.Sprintf("edit: remove %s on %s #%d", f.Target.Path, f.Target.Resource, f.Pick)
	}
	return fmt.Sprintf("edit: set %s=%s on %s #%d", f.Target.Path, model.FormatValue(v), f.Target.Resource, f.Pick)
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
	Choice     int
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
	return c.Faults().StartRival(model.Rival{Name: RivalWriter, Target: o.Ref(), Path: f.Target.Path, Value: f.Target.value(f.Value, f.Choice), Persistent: f.Persistent})
}

func (f Rival) String() string {
	lifetime := "transient"
	if f.Persistent {
		lifetime = "persistent"
	}
	v := f.Target.value(f.Value, f.Choice)
	if v == nil {
		return fmt.Sprintf("%s rival keeps %s removed on %s #%d", lifetime, f.Target.Path, f.Target.Resource, f.Pick)
	}
	return fmt.Sprintf("%s rival keeps %s=%s on %s #%d", lifetime, f.Target.Path, model.FormatValue(v), f.Target.Resource, f.Pick)
}
