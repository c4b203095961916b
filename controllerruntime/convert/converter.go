package convert

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/converge-sim/converge/model"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/version"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
)

// Options configures a Converter.
type Options struct {
	// Epoch is the wall-clock time of virtual time 0, for timestamps;
	// default 2025-01-01T00:00:00Z.
	Epoch time.Time
	// Tick is the wall-clock length of one virtual tick; default one second.
	Tick time.Duration
	// Prefer pins the group and version a Kind stands for when the scheme
	// has that Kind in several groups (Event is in core and in
	// events.k8s.io). Without a pin the core group wins, or else the group
	// with the most mature version (apps/v1 over extensions/v1beta1); a
	// tie cannot be converted.
	Prefer []runtime.Object
	// Unstructured lists kinds served without a Go type, as custom
	// resources a dynamic controller reads and writes only as
	// unstructured.Unstructured (crd.Set.GVKs gives those of the loaded
	// CRDs). Their whole body but status is the model Spec, with its
	// top-level names ("spec.replicas"). A kind the scheme has a type for
	// is ignored here.
	Unstructured []schema.GroupVersionKind
}

// Converter maps typed objects of a scheme to model objects and back. It
// is immutable once built, and safe for concurrent use.
type Converter struct {
	scheme    *runtime.Scheme
	epoch     time.Time
	tick      time.Duration
	kinds     map[string]schema.GroupVersionKind
	ambiguous map[string][]string
	// hoist holds the kinds whose body outside metadata and status is
	// exactly a spec: their spec's fields are the model object's Spec.
	hoist map[schema.GroupVersionKind]bool
	// status holds the kinds whose type has a status.
	status map[schema.GroupVersionKind]bool
	// gvks is what GVKs returns, sorted by kind once.
	gvks []schema.GroupVersionKind
	// plans caches the encoding plan of each object type (plan.go).
	plans plans
	// derived memoizes the converters Pin derives (pin.go).
	derived pinned
}

