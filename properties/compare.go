package properties

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/converge-sim/converge/model"
)

// alwaysIgnored are the paths the differential oracle never compares:
// generations count writes, and a history is more writes; a condition's
// lastTransitionTime (metav1.Condition, as meta.SetStatusCondition sets it)
// is when a history passed through it, a timestamp like any other.
var alwaysIgnored = []Ignore{{Path: "status.observedGeneration"}, {Path: "status.conditions[*].observedGeneration"}, {Path: "status.conditions[*].lastTransitionTime"}}

// stateObject is one object of a compared state, normalized: its name
// with generated suffixes renumbered, and a flat view of what is compared
// (labels, which hold annotations in the model, owners, finalizers, spec;
// status for the target
// only), without UIDs, resourceVersions, generations or timestamps.
type stateObject struct {
	// key is "Kind namespace/name", the name normalized.
	key  string
	kind string
	// name is the name normalized.
	name string
	view model.Fields
}

// captureState reads the state the differential oracle compares: the
// target and every object it owns, transitively, through owner
// references. Objects with a generated name (GenerateName) are named
// GenerateName#n instead, numbered within each owner level in the order of
// their content, so that two states holding the same objects compare
// equal whatever names and creation order the API server gave them; a
// generated name found inside another name or a string value (a claim
// named after its pod) is replaced by its number there too.
//
// Numbering by content rather than by creation order is on purpose:
// creation order is itself history (a scale-down and up again creates in
// another order than a fresh start), so it would make equal states differ.
func captureState(st model.State, target model.Ref, cmpr *comparer) ([]stateObject, bool) {
	root := st.Get(target.Kind, target.Namespace, target.Name)
	if root == nil {
		return nil, false
	}
	kinds := st.Kinds()
	slices.Sort(kinds)
	names := map[model.UID]string{root.UID: root.Name}
	var renames []string // old, new pairs, for strings.Replacer
	rename := func(s string) string { return s }
	out := []stateObject{{key: objectKey(root, root.Name), kind: root.Kind, name: root.Name, view: cmpr.viewOf(root, root.Name, true, names, rename)}}
	level := []*model.Object{root}
	for len(level) > 0 {
		parents := map[model.UID]bool{}
		for _, o := range level {
			parents[o.UID] = true
		}
		var next []*model.Object
		for _, kind := range kinds {
			for i := range st.Len(kind) {
				o := st.Nth(kind, i)
				if _, seen := names[o.UID]; seen || !ownedBy(o, parents) || revisionHistory(st, o) {
					continue
				}
				next = append(next, o)
			}
		}
		// Name the level: fixed names stay, generated ones are numbered
		// in the order of their content (owners already normalized).
		type named struct {
			o       *model.Object
			content string
		}
		var items []named
		for _, o := range next {
			items = append(items, named{o, objectKey(o, "") + "\n" + cmpr.viewOf(o, provisionalName(o, rename), false, names, rename).String()})
		}
		slices.SortStableFunc(items, func(a, b named) int { return cmp.Compare(a.content, b.content) })
		counts := map[string]int{}
		for _, it := range items {
			name := rename(it.o.Name)
			if g := it.o.GenerateName; g != "" && strings.HasPrefix(it.o.Name, g) {
				group := it.o.Kind + " " + it.o.Namespace + " " + g
				counts[group]++
				name = g + "#" + strconv.Itoa(counts[group])
				renames = append(renames, it.o.Name, name)
			}
			names[it.o.UID] = name
		}
		if len(renames) > 0 {
			rename = strings.NewReplacer(renames...).Replace
		}
		for _, it := range items {
			name := names[it.o.UID]
			out = append(out, stateObject{key: objectKey(it.o, name), kind: it.o.Kind, name: name, view: cmpr.viewOf(it.o, name, false, names, rename)})
		}
		level = next
	}
	slices.SortFunc(out, func(a, b stateObject) int { return cmp.Compare(a.key, b.key) })
	return out, true
}

func ownedBy(o *model.Object, parents map[model.UID]bool) bool {
	for _, r := range o.OwnerReferences {
		if parents[r.UID] {
			return true
		}
	}
	return false
}

func objectKey(o *model.Object, name string) string {
	return o.Kind + " " + model.Key(o.Namespace, name)
}

// provisionalName is o's name before its level is numbered, for the
// ignores that name objects: a generated name is its GenerateName and
// "#", a fixed one is renamed as strings are.
func provisionalName(o *model.Object, rename func(string) string) string {
	if g := o.GenerateName; g != "" && strings.HasPrefix(o.Name, g) {
		return g + "#"
	}
	return rename(o.Name)
}

