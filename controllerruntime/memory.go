package controllerruntime

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"hash"
	"hash/fnv"
	"math"
	"reflect"
	goruntime "runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/runtime"
)

// A user reconciler's memory, seen without its help.
//
// Bounded exploration prunes a state it has seen, so it must see all that
// decides the future, a reconciler's memory included (docs/design.md,
// "Bounded exhaustive exploration"). A reconciler that implements
// model.Fingerprinter writes its own. One that does not is walked: every
// value reachable from it is written, field by field, as long as each is
// data (booleans, numbers, strings, and the arrays, slices, maps, structs
// and pointers of them) or a part the adapter gave it that keeps nothing
// of its own: its clients and cache, whose state is the model's, its event
// recorders, whose events are model objects, the scheme, which setup fills
// and reconciles only read, a logger, a mutex (unlocked between
// reconciles), and the handles on the API server that client-go and
// controller-runtime build from mgr.GetConfig() (handlePackages). A
// client-go store (cache.NewStore, cache.NewIndexer) is written by its
// content (memory_store.go). The scaffolded reconciler of kubebuilder and operator-sdk,
// a client, a scheme and a recorder, is such a value, and so is one that
// keeps maps of what it saw. A func declared at package level is written
// by its name, as it captures nothing. A value the walk cannot see into (a
// closure, a method value, a nil func, a channel, an unsafe pointer)
// leaves the reconciler undeclared, and the guarantee names it, as before.

// keepsNothing are the types of the parts the adapter hands a reconciler
// that hold no memory of their own.
var keepsNothing = map[reflect.Type]bool{
	reflect.TypeFor[*modelClient]():    true,
	reflect.TypeFor[*modelCache]():     true,
	reflect.TypeFor[*legacyRecorder](): true,
	reflect.TypeFor[*eventsRecorder](): true,
	reflect.TypeFor[*restMapper]():     true,
	reflect.TypeFor[*projectManager](): true,
	reflect.TypeFor[*Manager]():        true,
	reflect.TypeFor[*runtime.Scheme](): true,
	reflect.TypeFor[logr.Logger]():     true,
	reflect.TypeFor[sync.Mutex]():      true,
	reflect.TypeFor[sync.RWMutex]():    true,
	reflect.TypeFor[*sync.Mutex]():     true,
	reflect.TypeFor[*sync.RWMutex]():   true,
	reflect.TypeFor[reflect.Type]():    true,
	reflect.TypeFor[*time.Location]():  true,
	reflect.TypeFor[*restTransport]():  true,
}

// handlePackages are the packages whose types are handles on the API
// server, kept nowhere but in the server (docs/design.md, "Handles are not
// memory"): a *rest.Config and its *http.Client, the typed clientsets and
// their group clients, the dynamic, discovery and metadata clients, and a
// controller-runtime client built from a config. A reconciler holding them
// (as a pointer, or behind their interfaces) keeps nothing in them; a
// discovery client with a cache is the exception the walk does not make
// (package discovery/cached is not listed).
var handlePackages = map[string]bool{
	"k8s.io/client-go/rest":                     true,
	"k8s.io/client-go/kubernetes":               true,
	"k8s.io/client-go/dynamic":                  true,
	"k8s.io/client-go/discovery":                true,
	"k8s.io/client-go/metadata":                 true,
	"k8s.io/client-go/tools/record":             true,
	"net/http":                                  true,
	"sigs.k8s.io/controller-runtime/pkg/client": true,
}

// isHandle reports whether t is a pointer to a struct of a handle
// package, or of one of client-go's typed group clients
// (k8s.io/client-go/kubernetes/typed/…).
func isHandle(t reflect.Type) bool {
	if t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		return false
	}
	pkg := t.Elem().PkgPath()
	return handlePackages[pkg] || strings.HasPrefix(pkg, "k8s.io/client-go/kubernetes/typed/")
}

// reflectedMemory is the memory of a user reconciler found by walking it.
type reflectedMemory struct{ v reflect.Value }

// reflectMemory returns the memory of user found by walking it, or false
// if there is no user reconciler or the walk cannot see into a value
// reachable from it.
func reflectMemory(user any) (reflectedMemory, bool) {
	if user == nil {
		return reflectedMemory{}, false
	}
	v := reflect.ValueOf(user)
	w := &memoryWalker{check: true}
	w.value(v)
	if w.opaque != "" {
		return reflectedMemory{}, false
	}
	return reflectedMemory{v}, true
}

// Fingerprint writes every value reachable from the reconciler.
func (m reflectedMemory) Fingerprint(h hash.Hash64) {
	w := &memoryWalker{h: h}
	w.value(m.v)
	if w.opaque != "" {
		// It saw into everything when declared; a field since set to a
		// func or a channel is written by its place, so states still
		// differ where the walk got to.
		fmt.Fprintf(h, "opaque %s", w.opaque)
	}
}

// memoryWalker writes a value's memory to h; with check, it only looks for
// a value it cannot see into, and names the first in opaque.
type memoryWalker struct {
	h      hash.Hash64
	check  bool
	opaque string
	// seen are the pointers already walked, by address and type, so that
	// cycles end and a shared value is written once, then by its order.
	seen map[seenPointer]int
	buf  [8]byte
}

type seenPointer struct {
	addr uintptr
	typ  reflect.Type
}

func (w *memoryWalker) write(b []byte) {
	if !w.check {
		_, _ = w.h.Write(b)
	}
}

