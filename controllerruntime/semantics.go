package controllerruntime

import (
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/converge-sim/converge/controllerruntime/convert"
	"github.com/converge-sim/converge/controllerruntime/crd"
	"github.com/converge-sim/converge/properties"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/managedfields"
	clientgoapply "k8s.io/client-go/applyconfigurations"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/structured-merge-diff/v6/schema"
)

// Semantics returns how Kubernetes compares the fields of the kinds conv
// knows, for properties.Inputs.Semantics (see docs/design.md, "How states
// compare"): a custom resource's lists by its CRD's list types
// (x-kubernetes-list-type map with x-kubernetes-list-map-keys, set, or
// atomic) and its quantities (x-kubernetes-int-or-string with the quantity
// pattern) by value; a built-in kind's lists by the keys of its
// structured-merge-diff schema (Service spec.ports by port and protocol,
// containers by name, volumeMounts by mountPath) and its
// resource.Quantity fields by value. A kind with neither schema, or a path
// neither knows, is compared by position and as written.
//
// Inputs fills it in; a hand-written properties.Inputs can take it too.
func Semantics(crds *crd.Set, conv *convert.Converter) properties.Semantics {
	s := &semantics{crds: crds, conv: conv}
	return properties.Semantics{List: s.list, Value: s.value}
}

// semantics resolves paths against the kinds' schemas, once per kind and
// path: the oracle asks about every field of every state it compares, from
// parallel runs.
type semantics struct {
	crds  *crd.Set
	conv  *convert.Converter
	mu    sync.Mutex
	roots map[string]schemaNode
	nodes map[string]schemaNode // by kind and path
}

// schemaNode is a node of one of the two kinds of schemas.
type schemaNode interface {
	// child returns the schema of a field or a map's value.
	child(name string) schemaNode
	// item returns the schema of a list's items.
	item() schemaNode
	listType() properties.ListType
	quantity() bool
	// timestamp reports whether the field is a point in time
	// (metav1.Time, format date-time).
	timestamp() bool
}

func (s *semantics) list(kind, path string) properties.ListType {
	if n := s.node(kind, path); n != nil {
		return n.listType()
	}
	return properties.ListType{}
}

// value spells a quantity canonically ("2000m" as "2", an integer as the
// string of its value) and any time as timestampValue; anything else is v.
func (s *semantics) value(kind, path string, v any) any {
	var text string
	switch v := v.(type) {
	case string:
		text = v
	case int64:
		text = strconv.FormatInt(v, 10)
	default:
		return v
	}
	n := s.node(kind, path)
	switch {
	case n == nil:
		return v
	case n.timestamp():
		// When a history passed somewhere is history itself, and the
		// reference run passes at other times: a time compares as set,
		// not by its value (docs/design.md, "How states compare").
		return timestampValue
	case !n.quantity():
		return v
	}
	q, err := resource.ParseQuantity(text)
	if err != nil {
		return v
	}
	return q.String()
}

// timestampValue is how every time compares: set, whatever its value.
const timestampValue = "(a time)"

// node returns the schema of the field at path (the oracle's spelling:
// "spec.ports[*].port") of kind, or nil.
func (s *semantics) node(kind, path string) schemaNode {
	key := kind + "\x00" + path
	s.mu.Lock()
	defer s.mu.Unlock()
	if n, ok := s.nodes[key]; ok {
		return n
	}
	if s.nodes == nil {
		s.nodes, s.roots = map[string]schemaNode{}, map[string]schemaNode{}
	}
	root, ok := s.roots[kind]
	if !ok {
		root = s.root(kind)
		s.roots[kind] = root
	}
	n := walk(root, s.bodyPath(kind, path))
	s.nodes[key] = n
	return n
}

// bodyPath maps a path of the oracle (the model Spec under "spec.", the
// status under "status.") to its segments in the object's JSON.
func (s *semantics) bodyPath(kind, path string) []string {
	segs := splitSchemaPath(path)
	if len(segs) == 0 || segs[0] != "spec" || s.conv.SpecIsBody(kind) {
		return segs
	}
	return segs[1:]
}

// root returns the schema of kind: its CRD's, or else its built-in one.
func (s *semantics) root(kind string) schemaNode {
	gvk, err := s.conv.GVK(kind)
	if err != nil {
		return nil
	}
	if s.crds != nil {
		if v, ok := s.crds.Version(gvk); ok {
			return structural{v.Schema()}
		}
	}
	obj, err := clientgoscheme.Scheme.New(gvk)
	if err != nil {
		return nil
	}
	obj.GetObjectKind().SetGroupVersionKind(gvk)
	tv, err := builtinTypes().ObjectToTyped(obj)
	if err != nil {
		return nil
	}
	return smdNode{tv.Schema(), tv.TypeRef()}
}

// builtinTypes knows the built-in kinds' structured-merge-diff schemas.
var builtinTypes = sync.OnceValue(func() managedfields.TypeConverter {
	return clientgoapply.NewTypeConverter(clientgoscheme.Scheme)
})

// walk follows segs (field names, map keys and "[*]") from n.
func walk(n schemaNode, segs []string) schemaNode {
	for _, seg := range segs {
		if n == nil {
			return nil
		}
		if seg == "[*]" {
			n = n.item()
		} else {
			n = n.child(seg)
		}
	}
	return n
}