// viewOf flattens what the oracle compares of o (named name in the
// report), owner names normalized through names, generated names in
// strings through rename, in the report's spelling (keyed list items,
// canonical values: see spell), ignored paths left out.
func (cm *comparer) viewOf(o *model.Object, name string, withStatus bool, names map[model.UID]string, rename func(string) string) model.Fields {
	v := model.Values{}
	for k, val := range o.Labels.All() {
		v[metadataPath(k)] = val
	}
	if len(o.OwnerReferences) > 0 {
		var owners []string
		for _, r := range o.OwnerReferences {
			name, ok := names[r.UID]
			if !ok {
				name = r.Name + " (outside the compared state)"
			}
			s := r.Kind + " " + name
			if r.Controller {
				s += " (controller)"
			}
			owners = append(owners, s)
		}
		v["metadata.ownerReferences"] = strings.Join(owners, ", ")
	}
	if len(o.Finalizers) > 0 {
		v["metadata.finalizers"] = strings.Join(o.Finalizers, ", ")
	}
	if o.Deleting() {
		v["metadata.deleting"] = true
	}
	for p, x := range o.Spec.All() {
		v["spec."+p] = x
	}
	if withStatus {
		for p, x := range o.Status.All() {
			v["status."+p] = x
		}
	}
	v = cm.sem.spell(o.Kind, v)
	for p, x := range v {
		switch {
		case cm.ignored(o.Kind, name, p):
			delete(v, p)
		case p != "metadata.ownerReferences":
			if s, ok := x.(string); ok {
				v[p] = rename(s)
			}
		}
	}
	return model.NewFields(v)
}

// metadataPath spells the path of a label key of the model (a label, or
// an annotation under model.AnnotationLabelPrefix) as the report does:
// "metadata.labels.app", `metadata.annotations["example.com/paused"]`.
func metadataPath(k string) string {
	if name, ok := strings.CutPrefix(k, model.AnnotationLabelPrefix); ok {
		return appendKey("metadata.annotations", name)
	}
	return appendKey("metadata.labels", k)
}

// revisionHistory reports whether o is a ReplicaSet its Deployment has
// scaled to zero: Kubernetes keeps those old revisions for rollbacks
// (revisionHistoryLimit), so how many there are and what templates they
// hold depend on the history by design. The oracle leaves them out on both
// sides; a Deployment scaled to zero then compares by its own spec.
func revisionHistory(st model.State, o *model.Object) bool {
	ref, ok := o.ControllerRef()
	if !ok || o.Kind != "ReplicaSet" || ref.Kind != "Deployment" || o.Spec.Int("replicas") != 0 {
		return false
	}
	owner := st.Get(ref.Kind, o.Namespace, ref.Name)
	return owner != nil && owner.UID == ref.UID
}

// diffStates lists, field by field, how the state reached through the
// transitions (got) differs from the fresh cluster's (want).
// An object on one side only that an ignore names (Ignore with no Path)
// is no difference.
func (cm *comparer) diffStates(want, got []stateObject) []string {
	var out []string
	i, j := 0, 0
	for i < len(want) || j < len(got) {
		switch {
		case j == len(got) || (i < len(want) && want[i].key < got[j].key):
			if !cm.ignoredObject(want[i].kind, want[i].name) {
				out = append(out, fmt.Sprintf("%s: in a fresh cluster, missing after the transitions", want[i].key))
			}
			i++
		case i == len(want) || got[j].key < want[i].key:
			if !cm.ignoredObject(got[j].kind, got[j].name) {
				out = append(out, fmt.Sprintf("%s: after the transitions, not in a fresh cluster", got[j].key))
			}
			j++
		default:
			for _, p := range unionPaths(want[i].view, got[j].view) {
				a, b := want[i].view.Value(p), got[j].view.Value(p)
				if a != b {
					out = append(out, fmt.Sprintf("%s %s: %s after the transitions, %s in a fresh cluster", got[j].key, p, model.FormatValue(b), model.FormatValue(a)))
				}
			}
			i++
			j++
		}
	}
	return out
}

func unionPaths(a, b model.Fields) []string {
	ps := append(a.Paths(), b.Paths()...)
	slices.Sort(ps)
	return slices.Compact(ps)
}

