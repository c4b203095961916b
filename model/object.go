package model

import (
	"fmt"
	"slices"
	"strings"
)

// Time is virtual time in ticks. It starts at 0 and only moves when the
// scheduler fires a timer; nothing in the model reads a wall clock.
type Time int64

// UID identifies one incarnation of an object. A delete followed by a create
// with the same name gives a new UID, as in Kubernetes.
type UID string

// Ref names an object: its kind, namespace and name.
type Ref struct {
	Kind      string
	Namespace string
	Name      string
}

// Key returns "namespace/name", the work-queue key of the object.
func (r Ref) Key() string { return Key(r.Namespace, r.Name) }

// String returns "Kind namespace/name".
func (r Ref) String() string { return r.Kind + " " + r.Key() }

// Key joins a namespace and a name as client-go's MetaNamespaceKeyFunc does.
// Cluster-scoped objects (empty namespace) have just the name as their key.
func Key(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}

// SplitKey is the inverse of Key.
func SplitKey(key string) (namespace, name string) {
	if i := strings.IndexByte(key, '/'); i >= 0 {
		return key[:i], key[i+1:]
	}
	return "", key
}

// OwnerReference points from a dependent to its owner. Controller marks the
// managing owner; a dependent has at most one. BlockOwnerDeletion makes a
// Foreground delete of the owner wait until the dependent is gone (see
// propagation.go).
type OwnerReference struct {
	Kind               string
	Name               string
	UID                UID
	Controller         bool
	BlockOwnerDeletion bool
}

// Object is a Kubernetes-style object: metadata, spec and status. Objects
// returned by the API server and by a controller's client are private deep
// copies; changing them changes nothing until they are written back.
type Object struct {
	Kind      string
	Namespace string
	Name      string
	// GenerateName, when Name is empty on create, asks the API server for a
	// unique name with this prefix.
	GenerateName string
	UID          UID
	// ResourceVersion is the cluster-wide revision of the last write to the
	// object. An update that carries a non-zero ResourceVersion succeeds only
	// if it still matches (optimistic concurrency); zero means unconditional.
	ResourceVersion uint64
	// Generation counts changes to Spec; metadata and status writes leave it.
	Generation        int64
	CreationTimestamp Time
	// DeletionTimestamp is set when a delete is held by finalizers.
	DeletionTimestamp *Time
	Finalizers        []string
	// Labels holds the labels and, under AnnotationLabelPrefix, the
	// annotations. It is a value: copies share it (see Labels).
	Labels          Labels
	OwnerReferences []OwnerReference
	Spec            Fields
	Status          Fields
	// FieldManager, on an object passed to a write, names the field
	// manager the writer declares (server-side apply's fieldManager); the
	// write records it in Write.FieldManager. The server never stores it.
	FieldManager string

	// key caches Key() on the server's own, never-modified copies; writer
	// is who wrote that version; snap is the cache-mutation detector's copy
	// of that version, made when a zero-copy read first lends it (see
	// Cluster.lend in detect.go).
	key    string
	writer string
	snap   *snapshot
}

// Ref returns the object's kind, namespace and name.
func (o *Object) Ref() Ref { return Ref{Kind: o.Kind, Namespace: o.Namespace, Name: o.Name} }

// Key returns the object's work-queue key, "namespace/name".
func (o *Object) Key() string {
	if o.key != "" {
		return o.key
	}
	return Key(o.Namespace, o.Name)
}

// Deleting reports whether a delete of the object is waiting on finalizers.
func (o *Object) Deleting() bool { return o.DeletionTimestamp != nil }

// ControllerRef returns the owner reference marked as controller, if any.
func (o *Object) ControllerRef() (OwnerReference, bool) {
	for _, r := range o.OwnerReferences {
		if r.Controller {
			return r, true
		}
	}
	return OwnerReference{}, false
}

// IsControlledBy reports whether owner is o's controlling owner.
func (o *Object) IsControlledBy(owner *Object) bool {
	r, ok := o.ControllerRef()
	return ok && r.UID == owner.UID
}

