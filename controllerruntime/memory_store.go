package controllerruntime

import (
	"reflect"
	"slices"

	"k8s.io/client-go/tools/cache"
)

// client-go's stores in a reconciler's memory.
//
// A reconciler may keep what it expects in a client-go store: KubeRay's
// RayCluster reconciler keeps its scale expectations (the pods it created
// or deleted and has not yet seen) in a cache.Indexer. The store's content
// is memory like a map's, but the walk cannot see into the store as it
// is: it holds a key function and index functions (configuration, given
// when the store is made, not state), a lock, and metrics hooks. So a
// store that cache.NewStore, cache.NewIndexer or cache.NewThreadSafeStore
// made is written by its content, through its own interface: its keys in
// order, each with its item, walked as any memory; the last resource
// version it synced to (an informer's store tracks it); and the names of
// its indexers. Its indices are not written: they follow from the items
// and the index functions. Other stores of the package (the FIFO queues,
// whose order is state their interface does not show, and the expiring
// cache, which reads a clock) are left to the walk, which cannot see into
// them and names them.

// storePackage is the package of client-go's stores.
const storePackage = "k8s.io/client-go/tools/cache"

// contentStores are the store types written by their content: the
// store of NewStore and NewIndexer, and the map of NewThreadSafeStore.
var contentStores = map[string]bool{"cache": true, "threadSafeMap": true}

// isContentStore reports whether t is a pointer to one of contentStores.
func isContentStore(t reflect.Type) bool {
	return t.Kind() == reflect.Pointer && t.Elem().PkgPath() == storePackage && contentStores[t.Elem().Name()]
}

// storeContent is what the walk reads of a store: the interface that
// cache.Store and cache.ThreadSafeStore share, and an item by key.
type storeContent struct {
	keys    func() []string
	get     func(key string) (any, bool)
	synced  func() string
	indexes func() cache.Indexers
}

// contentOf returns the reading side of v, a store isContentStore
// accepts. v may have been reached through an unexported field, whose
// methods reflect does not call; the store it points to is the same.
func contentOf(v reflect.Value) (storeContent, bool) {
	switch s := reflect.NewAt(v.Type().Elem(), v.UnsafePointer()).Interface().(type) {
	case cache.Indexer:
		get := func(key string) (any, bool) {
			item, ok, err := s.GetByKey(key)
			return item, ok && err == nil
		}
		return storeContent{keys: s.ListKeys, get: get, synced: s.LastStoreSyncResourceVersion, indexes: s.GetIndexers}, true
	case cache.ThreadSafeStore:
		return storeContent{keys: s.ListKeys, get: s.Get, synced: s.LastStoreSyncResourceVersion, indexes: s.GetIndexers}, true
	}
	return storeContent{}, false
}

// store writes a client-go store by its content (see above); v is not
// nil.
func (w *memoryWalker) store(v reflect.Value) {
	s, ok := contentOf(v)
	if !ok {
		w.str(v.Type().String())
		return
	}
	names := sortedKeys(s.indexes())
	w.uint(uint64(len(names)))
	for _, n := range names {
		w.str(n)
	}
	w.str(s.synced())
	keys := slices.Sorted(slices.Values(s.keys()))
	w.uint(uint64(len(keys)))
	for _, k := range keys {
		item, ok := s.get(k)
		if !ok {
			continue
		}
		w.str(k)
		w.value(reflect.ValueOf(&item).Elem())
	}
}