// Ignore leaves something out of the differential oracle's comparison
// (Inputs.Ignore): fields, or objects whose presence on one side only is
// by design. Paths and names are spelled as the report spells them (see
// docs/design.md, "How states compare").
//
//   - With a Path: that field, and every field below it, of the objects
//     of Kind (every kind when empty) whose name matches Name (every
//     name when empty). In Path, "*" stands for any map key
//     ("metadata.annotations.*") and "[*]" for any list item, by index
//     or by key; a keyed item is spelled "[port=80,protocol=TCP]" and an
//     item of a set "[=TCP]".
//   - Without a Path: the objects of Kind whose name matches Name are no
//     difference when only one side has them ("PersistentVolumeClaim",
//     "data-*": claims kept by design after a scale-down). When both
//     sides have one, it is compared as any other.
//
// Name is a pattern of path.Match ("data-*"); a generated name is matched
// as the report spells it, "web-#2".
type Ignore struct {
	Kind string
	Path string
	Name string
	_    struct{}
}

// String spells the ignore for error messages: "Kind name: path".
func (ig Ignore) String() string {
	s := ig.Kind
	if s == "" {
		s = "every kind"
	}
	if ig.Name != "" {
		s += " " + ig.Name
	}
	if ig.Path != "" {
		s += ": " + ig.Path
	}
	return s
}

// validate parses ig.
func (ig Ignore) validate() error {
	if ig.Path == "" && ig.Kind == "" && ig.Name == "" {
		return errors.New("an ignore needs a Path, a Kind or a Name")
	}
	if strings.ContainsAny(ig.Kind, " /.") {
		return fmt.Errorf("ignore %s: bad kind %q (a Kind such as \"Service\")", ig, ig.Kind)
	}
	if ig.Name != "" {
		if _, err := path.Match(ig.Name, ""); err != nil || strings.Contains(ig.Name, "/") {
			return fmt.Errorf("ignore %s: bad name pattern %q (a name, \"*\" for any run of characters)", ig, ig.Name)
		}
	}
	if ig.Path != "" {
		if _, err := parsePattern(ig.Path); err != nil {
			return fmt.Errorf("ignore %s: bad path %q: %w", ig, ig.Path, err)
		}
	}
	return nil
}

// ListType says how the items of a list are told apart, as Kubernetes
// merges them: by the values of Keys (x-kubernetes-list-type: map with
// x-kubernetes-list-map-keys, or a built-in kind's patch merge key), as a
// set of scalars (x-kubernetes-list-type: set), or, the zero ListType, by
// position (atomic lists, and lists with no declared type).
type ListType struct {
	Keys []string
	Set  bool
	_    struct{}
}

// Semantics tells the differential oracle how Kubernetes compares the
// fields of each kind: which lists are keyed or sets, and which values have
// several spellings. Both functions are optional; the controller-runtime
// adapter fills them from the CRDs and the built-in kinds' schemas.
//
// Paths are field paths of an object of kind, as the model flattens it,
// with "[*]" for every list item: "spec.template.spec.containers[*].env".
type Semantics struct {
	// List returns the type of the list at path.
	List func(kind, path string) ListType
	// Value returns the canonical spelling of the scalar v at path (a
	// quantity "2000m" as "2"), or v.
	Value func(kind, path string, v any) any
	_     struct{}
}

// comparer compares states as Inputs say (docs/design.md, "How states
// compare"): with their Semantics, leaving
// out their Ignore and alwaysIgnored.
type comparer struct {
	sem     Semantics
	ignores []ignorePattern
}

// ignorePattern is an Ignore, its path parsed.
type ignorePattern struct {
	Ignore
	segs []segment
}

// newComparer returns the comparer of in (nil: the defaults). in's
// ignores were validated with the scenario; one that is not valid is
// left out.
func newComparer(in *Inputs) *comparer {
	cm := &comparer{}
	var ignores []Ignore
	if in != nil {
		cm.sem = in.Semantics
		ignores = in.Ignore
	}
	for _, ig := range slices.Concat(alwaysIgnored, ignores) {
		if segs, err := parsePattern(ig.Path); err == nil && ig.validate() == nil {
			cm.ignores = append(cm.ignores, ignorePattern{ig, segs})
		}
	}
	return cm
}

// ignored reports whether the field at p (in the report's spelling) of the
// object kind/name is left out.
func (cm *comparer) ignored(kind, name, p string) bool {
	segs := splitPath(p)
	for _, ig := range cm.ignores {
		if ig.Path != "" && ig.names(kind, name) && matchPrefix(segs, ig.segs) {
			return true
		}
	}
	return false
}