// DeepCopy returns a copy that shares no mutable memory with o.
func (o *Object) DeepCopy() *Object {
	if o == nil {
		return nil
	}
	var c *Object
	if len(o.OwnerReferences) == 1 {
		// The common case, a dependent with one owner: the copy and its
		// reference are one allocation.
		r := &ownedObject{object: *o, owner: [1]OwnerReference{o.OwnerReferences[0]}}
		c = &r.object
		c.OwnerReferences = r.owner[:1:1]
	} else {
		c = new(Object)
		*c = *o
		c.OwnerReferences = slices.Clone(o.OwnerReferences)
	}
	c.key, c.writer, c.snap = "", "", nil // a copy may be renamed, nobody wrote it, and nobody lent it
	// Labels, Spec and Status are values, shared until written.
	c.Finalizers = slices.Clone(o.Finalizers)
	if o.DeletionTimestamp != nil {
		t := *o.DeletionTimestamp
		c.DeletionTimestamp = &t
	}
	return c
}

// ownedObject holds an object and the room for its one owner reference.
type ownedObject struct {
	object Object
	owner  [1]OwnerReference
}

// String renders "Kind ns/name@rv".
func (o *Object) String() string {
	return fmt.Sprintf("%s@%d", o.Ref(), o.ResourceVersion)
}

// NewOwnerReference returns a controller reference to owner that blocks
// its foreground deletion, for a dependent's OwnerReferences, as
// Kubernetes' controllers make them.
func NewOwnerReference(owner *Object) OwnerReference {
	return OwnerReference{Kind: owner.Kind, Name: owner.Name, UID: owner.UID, Controller: true, BlockOwnerDeletion: true}
}

// FieldChange is one field that differs between two versions of an object.
type FieldChange struct {
	Path string // "spec.replicas", "status.phase", "metadata.labels.app", "metadata.annotations.a.io/b"
	Old  any    // nil when the field was absent
	New  any    // nil when the field is now absent
}

// String renders "path: old→new".
func (c FieldChange) String() string {
	return c.Path + ": " + FormatValue(c.Old) + "→" + FormatValue(c.New)
}

// Diff lists the fields that differ from old to new, in path order. Either
// may be nil (a create or a delete).
func Diff(old, new *Object) []FieldChange {
	var out []FieldChange
	var oldSpec, newSpec, oldStatus, newStatus Fields
	var oldLabels, newLabels Labels
	if old != nil {
		oldSpec, oldStatus, oldLabels = old.Spec, old.Status, old.Labels
	}
	if new != nil {
		newSpec, newStatus, newLabels = new.Spec, new.Status, new.Labels
	}
	oldAnn, oldLab := splitLabels(oldLabels)
	newAnn, newLab := splitLabels(newLabels)
	out = diffFields(out, annotationsPath, oldAnn, newAnn)
	out = diffFields(out, labelsPath, oldLab, newLab)
	out = diffFields(out, "spec.", oldSpec, newSpec)
	out = diffFields(out, "status.", oldStatus, newStatus)
	return out
}

func diffFields(out []FieldChange, prefix string, a, b Fields) []FieldChange {
	i, j := 0, 0
	for i < len(a.kv) || j < len(b.kv) {
		switch {
		case j == len(b.kv) || (i < len(a.kv) && a.kv[i].path < b.kv[j].path):
			out = append(out, FieldChange{Path: prefix + a.kv[i].path, Old: a.kv[i].value})
			i++
		case i == len(a.kv) || b.kv[j].path < a.kv[i].path:
			out = append(out, FieldChange{Path: prefix + b.kv[j].path, New: b.kv[j].value})
			j++
		default:
			if a.kv[i].value != b.kv[j].value {
				out = append(out, FieldChange{Path: prefix + a.kv[i].path, Old: a.kv[i].value, New: b.kv[j].value})
			}
			i++
			j++
		}
	}
	return out
}

