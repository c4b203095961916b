package controllerruntime

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// expectation is what a reconciler expects of a pod it created or
// deleted, as KubeRay keeps its scale expectations.
type expectation struct {
	namespace, name, group string
	deleted                bool
	at                     time.Time
}

func expectationKey(obj any) (string, error) {
	e, ok := obj.(*expectation)
	if !ok {
		return "", fmt.Errorf("not an expectation: %T", obj)
	}
	return e.namespace + "/" + e.name, nil
}

func groupIndex(obj any) ([]string, error) {
	return []string{obj.(*expectation).group}, nil
}

// expecting is a reconciler that keeps its expectations in a client-go
// indexer, as KubeRay's RayCluster reconciler does.
type expecting struct {
	client.Client
	expected cache.Indexer
}

// newExpecting returns a reconciler whose indexer holds items, added in
// order. One index function is a closure: index functions are the store's
// configuration, not its memory.
func newExpecting(items ...*expectation) *expecting {
	prefix := "group:"
	byGroup := func(obj any) ([]string, error) { return []string{prefix + obj.(*expectation).group}, nil }
	r := &expecting{Client: &modelClient{}, expected: cache.NewIndexer(expectationKey, cache.Indexers{"group": groupIndex, "prefixed": byGroup})}
	for _, it := range items {
		if err := r.expected.Add(it); err != nil {
			panic(err)
		}
	}
	return r
}

// TestIndexerMemoryIsItsContent: a reconciler holding a cache.Indexer is
// fingerprinted, by the indexer's content: the same items, added in
// another order or added and some deleted again, give the same
// fingerprint; another item, another field of one, or another synced
// resource version give another.
func TestIndexerMemoryIsItsContent(t *testing.T) {
	at := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	a := func() *expectation { return &expectation{namespace: "ns", name: "head", group: "", at: at} }
	b := func() *expectation { return &expectation{namespace: "ns", name: "worker-1", group: "workers", at: at} }

	base := fingerprint(t, newExpecting(a(), b()))
	assert.Equal(t, base, fingerprint(t, newExpecting(b(), a())), "the same content added in another order")
	churned := newExpecting(a(), b(), &expectation{namespace: "ns", name: "gone", group: "workers"})
	require.NoError(t, churned.expected.Delete(&expectation{namespace: "ns", name: "gone"}))
	assert.Equal(t, base, fingerprint(t, churned), "an item added and deleted again leaves no trace")

	deleted := b()
	deleted.deleted = true
	for name, r := range map[string]*expecting{
		"one item fewer": newExpecting(a()),
		"empty":          newExpecting(),
		"another item":   newExpecting(a(), b(), &expectation{namespace: "ns", name: "worker-2", group: "workers", at: at}),
		"another action": newExpecting(a(), deleted),
		"another time":   newExpecting(a(), &expectation{namespace: "ns", name: "worker-1", group: "workers", at: at.Add(time.Second)}),
	} {
		assert.NotEqual(t, base, fingerprint(t, r), name)
	}
	synced := newExpecting(a(), b())
	synced.expected.Bookmark("7")
	assert.NotEqual(t, base, fingerprint(t, synced), "the resource version it synced to")
}

// TestStoresAreFingerprinted: a cache.Store and a cache.ThreadSafeStore
// are written by their content too, and an item the walk cannot see into
// is named, as anywhere in a reconciler's memory.
func TestStoresAreFingerprinted(t *testing.T) {
	type holder struct {
		s  cache.Store
		ts cache.ThreadSafeStore
	}
	build := func(keys ...string) *holder {
		h := &holder{s: cache.NewStore(cache.MetaNamespaceKeyFunc), ts: cache.NewThreadSafeStore(cache.Indexers{}, cache.Indices{})}
		for _, k := range keys {
			h.ts.Add(k, []string{k})
		}
		return h
	}
	base := fingerprint(t, build("x", "y"))
	assert.Equal(t, base, fingerprint(t, build("y", "x")))
	assert.NotEqual(t, base, fingerprint(t, build("x")))

	opaque := build()
	opaque.ts.Add("f", func() {})
	_, ok := reflectMemory(opaque)
	assert.False(t, ok, "a closure in a store is not memory the walk can see")
}