// ignoredObject reports whether the object kind/name is no difference when
// on one side only.
func (cm *comparer) ignoredObject(kind, name string) bool {
	for _, ig := range cm.ignores {
		if ig.Path == "" && ig.names(kind, name) {
			return true
		}
	}
	return false
}

// names reports whether ig applies to the object kind/name.
func (ig ignorePattern) names(kind, name string) bool {
	if ig.Kind != "" && ig.Kind != kind {
		return false
	}
	if ig.Name == "" {
		return true
	}
	ok, _ := path.Match(ig.Name, name)
	return ok
}

// segment is one step of a field path: a field or map key (".name", or
// the first step "name", or `["a.b/c"]`), or a list item ("[3]",
// "[port=80,protocol=TCP]", "[=TCP]").
type segment struct {
	text string
	item bool
}

// key returns the map key or field name of a field segment, and whether
// it is one; markers of the model's flattening ("selector{}",
// "args[1](null)") are not part of the name.
func (s segment) key() (string, bool) {
	if s.item {
		return "", false
	}
	t := strings.TrimPrefix(s.text, ".")
	if q, ok := strings.CutPrefix(t, "["); ok {
		k, err := strconv.Unquote(strings.TrimSuffix(q, "]"))
		return k, err == nil
	}
	for _, m := range []string{"{}", "[]", "(null)", "(float)"} {
		t = strings.TrimSuffix(t, m)
	}
	return t, t != ""
}

// splitPath splits a field path into its segments. It does not fail: a
// path the model holds is well formed, and anything else is one more
// literal segment.
func splitPath(p string) []segment {
	var out []segment
	for i := 0; i < len(p); {
		if p[i] == '[' {
			n := itemEnd(p[i:])
			t := p[i : i+n]
			out = append(out, segment{text: t, item: !strings.HasPrefix(t, `["`) && t != "[]"})
			i += n
			continue
		}
		j := i + 1
		for j < len(p) && p[j] != '.' && p[j] != '[' {
			j++
		}
		if j+1 < len(p) && p[j] == '[' && p[j+1] == ']' {
			j += 2 // an empty list's marker stays with its field
		}
		out = append(out, segment{text: p[i:j]})
		i = j
	}
	return out
}

// itemEnd returns the length of the bracketed segment p starts with,
// skipping quoted strings inside it, or len(p) when it does not end.
func itemEnd(p string) int {
	for i := 1; i < len(p); i++ {
		switch p[i] {
		case '"':
			q, err := strconv.QuotedPrefix(p[i:])
			if err != nil {
				return len(p)
			}
			i += len(q) - 1
		case ']':
			return i + 1
		}
	}
	return len(p)
}

// parsePattern parses an ignore path: a field path in the report's
// spelling, in which a field segment "*" stands for any map key and "[*]"
// for any list item. A label or annotation key may also be spelled
// unquoted, as traces spell it: "metadata.annotations.example.com/x".
func parsePattern(p string) ([]segment, error) {
	if p == "" {
		return nil, nil
	}
	for _, m := range []string{"metadata.annotations.", "metadata.labels."} {
		// A label or annotation key as the model spells it elsewhere
		// (model.MetadataPath, traces): the rest of the path is the key.
		if k, ok := strings.CutPrefix(p, m); ok && k != "*" && !isIdent(k) && !strings.ContainsAny(k, `["*`) {
			p = appendKey(strings.TrimSuffix(m, "."), k)
		}
	}
	if strings.HasPrefix(p, ".") || strings.HasSuffix(p, ".") || strings.Contains(p, "..") {
		return nil, errors.New("an empty field name")
	}
	segs := splitPath(p)
	for _, s := range segs {
		switch {
		case strings.HasSuffix(s.text, "[]"):
			return nil, errors.New(`"[]" names no item (use "[*]" for any)`)
		case strings.HasPrefix(s.text, "["):
			if !strings.HasSuffix(s.text, "]") || itemEnd(s.text) != len(s.text) {
				return nil, fmt.Errorf("%s is not closed", s.text)
			}
			if _, ok := s.key(); !ok && !s.item {
				return nil, fmt.Errorf("%s: a bad quoted key", s.text)
			}
		case strings.Contains(s.text, "*") && strings.TrimPrefix(s.text, ".") != "*":
			return nil, fmt.Errorf("%q: \"*\" stands for a whole map key, not part of one", s.text)
		case strings.ContainsAny(s.text, "]\""):
			return nil, fmt.Errorf("%q: a stray bracket or quote", s.text)
		}
	}
	return segs, nil
}