// New indexes the object kinds of scheme.
func New(scheme *runtime.Scheme, opts Options) (*Converter, error) {
	c := &Converter{
		scheme:    scheme,
		epoch:     opts.Epoch,
		tick:      opts.Tick,
		kinds:     map[string]schema.GroupVersionKind{},
		ambiguous: map[string][]string{},
		hoist:     map[schema.GroupVersionKind]bool{},
		status:    map[schema.GroupVersionKind]bool{},
	}
	if c.epoch.IsZero() {
		c.epoch = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	if c.tick <= 0 {
		c.tick = time.Second
	}
	objectType := reflect.TypeFor[metav1.Object]()
	byKind := map[string]map[string]schema.GroupVersionKind{} // kind → group → preferred GVK
	for gvk, t := range scheme.AllKnownTypes() {
		if gvk.Version == runtime.APIVersionInternal || t.Kind() != reflect.Struct || !reflect.PointerTo(t).Implements(objectType) {
			continue
		}
		c.hoist[gvk] = bodyIsSpec(t)
		c.status[gvk] = slices.Contains(jsonNames(t, true), "status")
		groups := byKind[gvk.Kind]
		if groups == nil {
			groups = map[string]schema.GroupVersionKind{}
			byKind[gvk.Kind] = groups
		}
		if cur, ok := groups[gvk.Group]; !ok || versionRank(scheme, gvk) < versionRank(scheme, cur) {
			groups[gvk.Group] = gvk
		}
	}
	for kind, groups := range byKind {
		if gvk, ok := preferred(groups); ok {
			c.kinds[kind] = gvk
			continue
		}
		for _, g := range groups {
			c.ambiguous[kind] = append(c.ambiguous[kind], g.GroupVersion().String())
		}
		slices.Sort(c.ambiguous[kind])
	}
	for _, gvk := range opts.Unstructured {
		if _, typed := c.kinds[gvk.Kind]; typed || scheme.Recognizes(gvk) {
			continue
		}
		c.kinds[gvk.Kind] = gvk
		c.status[gvk] = true
	}
	for _, obj := range opts.Prefer {
		gvk, err := apiutil.GVKForObject(obj, scheme)
		if err != nil {
			return nil, err
		}
		c.kinds[gvk.Kind] = gvk
		delete(c.ambiguous, gvk.Kind)
	}
	c.gvks = make([]schema.GroupVersionKind, 0, len(c.kinds))
	for _, gvk := range c.kinds {
		c.gvks = append(c.gvks, gvk)
	}
	slices.SortFunc(c.gvks, func(a, b schema.GroupVersionKind) int { return strings.Compare(a.Kind, b.Kind) })
	return c, nil
}

// preferred picks, among the groups that have a kind (each at its
// preferred version), the core group, or else the one group whose version
// is the most mature (v1 over v1beta1 over v1alpha1).
func preferred(groups map[string]schema.GroupVersionKind) (schema.GroupVersionKind, bool) {
	if gvk, ok := groups[""]; ok {
		return gvk, true
	}
	var best schema.GroupVersionKind
	unique := false
	for _, g := range groups {
		switch cmp := version.CompareKubeAwareVersionStrings(g.Version, best.Version); {
		case best.Kind == "" || cmp > 0:
			best, unique = g, true
		case cmp == 0:
			unique = false
		}
	}
	return best, unique
}

// versionRank orders the versions of a group that have a kind: a stable
// version before an alpha or beta one (client-go's scheme registers
// storage.k8s.io/v1beta1 before v1, yet StorageClass stands for v1, as on
// an API server), then as the scheme prefers them.
func versionRank(scheme *runtime.Scheme, gvk schema.GroupVersionKind) int {
	i := slices.Index(scheme.PrioritizedVersionsForGroup(gvk.Group), gvk.GroupVersion())
	if i < 0 {
		i = 1 << 20
	}
	if strings.Contains(gvk.Version, "alpha") || strings.Contains(gvk.Version, "beta") {
		i += 1 << 24
	}
	return i
}

// bodyIsSpec reports whether the JSON of a struct type has, besides
// apiVersion, kind, metadata and status, exactly one field: spec.
func bodyIsSpec(t reflect.Type) bool {
	return slices.Equal(jsonNames(t, false), []string{"spec"})
}

// jsonNames lists the top-level JSON field names of a struct type other
// than apiVersion, kind, metadata and, unless withStatus, status, sorted.
func jsonNames(t reflect.Type, withStatus bool) []string {
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" && (f.Anonymous || strings.Contains(opts, "inline")) && f.Type.Kind() == reflect.Struct {
			out = append(out, jsonNames(f.Type, withStatus)...)
			continue
		}
		if name == "" {
			name = f.Name
		}
		if !f.IsExported() || name == "apiVersion" || name == "kind" || name == "metadata" || (name == "status" && !withStatus) {
			continue
		}
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

// GVK returns the group, version and kind a model kind stands for.
func (c *Converter) GVK(kind string) (schema.GroupVersionKind, error) {
	if gvk, ok := c.kinds[kind]; ok {
		return gvk, nil
	}
	if groups, ok := c.ambiguous[kind]; ok {
		return schema.GroupVersionKind{}, fmt.Errorf("kind %s is in several groups of the scheme (%s): watch it as a typed object (For, Owns, Watches), which names its group, or pin one with Options.Prefer", kind, strings.Join(groups, ", "))
	}
	return schema.GroupVersionKind{}, fmt.Errorf("kind %s is not registered in the scheme", kind)
}

// Kind returns the model kind of a typed or unstructured object (or list:
// the kind of its items): its Kind, checked to stand for the object's
// group and version.
func (c *Converter) Kind(obj runtime.Object) (string, error) {
	gvk, err := apiutil.GVKForObject(obj, c.scheme)
	if err != nil {
		return "", err
	}
	if _, isList := obj.(client.ObjectList); isList {
		gvk.Kind = strings.TrimSuffix(gvk.Kind, "List")
	}
	want, err := c.GVK(gvk.Kind)
	if err != nil {
		return "", err
	}
	if want != gvk {
		return "", fmt.Errorf("kind %s stands for %s in this converter, not %s: pin it with Options.Prefer", gvk.Kind, want.GroupVersion(), gvk.GroupVersion())
	}
	return gvk.Kind, nil
}

// HasStatus reports whether a model kind's type has a status, and so a
// status subresource.
func (c *Converter) HasStatus(kind string) bool { return c.status[c.kinds[kind]] }

// Scheme returns the scheme the converter indexes.
func (c *Converter) Scheme() *runtime.Scheme { return c.scheme }

// New returns a new, empty typed object of a model kind, or for a kind
// served without a Go type, an unstructured.Unstructured of it.
func (c *Converter) New(kind string) (client.Object, error) {
	gvk, err := c.GVK(kind)
	if err != nil {
		return nil, err
	}
	if !c.scheme.Recognizes(gvk) {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(gvk)
		return u, nil
	}
	o, err := c.scheme.New(gvk)
	if err != nil {
		return nil, err
	}
	obj, ok := o.(client.Object)
	if !ok {
		return nil, fmt.Errorf("%s is not an object with metadata", gvk)
	}
	return obj, nil
}

// ToModel converts a typed object to a model object; see the package
// documentation for the representation.
func (c *Converter) ToModel(obj client.Object) (*model.Object, error) {
	kind, err := c.Kind(obj)
	if err != nil {
		return nil, err
	}
	if _, ok := obj.(runtime.Unstructured); !ok {
		if mo, ok := c.planned(kind, obj); ok {
			return mo, nil
		}
	}
	return c.toModel(kind, obj)
}

// MetaToModel converts a typed or unstructured object's kind and
// metadata, as ToModel does, leaving spec and status empty: for a call
// that names an object rather than sends it (a delete, a patch, whose
// body is the patch).
func (c *Converter) MetaToModel(obj client.Object) (*model.Object, error) {
	kind, err := c.Kind(obj)
	if err != nil {
		return nil, err
	}
	mo := &model.Object{Kind: kind}
	if err := c.metaToModel(obj, mo); err != nil {
		return nil, err
	}
	return mo, nil
}

// StatusToModel converts obj as ToModel does, but leaves the spec empty:
// for a write of the status subresource, which takes nothing of the body
// but the status. A typed object's spec is not encoded at all.
func (c *Converter) StatusToModel(obj client.Object) (*model.Object, error) {
	kind, err := c.Kind(obj)
	if err != nil {
		return nil, err
	}
	if _, ok := obj.(runtime.Unstructured); !ok {
		if mo, ok := c.plannedStatus(kind, obj); ok {
			return mo, nil
		}
	}
	mo, err := c.toModel(kind, obj)
	if err != nil {
		return nil, err
	}
	mo.Spec = model.Fields{}
	return mo, nil
}

// plannedStatus is planned for StatusToModel: metadata and status only.
func (c *Converter) plannedStatus(kind string, obj client.Object) (*model.Object, bool) {
	v := reflect.ValueOf(obj)
	if v.Kind() != reflect.Pointer || v.IsNil() || len(obj.GetManagedFields()) > 0 {
		return nil, false
	}
	p := c.objectPlan(v.Type().Elem(), c.hoist[c.kinds[kind]])
	if p == nil {
		return nil, false
	}
	mo := &model.Object{Kind: kind}
	if p.status != nil {
		status, err := encodePart(*p.status, v.Elem(), &p.sizes[1])
		if err != nil {
			return nil, false
		}
		mo.Status = status
	}
	if err := c.metaToModel(obj, mo); err != nil {
		return nil, false
	}
	return mo, true
}

// planned converts a typed object through its type's encoding plan; it
// reports false for a type without one, or a value that does not encode
// (the general path then gives the same object, or the error). Managed
// fields, which the model drops but which may fail to encode, send an
// object down the general path too.
func (c *Converter) planned(kind string, obj client.Object) (*model.Object, bool) {
	v := reflect.ValueOf(obj)
	if v.Kind() != reflect.Pointer || v.IsNil() || len(obj.GetManagedFields()) > 0 {
		return nil, false
	}
	p := c.objectPlan(v.Type().Elem(), c.hoist[c.kinds[kind]])
	if p == nil {
		return nil, false
	}
	spec, status, err := p.encodeBody(v)
	if err != nil {
		return nil, false
	}
	mo := &model.Object{Kind: kind, Spec: spec, Status: status}
	if err := c.metaToModel(obj, mo); err != nil {
		return nil, false
	}
	return mo, true
}

// toModel is ToModel's general path, through the object's unstructured
// content.
func (c *Converter) toModel(kind string, obj client.Object) (*model.Object, error) {
	var u map[string]any
	var err error
	if uo, ok := obj.(runtime.Unstructured); ok {
		u = runtime.DeepCopyJSON(uo.UnstructuredContent())
	} else if u, err = runtime.DefaultUnstructuredConverter.ToUnstructured(obj); err != nil {
		return nil, err
	}
	return c.bodyToModel(kind, obj, u)
}

// bodyToModel converts an object of a model kind, its metadata from meta
// and the rest from u, its unstructured content (which it consumes).
func (c *Converter) bodyToModel(kind string, meta metav1.Object, u map[string]any) (*model.Object, error) {
	mo := &model.Object{Kind: kind}
	if err := c.metaToModel(meta, mo); err != nil {
		return nil, err
	}
	status := u["status"]
	for _, k := range []string{"apiVersion", "kind", "metadata", "status"} {
		delete(u, k)
	}
	var body any = u
	if c.hoist[c.kinds[kind]] {
		body = u["spec"]
	}
	var err error
	if mo.Spec, err = flattenPart("spec", body); err != nil {
		return nil, err
	}
	if mo.Status, err = flattenPart("status", status); err != nil {
		return nil, err
	}
	return mo, nil
}

func flattenPart(part string, v any) (model.Fields, error) {
	if v == nil {
		return model.Fields{}, nil
	}
	var f model.FieldsBuilder
	if err := flatten("", v, &f); err != nil {
		return model.Fields{}, fmt.Errorf("%s: %w", part, err)
	}
	return f.Fields(), nil
}

// FromModel overwrites into, a typed object of mo's kind, with mo. It sets
// into's apiVersion and kind, as controller-runtime's cache does for the
// objects it returns.
// A kind that does not match leaves into as it was; content that does
// not decode (an error naming mo) may leave it zeroed.
func (c *Converter) FromModel(mo *model.Object, into client.Object) error {
	return c.fromModel(mo, into, false, nil)
}

// FromModelShared is FromModel for a decode its caller keeps and never
// modifies, as a memo of decoded versions does: into's spec and status may
// be the converter's own kept decodes of that content (parts.go), shared
// with every other object decoded from the same content, not copies of
// them. So a decode whose parts were decoded before costs no copy of
// them; the caller hands readers a deep copy of into, never into itself.
func (c *Converter) FromModelShared(mo *model.Object, into client.Object) error {
	return c.fromModel(mo, into, true, nil)
}

// fromModel is FromModel, or with share, FromModelShared; with sent, of
// into's type, FromModelWritten.
func (c *Converter) fromModel(mo *model.Object, into client.Object, share bool, sent *Sent) error {
	kind, err := c.Kind(into)
	if err != nil {
		return err
	}
	if kind != mo.Kind {
		return fmt.Errorf("cannot convert a %s into a %s", mo.Kind, kind)
	}
	if sent.of(into) && any(sent.Object) == any(into) {
		sent = nil // zeroing into would zero what was sent
	}
	v := reflect.ValueOf(into).Elem()
	v.SetZero()
	if _, uo := into.(runtime.Unstructured); !uo && c.hoist[c.kinds[kind]] {
		// The spec and status by their content (parts.go), when the
		// type has a decoding plan.
		if p := c.partsOf(v.Type()); p != nil && c.decodePlanOf(v.Type()) != nil {
			var perr error
			if sent.of(into) {
				perr = p.decodePartsSent(mo.Spec, mo.Status, v, share, sent)
			} else {
				perr = p.decodeParts(mo.Spec, mo.Status, v, share)
			}
			if perr == nil {
				c.metaFromModel(mo, into)
				into.GetObjectKind().SetGroupVersionKind(c.kinds[kind])
				return nil
			}
			v.SetZero()
		}
	}
	return c.fromBody(kind, mo, into)
}

// fromBody is FromModel through the whole body: into, zero, is filled
// from body(mo) by the type's decoding plan, or else runtime's converter.
func (c *Converter) fromBody(kind string, mo *model.Object, into client.Object) error {
	v := reflect.ValueOf(into).Elem()
	u, err := c.body(mo)
	if err != nil {
		return err
	}
	if uo, ok := into.(runtime.Unstructured); ok {
		uo.SetUnstructuredContent(u)
	} else if p := c.decodePlanOf(v.Type()); p == nil || p.dec(u, v) != nil {
		// No plan, or content the plan does not decode: the general
		// path decodes it afresh, or names the error.
		v.SetZero()
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u, into); err != nil {
			return fmt.Errorf("%s: %w", mo.Ref(), err)
		}
	}
	c.metaFromModel(mo, into)
	into.GetObjectKind().SetGroupVersionKind(c.kinds[kind])
	return nil
}

// body returns the unstructured content of mo outside its metadata: the
// spec (or the body it stands for) and the status.
func (c *Converter) body(mo *model.Object) (map[string]any, error) {
	u := map[string]any{}
	spec, err := Unflatten(mo.Spec)
	if err != nil {
		return nil, fmt.Errorf("%s spec: %w", mo.Ref(), err)
	}
	if c.hoist[c.kinds[mo.Kind]] {
		if spec != nil {
			u["spec"] = spec
		}
	} else {
		for k, v := range spec {
			u[k] = v
		}
	}
	status, err := Unflatten(mo.Status)
	if err != nil {
		return nil, fmt.Errorf("%s status: %w", mo.Ref(), err)
	}
	if status != nil {
		u["status"] = status
	}
	return u, nil
}

// GVKs returns the group, version and kind of every model kind the
// converter knows, sorted by kind.
func (c *Converter) GVKs() []schema.GroupVersionKind { return slices.Clone(c.gvks) }
