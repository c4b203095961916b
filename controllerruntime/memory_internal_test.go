package controllerruntime

import (
	"context"
	"hash/fnv"
	"reflect"
	"testing"
	"time"

	"github.com/converge-sim/converge/model"
	"github.com/go-logr/logr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// scaffolded is a reconciler as kubebuilder scaffolds it, with a flag and
// the memory some reconcilers keep: counts by key, and what they saw last.
type scaffolded struct {
	client.Client
	Scheme *runtime.Scheme
	Log    logr.Logger
	Debug  bool
	seen   map[string]int
	last   *observed
	self   *scaffolded
}

type observed struct {
	names []string
	gen   int64
	at    time.Time
}

func fingerprint(t *testing.T, user any) uint64 {
	t.Helper()
	m, ok := reflectMemory(user)
	require.True(t, ok, "the walk must see all of %T", user)
	h := fnv.New64a()
	m.Fingerprint(h)
	return h.Sum64()
}

// TestTheWalkSeesAReconcilersMemory: the walk writes a reconciler's own
// values, its maps in an order that does not depend on iteration, and the
// values its pointers reach (a cycle included), and skips the parts the
// adapter gave it, which keep nothing.
func TestTheWalkSeesAReconcilersMemory(t *testing.T) {
	build := func(cl client.Client, seen map[string]int, names ...string) *scaffolded {
		r := &scaffolded{Client: cl, Scheme: runtime.NewScheme(), seen: seen, last: &observed{names: names, gen: 2}}
		r.self = r
		return r
	}
	base := fingerprint(t, build(&modelClient{name: "a"}, map[string]int{"x": 1, "y": 2}, "p"))

	// The same memory with other parts from the adapter, a map built in
	// another order, a new scheme: the same fingerprint.
	seen := map[string]int{}
	for _, k := range []string{"y", "x"} {
		seen[k] = map[string]int{"x": 1, "y": 2}[k]
	}
	assert.Equal(t, base, fingerprint(t, build(&modelClient{name: "b"}, seen, "p")))

	// Another count, another key, another name seen, a flag: another one.
	for name, r := range map[string]*scaffolded{
		"count": build(nil, map[string]int{"x": 1, "y": 3}, "p"),
		"key":   build(nil, map[string]int{"x": 1, "z": 2}, "p"),
		"seen":  build(nil, map[string]int{"x": 1, "y": 2}, "q"),
		"none":  build(nil, map[string]int{"x": 1, "y": 2}),
	} {
		assert.NotEqual(t, base, fingerprint(t, r), name)
	}
	flagged := build(nil, map[string]int{"x": 1, "y": 2}, "p")
	flagged.Debug = true
	assert.NotEqual(t, base, fingerprint(t, flagged))
	later := build(nil, map[string]int{"x": 1, "y": 2}, "p")
	later.last.at = later.last.at.Add(time.Second)
	assert.NotEqual(t, base, fingerprint(t, later), "a time it keeps")

	// A nil map and an empty one are different memories, as they are
	// different values; two maps that hold the same do not differ.
	assert.NotEqual(t, fingerprint(t, build(nil, nil, "p")), fingerprint(t, build(nil, map[string]int{}, "p")))
}

// TestTheWalkGivesUpOnWhatItCannotSee: a func or a channel anywhere in a
// reconciler leaves it undeclared, and so does no reconciler at all.
func TestTheWalkGivesUpOnWhatItCannotSee(t *testing.T) {
	type withFunc struct {
		client.Client
		next func() int
	}
	type withChan struct{ events map[string]chan int }
	type nested struct{ inner any }
	for name, user := range map[string]any{
		"func":            &withFunc{next: func() int { return 1 }},
		"chan in a map":   &withChan{events: map[string]chan int{"a": make(chan int)}},
		"func behind any": &nested{inner: &withFunc{}},
		"none":            nil,
	} {
		_, ok := reflectMemory(user)
		assert.False(t, ok, name)
	}
	// A nil func is still a func: the walk cannot know it stays nil.
	_, ok := reflectMemory(&withFunc{})
	assert.False(t, ok)
}

// clock and reconcileAll are a package-level func and one with a closure
// in it, as reconcilers hold them.
func clock() time.Time { return time.Unix(0, 0) }

func reconcileAll() func() int {
	n := 0
	return func() int { n++; return n }
}

// TestTheWalkSeesPackageLevelFuncs: a func declared at package level
// captures nothing, so a reconciler holding one is walked, the func by its
// name; a closure, a method value or a func made by reflect may keep
// memory, and leaves the reconciler undeclared.
func TestTheWalkSeesPackageLevelFuncs(t *testing.T) {
	type withNow struct {
		client.Client
		now func() time.Time
	}
	assert.Equal(t, fingerprint(t, &withNow{now: clock}), fingerprint(t, &withNow{now: clock}))
	assert.NotEqual(t, fingerprint(t, &withNow{now: clock}), fingerprint(t, &withNow{now: time.Now}), "another func, another fingerprint")

	type withCount struct{ next func() int }
	for name, f := range map[string]any{
		"closure":      reconcileAll(),
		"method value": time.Unix(0, 0).String,
		"reflect":      reflect.MakeFunc(reflect.TypeFor[func() int](), func([]reflect.Value) []reflect.Value { return []reflect.Value{reflect.ValueOf(1)} }).Interface(),
	} {
		_, ok := packageLevelFunc(reflect.ValueOf(f))
		assert.False(t, ok, name)
	}
	_, ok := reflectMemory(&withCount{next: reconcileAll()})
	assert.False(t, ok)
	name, ok := packageLevelFunc(reflect.ValueOf(clock))
	assert.True(t, ok)
	assert.Equal(t, "github.com/converge-sim/converge/controllerruntime.clock", name)
}

// noMove is an actor's move declared at package level.
func noMove(context.Context, client.Client, func(int, string) int) error { return nil }

// TestAnActorDeclaresMemoryOnlyOfAPackageLevelFunc: an actor whose move is
// a func declared at package level says it keeps no memory; one whose
// move is a closure does not, so the guarantee names it.
func TestAnActorDeclaresMemoryOnlyOfAPackageLevelFunc(t *testing.T) {
	var m Manager
	_, ok := m.Actor("user", noMove).(model.Fingerprinter)
	assert.True(t, ok)
	moves := 0
	counting := func(context.Context, client.Client, func(int, string) int) error { moves++; return nil }
	_, ok = m.Actor("user", counting).(model.Fingerprinter)
	assert.False(t, ok)
}
