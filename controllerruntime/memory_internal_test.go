package controllerruntime

import (
	"hash/fnv"
	"testing"
	"time"

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