// AnnotationLabelPrefix marks the labels that carry annotations: the model
// keeps an object's annotations among its Labels, each under this prefix
// and the annotation's name. A colon is not valid in a Kubernetes label
// key, so no real label or selector collides with one. Field paths name
// them "metadata.annotations.<name>"; "metadata.labels.annotation:<name>"
// is refused.
const AnnotationLabelPrefix = "annotation:"

const (
	labelsPath      = "metadata.labels."
	annotationsPath = "metadata.annotations."
)

// MetadataPath returns the field path of the Labels key k:
// "metadata.annotations.<name>" for an annotation, "metadata.labels.<k>"
// for a label.
func MetadataPath(k string) string {
	if name, ok := strings.CutPrefix(k, AnnotationLabelPrefix); ok {
		return annotationsPath + name
	}
	return labelsPath + k
}

// splitLabels splits Labels into annotations (by name) and plain labels,
// each in key order.
func splitLabels(l Labels) (annotations, labels Fields) {
	var ann, lab []field
	for _, e := range l.kv { // sorted; dropping the prefix keeps the annotations' order
		if name, ok := strings.CutPrefix(e.key, AnnotationLabelPrefix); ok {
			ann = append(ann, field{name, e.value})
		} else {
			lab = append(lab, field{e.key, e.value})
		}
	}
	return Fields{kv: ann}, Fields{kv: lab}
}

// labelKey returns the key in Labels of a metadata path, "metadata.labels.<key>"
// or "metadata.annotations.<name>"; ok is false for any other path.
func labelKey(path string) (key string, ok bool, err error) {
	if name, ok := strings.CutPrefix(path, annotationsPath); ok {
		if name == "" {
			return "", true, fmt.Errorf("field path %q names no annotation", path)
		}
		return AnnotationLabelPrefix + name, true, nil
	}
	if k, ok := strings.CutPrefix(path, labelsPath); ok {
		if name, ok := strings.CutPrefix(k, AnnotationLabelPrefix); ok {
			return "", true, fmt.Errorf("field path %q: an annotation's path is %s%s", path, annotationsPath, name)
		}
		return k, true, nil
	}
	return "", false, nil
}

// Field returns the value at a full field path: "spec.<path>",
// "status.<path>", "metadata.labels.<key>" or
// "metadata.annotations.<name>"; nil when absent or not a valid path.
func (o *Object) Field(path string) any {
	switch {
	case strings.HasPrefix(path, "spec."):
		return o.Spec.Value(path[len("spec."):])
	case strings.HasPrefix(path, "status."):
		return o.Status.Value(path[len("status."):])
	}
	if k, ok, err := labelKey(path); ok && err == nil {
		if v, ok := o.Labels.Get(k); ok {
			return v
		}
	}
	return nil
}

// SetField sets the value at a full field path (see Field). Label and
// annotation values must be strings. A nil value removes the field (a
// label, an annotation, a map entry "spec.data.<key>", a condition
// "status.conditions.<type>").
func (o *Object) SetField(path string, v any) error {
	switch {
	case strings.HasPrefix(path, "spec."):
		if v == nil {
			o.Spec.Delete(path[len("spec."):])
			return nil
		}
		o.Spec.Set(path[len("spec."):], v)
		return nil
	case strings.HasPrefix(path, "status."):
		if v == nil {
			o.Status.Delete(path[len("status."):])
			return nil
		}
		o.Status.Set(path[len("status."):], v)
		return nil
	}
	k, ok, err := labelKey(path)
	if err != nil {
		return err
	}
	if !ok {
		//lint:ignore ST1005 the final dot belongs to the prefix metadata.annotations.
		return fmt.Errorf("field path %q does not start with spec., status., metadata.labels. or metadata.annotations.", path)
	}
	if v == nil {
		o.Labels = o.Labels.Without(k)
		return nil
	}
	s, ok := v.(string)
	if !ok {
		return fmt.Errorf("%s: value %v is not a string", path, v)
	}
	o.Labels = o.Labels.With(k, s)
	return nil
}

// IsStatusPath reports whether a full field path is written through
// UpdateStatus.
func IsStatusPath(path string) bool { return strings.HasPrefix(path, "status.") }