func (w *memoryWalker) uint(u uint64) {
	binary.LittleEndian.PutUint64(w.buf[:], u)
	w.write(w.buf[:])
}

func (w *memoryWalker) str(s string) {
	w.uint(uint64(len(s)))
	w.write([]byte(s))
}

func (w *memoryWalker) value(v reflect.Value) {
	if w.opaque != "" {
		return
	}
	if !v.IsValid() {
		w.uint(0)
		return
	}
	t := v.Type()
	if keepsNothing[t] || isHandle(t) {
		w.str(t.String())
		return
	}
	if isContentStore(t) {
		w.pointer(v, func() { w.store(v) })
		return
	}
	if t == reflect.TypeFor[time.Time]() {
		// Its instant, not its location's caches.
		if wall, ext := v.FieldByName("wall"), v.FieldByName("ext"); wall.Kind() == reflect.Uint64 && ext.Kind() == reflect.Int64 {
			w.uint(wall.Uint())
			w.uint(uint64(ext.Int()))
			return
		}
	}
	switch v.Kind() {
	case reflect.Bool:
		if v.Bool() {
			w.uint(1)
		} else {
			w.uint(0)
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		w.uint(uint64(v.Int()))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		w.uint(v.Uint())
	case reflect.Float32, reflect.Float64:
		w.uint(math.Float64bits(v.Float()))
	case reflect.Complex64, reflect.Complex128:
		w.uint(math.Float64bits(real(v.Complex())))
		w.uint(math.Float64bits(imag(v.Complex())))
	case reflect.String:
		w.str(v.String())
	case reflect.Array:
		for i := range v.Len() {
			w.value(v.Index(i))
		}
	case reflect.Slice:
		if v.IsNil() {
			w.uint(math.MaxUint64)
			return
		}
		w.uint(uint64(v.Len()))
		for i := range v.Len() {
			w.value(v.Index(i))
		}
	case reflect.Struct:
		for i := range v.NumField() {
			w.value(v.Field(i))
		}
	case reflect.Pointer:
		w.pointer(v, func() { w.value(v.Elem()) })
	case reflect.Interface:
		if v.IsNil() {
			w.uint(0)
			return
		}
		w.str(v.Elem().Type().String())
		w.value(v.Elem())
	case reflect.Map:
		w.pointer(v, func() { w.mapEntries(v) })
	case reflect.Func:
		name, ok := packageLevelFunc(v)
		if !ok {
			w.opaque = fmt.Sprintf("a %s (%s)", v.Kind(), t)
			return
		}
		w.str(name)
	default: // chan, unsafe pointer
		w.opaque = fmt.Sprintf("a %s (%s)", v.Kind(), t)
	}
}

// packageLevelFunc returns the name of the function v holds when it is
// declared at package level: such a value captures nothing, so it keeps
// no memory of its own (a package-level variable it writes outlives every
// run, and a replay shows it diverging). A closure or a method value may
// keep memory, and a nil func may become either; their names say which
// they are: a closure's has a funcN element, a method value's ends in
// -fm, and one made by reflect is reflect's stub.
func packageLevelFunc(v reflect.Value) (string, bool) {
	if v.Kind() != reflect.Func || v.IsNil() {
		return "", false
	}
	f := goruntime.FuncForPC(v.Pointer())
	if f == nil {
		return "", false
	}
	name := f.Name()
	pkg, local, ok := strings.Cut(name[strings.LastIndex(name, "/")+1:], ".")
	if !ok || pkg == "reflect" || strings.HasSuffix(name, "-fm") {
		return "", false
	}
	for part := range strings.SplitSeq(local, ".") {
		if part == "" || closureElement(part) {
			return "", false
		}
	}
	return name, true
}

// closureElement reports whether part, an element of a function's name,
// is funcN, which names a closure.
func closureElement(part string) bool {
	digits, ok := strings.CutPrefix(part, "func")
	if !ok || digits == "" {
		return false
	}
	for _, r := range digits {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// pointer walks what a non-nil pointer or map refers to once: again, it
// writes the order in which it was first walked.
func (w *memoryWalker) pointer(v reflect.Value, walk func()) {
	if v.IsNil() {
		w.uint(0)
		return
	}
	if w.seen == nil {
		w.seen = map[seenPointer]int{}
	}
	p := seenPointer{v.Pointer(), v.Type()}
	if n, ok := w.seen[p]; ok {
		w.uint(2)
		w.uint(uint64(n))
		return
	}
	w.seen[p] = len(w.seen)
	w.uint(1)
	walk()
}

// mapEntries writes a map's entries in the order of their keys' hashes,
// so that iteration order does not show.
func (w *memoryWalker) mapEntries(v reflect.Value) {
	w.uint(uint64(v.Len()))
	type entry struct {
		key uint64
		k   reflect.Value
	}
	entries := make([]entry, 0, v.Len())
	iter := v.MapRange()
	for iter.Next() {
		k := iter.Key()
		sub := &memoryWalker{h: fnv.New64a(), check: w.check}
		sub.value(k)
		if sub.opaque != "" {
			w.opaque = sub.opaque
			return
		}
		var key uint64
		if !w.check {
			key = sub.h.Sum64()
		}
		entries = append(entries, entry{key, k})
	}
	slices.SortFunc(entries, func(a, b entry) int { return cmp.Compare(a.key, b.key) })
	for _, e := range entries {
		w.uint(e.key)
		w.value(v.MapIndex(e.k))
	}
}
