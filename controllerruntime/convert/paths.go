package convert

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/converge-sim/converge/model"
)

// Markers end a field path whose value is not a plain scalar. A JSON value
// that model.Fields cannot hold as int64, string or bool is kept by its
// path: "ports[]" is an empty list, "selector{}" an empty object,
// "args[1](null)" a null list element, "ratio(float)" a non-integral
// number held as its shortest decimal string.
const (
	markEmptyObject = "{}"
	markEmptyList   = "[]"
	markNull        = "(null)"
	markFloat       = "(float)"
)

// isIdent reports whether a JSON key can stand in a path unquoted.
func isIdent(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// appendKey extends path with an object key: ".key", or `["k.e/y"]` when
// the key is not an identifier.
func appendKey(path, k string) string {
	if !isIdent(k) {
		return path + "[" + strconv.Quote(k) + "]"
	}
	if path == "" {
		return k
	}
	return path + "." + k
}

// Flatten adds the leaves of v, a JSON value as runtime's unstructured
// converter produces it (maps, slices, string, int64, float64, bool, nil),
// to out under path prefix. An object field that is null is left out: a
// typed object cannot tell it from an absent one. An empty object at the
// top (prefix "") adds nothing.
func Flatten(prefix string, v any, out model.Values) error {
	return flatten(prefix, v, valuesSetter(out))
}

// setter takes the leaves Flatten and the encoding plans find: a
// model.Values, or a *model.FieldsBuilder, which sorts them once instead
// of filling a map that model.NewFields then sorts.
type setter interface{ Set(path string, v any) }

// valuesSetter sets into a model.Values.
type valuesSetter model.Values

func (m valuesSetter) Set(path string, v any) { m[path] = v }

// flatten is Flatten into any setter.
func flatten(prefix string, v any, out setter) error {
	switch v := v.(type) {
	case map[string]any:
		empty := true
		for k, x := range v {
			if x == nil {
				continue
			}
			empty = false
			if err := flatten(appendKey(prefix, k), x, out); err != nil {
				return err
			}
		}
		if empty && prefix != "" {
			out.Set(prefix+markEmptyObject, true)
		}
	case []any:
		if len(v) == 0 {
			out.Set(prefix+markEmptyList, true)
			return nil
		}
		for i, x := range v {
			p := prefix + "[" + strconv.Itoa(i) + "]"
			if x == nil {
				out.Set(p+markNull, true)
				continue
			}
			if err := flatten(p, x, out); err != nil {
				return err
			}
		}
	case string, bool, int64:
		if prefix == "" {
			return fmt.Errorf("a scalar %v cannot stand at the top of spec or status", v)
		}
		out.Set(prefix, v)
	case float64:
		if v == math.Trunc(v) && math.Abs(v) < 1<<62 {
			out.Set(prefix, int64(v))
		} else {
			out.Set(prefix+markFloat, strconv.FormatFloat(v, 'g', -1, 64))
		}
	case int:
		out.Set(prefix, int64(v))
	default:
		return fmt.Errorf("%s: unsupported JSON value of type %T", prefix, v)
	}
	return nil
}

// segment is one step of a path: an object key or a list index.
type segment struct {
	key   string
	index int // -1 for a key
}

// parsePath splits a path into segments, appended to segs[:0], and its
// marker.
func parsePath(segs []segment, p string) ([]segment, string, error) {
	segs = segs[:0]
	marker := ""
	for _, m := range []string{markEmptyObject, markEmptyList, markNull, markFloat} {
		if rest, ok := strings.CutSuffix(p, m); ok {
			p, marker = rest, m
			break
		}
	}
	rest := p
	for rest != "" {
		switch {
		case strings.HasPrefix(rest, `["`):
			q, err := strconv.QuotedPrefix(rest[1:])
			if err != nil || !strings.HasPrefix(rest[1+len(q):], "]") {
				return nil, "", fmt.Errorf("bad quoted key in path %q", p)
			}
			k, _ := strconv.Unquote(q)
			segs = append(segs, segment{key: k, index: -1})
			rest = rest[len(q)+2:]
		case strings.HasPrefix(rest, "["):
			end := strings.IndexByte(rest, ']')
			i, err := strconv.Atoi(rest[1:max(end, 1)])
			if end < 0 || err != nil || i < 0 {
				return nil, "", fmt.Errorf("bad index in path %q", p)
			}
			segs = append(segs, segment{index: i})
			rest = rest[end+1:]
		default:
			if len(segs) > 0 {
				if rest[0] != '.' {
					return nil, "", fmt.Errorf("bad path %q", p)
				}
				rest = rest[1:]
			}
			end := strings.IndexAny(rest, ".[")
			if end < 0 {
				end = len(rest)
			}
			if !isIdent(rest[:end]) {
				return nil, "", fmt.Errorf("bad key in path %q", p)
			}
			segs = append(segs, segment{key: rest[:end], index: -1})
			rest = rest[end:]
		}
	}
	if len(segs) == 0 && marker != "" {
		return nil, "", fmt.Errorf("path %q has a marker but no field", p)
	}
	return segs, marker, nil
}

// node is a JSON value under construction by Unflatten: an object (keys
// and kids), a list (indices and kids) or a leaf.
type node struct {
	keys      []string
	idx       []int
	kids      []*node
	obj, list bool
	leaf      bool
	value     any
}

// nodes hands out nodes from chunks, one allocation for many.
type nodes []node

func (ns *nodes) new() *node {
	if len(*ns) == 0 {
		*ns = make([]node, 16)
	}
	n := &(*ns)[0]
	*ns = (*ns)[1:]
	return n
}

func (n *node) child(s segment, ns *nodes) (*node, error) {
	if n.leaf {
		return nil, fmt.Errorf("a field is both a value and a container")
	}
	if s.index < 0 {
		if n.list {
			return nil, fmt.Errorf("a field is both a list and an object")
		}
		n.obj = true
		for i, k := range n.keys {
			if k == s.key {
				return n.kids[i], nil
			}
		}
		c := ns.new()
		n.keys = append(n.keys, s.key)
		n.kids = append(n.kids, c)
		return c, nil
	}
	if n.obj {
		return nil, fmt.Errorf("a field is both an object and a list")
	}
	n.list = true
	for i, x := range n.idx {
		if x == s.index {
			return n.kids[i], nil
		}
	}
	c := ns.new()
	n.idx = append(n.idx, s.index)
	n.kids = append(n.kids, c)
	return c, nil
}

func (n *node) set(v any) error {
	if n.leaf || n.obj || n.list {
		return fmt.Errorf("a field is given twice")
	}
	n.leaf, n.value = true, v
	return nil
}

func (n *node) build() any {
	switch {
	case n.leaf:
		return n.value
	case n.obj:
		m := make(map[string]any, len(n.keys))
		for i, k := range n.keys {
			m[k] = n.kids[i].build()
		}
		return m
	case n.list:
		size := 0
		for _, i := range n.idx {
			size = max(size, i+1)
		}
		l := make([]any, size)
		for j, i := range n.idx {
			l[i] = n.kids[j].build()
		}
		return l
	}
	return nil
}

// Unflatten is the inverse of Flatten with prefix "": it rebuilds the JSON
// object from its leaves. A list index with no entry becomes null. It
// returns nil for empty fields.
func Unflatten(f model.Fields) (map[string]any, error) {
	if f.Len() == 0 {
		return nil, nil
	}
	return unflatten(f)
}

// unflatten places f's paths in their (sorted) order, so that an error
// always names the same path.
func unflatten(f model.Fields) (map[string]any, error) {
	ns := make(nodes, 2*f.Len()+1) // more come in chunks if needed
	root := ns.new()
	root.obj = true
	var segs []segment
	for p, v := range f.All() {
		var err error
		if segs, err = place(root, &ns, segs, p, v); err != nil {
			return nil, fmt.Errorf("field %s: %w", p, err)
		}
	}
	return root.build().(map[string]any), nil
}

// place sets the value of path p under root; segs is a buffer for the
// path's segments, returned for reuse.
func place(root *node, ns *nodes, segs []segment, p string, v any) ([]segment, error) {
	segs, marker, err := parsePath(segs, p)
	if err != nil {
		return segs, err
	}
	return segs, placeAt(root, ns, segs, marker, v)
}

func placeAt(root *node, ns *nodes, segs []segment, marker string, v any) error {
	if len(segs) == 0 {
		return fmt.Errorf("empty path")
	}
	n := root
	var err error
	for _, s := range segs {
		if n, err = n.child(s, ns); err != nil {
			return err
		}
	}
	switch marker {
	case "":
		switch v := v.(type) {
		case string, bool, int64:
			return n.set(v)
		case int:
			return n.set(int64(v))
		}
		return fmt.Errorf("unsupported value type %T", v)
	case markFloat:
		s, _ := v.(string)
		x, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return fmt.Errorf("bad float %v", v)
		}
		return n.set(x)
	}
	if v != true {
		return fmt.Errorf("marker %s needs the value true, not %v", marker, v)
	}
	switch marker {
	case markEmptyObject:
		return n.set(map[string]any{})
	case markEmptyList:
		return n.set([]any{})
	default:
		return n.set(nil)
	}
}