// matchPrefix reports whether pattern matches the first segments of path:
// a field "*" any field or map key, "[*]" any list item, anything else
// itself.
func matchPrefix(path, pattern []segment) bool {
	if len(pattern) > len(path) {
		return false
	}
	for i, p := range pattern {
		s := path[i]
		switch {
		case p.text == "[*]":
			if !s.item {
				return false
			}
		case p.item || s.item:
			if p.text != s.text {
				return false
			}
		case strings.TrimPrefix(p.text, ".") == "*":
			if _, ok := s.key(); !ok {
				return false
			}
		default:
			pk, _ := p.key()
			sk, ok := s.key()
			if !ok || pk != sk {
				return false
			}
		}
	}
	return true
}

// isIdent reports whether a map key can stand in a path unquoted, as the
// model's flattening of JSON spells it.
func isIdent(k string) bool {
	if k == "" {
		return false
	}
	for _, c := range k {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// appendKey extends path with a map key: ".key", or `["k.e/y"]`.
func appendKey(path, k string) string {
	if !isIdent(k) {
		return path + "[" + strconv.Quote(k) + "]"
	}
	return path + "." + k
}

// spell rewrites an object's flat fields v in the report's spelling: the
// items of keyed lists named by their keys ("spec.ports[port=80,
// protocol=TCP].targetPort"), the items of sets by their values
// ("[=TCP]"), other lists by position; and each scalar in its canonical
// spelling. A keyed list an item of which lacks every key, or two items
// of which have the same keys, stays by position: the API server would
// have refused it, and the comparison need not guess.
func (sem Semantics) spell(kind string, v model.Values) model.Values {
	if sem.List == nil && sem.Value == nil {
		return v
	}
	type list struct {
		generic string
		items   []string // the indexes, as spelled in the path
	}
	lists := map[string]*list{} // by concrete path
	split := map[string][]segment{}
	for p := range v {
		segs := splitPath(p)
		split[p] = segs
		concrete, generic := "", ""
		for _, s := range segs {
			if s.item {
				l := lists[concrete]
				if l == nil {
					l = &list{generic: generic}
					lists[concrete] = l
				}
				if !slices.Contains(l.items, s.text) {
					l.items = append(l.items, s.text)
				}
				concrete += s.text
				generic += "[*]"
				continue
			}
			concrete += s.text
			generic += s.text
		}
	}
	spelled := map[string]string{} // concrete item path → its spelling
	if sem.List != nil {
		for _, at := range slices.Sorted(maps.Keys(lists)) {
			l := lists[at]
			lt := sem.List(kind, l.generic)
			if len(lt.Keys) == 0 && !lt.Set {
				continue
			}
			names := map[string]string{}
			seen := map[string]bool{}
			for _, item := range l.items {
				name, ok := itemName(v, at+item, lt)
				if !ok || seen[name] {
					names = nil
					break
				}
				seen[name] = true
				names[at+item] = name
			}
			maps.Copy(spelled, names)
		}
	}
	out := model.Values{}
	for p, x := range v {
		var b, generic strings.Builder
		concrete := ""
		for _, s := range split[p] {
			concrete += s.text
			if name, ok := spelled[concrete]; ok {
				b.WriteString(name)
			} else {
				b.WriteString(s.text)
			}
			if s.item {
				generic.WriteString("[*]")
			} else {
				generic.WriteString(s.text)
			}
		}
		if sem.Value != nil {
			x = sem.Value(kind, generic.String(), x)
		}
		out[b.String()] = x
	}
	return out
}

// itemName spells the list item at path of v by lt: "[k=v,…]" with the
// keys it has, "[=v]" for a set's item.
func itemName(v model.Values, at string, lt ListType) (string, bool) {
	if lt.Set {
		x, ok := v[at]
		return "[=" + spellValue(x) + "]", ok
	}
	var parts []string
	for _, k := range lt.Keys {
		if x, ok := v[appendKey(at, k)]; ok {
			parts = append(parts, k+"="+spellValue(x))
		}
	}
	return "[" + strings.Join(parts, ",") + "]", len(parts) > 0
}

// spellValue spells a key's value in a path: bare when it reads as no
// other value and holds no delimiter, quoted otherwise.
func spellValue(x any) string {
	s, ok := x.(string)
	if !ok {
		return model.FormatValue(x)
	}
	if _, err := strconv.ParseInt(s, 10, 64); err == nil || s == "" || s == "true" || s == "false" || strings.ContainsAny(s, ",=[]\"\\ .") {
		return strconv.Quote(s)
	}
	return s
}