// splitSchemaPath splits a path of the oracle into field names, map keys
// (unquoted) and "[*]", leaving out the model's markers of empty and
// special values ("ports[]", "selector{}", "(null)").
func splitSchemaPath(p string) []string {
	var out []string
	for p != "" {
		switch {
		case strings.HasPrefix(p, "[*]"):
			out = append(out, "[*]")
			p = p[3:]
		case strings.HasPrefix(p, `["`):
			q, err := strconv.QuotedPrefix(p[1:])
			if err != nil {
				return out
			}
			k, _ := strconv.Unquote(q)
			out = append(out, k)
			p = strings.TrimPrefix(p[1+len(q):], "]")
		case p[0] == '.':
			p = p[1:]
		default:
			end := strings.IndexAny(p, ".[")
			if end < 0 {
				end = len(p)
			}
			name := p[:end]
			for _, m := range []string{"{}", "(null)", "(float)"} {
				name = strings.TrimSuffix(name, m)
			}
			if name != "" {
				out = append(out, name)
			}
			p = strings.TrimPrefix(p[end:], "[]")
		}
	}
	return out
}

// structural is a node of a CRD's structural schema.
type structural struct{ s *structuralschema.Structural }

func (n structural) child(name string) schemaNode {
	if n.s == nil {
		return nil
	}
	if p, ok := n.s.Properties[name]; ok {
		return structural{&p}
	}
	if ap := n.s.AdditionalProperties; ap != nil && ap.Structural != nil {
		return structural{ap.Structural}
	}
	return nil
}

func (n structural) item() schemaNode {
	if n.s == nil || n.s.Items == nil {
		return nil
	}
	return structural{n.s.Items}
}

func (n structural) listType() properties.ListType {
	if n.s == nil {
		return properties.ListType{}
	}
	if n.s.XListType == nil {
		if conditions(n.s.Items) {
			return properties.ListType{Keys: []string{"type"}}
		}
		return properties.ListType{}
	}
	switch *n.s.XListType {
	case "map":
		return properties.ListType{Keys: n.s.XListMapKeys}
	case "set":
		return properties.ListType{Set: true}
	}
	return properties.ListType{}
}

// conditions reports whether items is the schema controller-gen writes
// for a metav1.Condition: an object that requires type, status, reason,
// message and lastTransitionTime. A list of them with no list type is
// keyed by type, as meta.SetStatusCondition keeps it and the API
// conventions declare it (+listType=map, +listMapKey=type): many CRDs
// leave the marker out, and their order records only when each type was
// first set, which a history and a fresh cluster do in other orders
// (docs/design.md, "How states compare"). A list declared atomic stays
// compared by position.
func conditions(items *structuralschema.Structural) bool {
	if items == nil || items.Type != "object" || items.ValueValidation == nil {
		return false
	}
	if p, ok := items.Properties["type"]; !ok || p.Type != "string" {
		return false
	}
	for _, r := range []string{"type", "status", "reason", "message", "lastTransitionTime"} {
		if !slices.Contains(items.ValueValidation.Required, r) {
			return false
		}
	}
	return true
}

// quantity reports whether the field is a resource.Quantity as
// controller-gen declares one: int-or-string with the quantity pattern.
func (n structural) quantity() bool {
	return n.s != nil && n.s.XIntOrString && n.s.ValueValidation != nil && strings.Contains(n.s.ValueValidation.Pattern, "[KMGTPE]i")
}

// timestamp reports whether the field is a time as controller-gen declares
// a metav1.Time: a string of format date-time.
func (n structural) timestamp() bool {
	return n.s != nil && n.s.Generic.Type == "string" && n.s.ValueValidation != nil && n.s.ValueValidation.Format == "date-time"
}

// smdNode is a node of a built-in kind's structured-merge-diff schema.
type smdNode struct {
	s  *schema.Schema
	tr schema.TypeRef
}

func (n smdNode) atom() (schema.Atom, bool) { return n.s.Resolve(n.tr) }

func (n smdNode) child(name string) schemaNode {
	a, ok := n.atom()
	if !ok || a.Map == nil {
		return nil
	}
	if f, ok := a.Map.FindField(name); ok {
		return smdNode{n.s, f.Type}
	}
	if len(a.Map.Fields) == 0 {
		return smdNode{n.s, a.Map.ElementType}
	}
	return nil
}

func (n smdNode) item() schemaNode {
	a, ok := n.atom()
	if !ok || a.List == nil {
		return nil
	}
	return smdNode{n.s, a.List.ElementType}
}

func (n smdNode) listType() properties.ListType {
	a, ok := n.atom()
	if !ok || a.List == nil || a.List.ElementRelationship != schema.Associative {
		return properties.ListType{}
	}
	if len(a.List.Keys) == 0 {
		return properties.ListType{Set: true}
	}
	return properties.ListType{Keys: a.List.Keys}
}

func (n smdNode) quantity() bool {
	return n.tr.NamedType != nil && *n.tr.NamedType == "io.k8s.apimachinery.pkg.api.resource.Quantity"
}

func (n smdNode) timestamp() bool {
	if n.tr.NamedType == nil {
		return false
	}
	switch *n.tr.NamedType {
	case "io.k8s.apimachinery.pkg.apis.meta.v1.Time", "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime":
		return true
	}
	return false
}
