package controllerruntime

import (
	"slices"
	"strings"
	"sync"

	"github.com/converge-sim/converge/controllerruntime/crd"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/version"
)

// resourceTable is what the model's API server serves, by resource: every
// kind of the converter the server serves (built in, or defined by a
// loaded CRD), with its subresources. It is built on the first request
// and read only after.
type resourceTable struct {
	once   sync.Once
	build  func() *resourceTable
	byGVR  map[schema.GroupVersionResource]*servedResource
	groups []metav1.APIGroup // sorted by name; the core group is not one
	lists  map[schema.GroupVersion]*metav1.APIResourceList
}

// servedResource is one resource the server serves.
type servedResource struct {
	gvk schema.GroupVersionKind
	// scale holds the paths of its scale subresource, or is nil.
	scale *crd.Scale
}

// builtinScale are the built-in kinds with a scale subresource, and the
// paths of their replicas and selector.
var builtinScale = map[schema.GroupKind]*crd.Scale{
	{Group: "apps", Kind: "Deployment"}:  {SpecReplicasPath: ".spec.replicas", StatusReplicasPath: ".status.replicas", LabelSelectorPath: ".spec.selector"},
	{Group: "apps", Kind: "StatefulSet"}: {SpecReplicasPath: ".spec.replicas", StatusReplicasPath: ".status.replicas", LabelSelectorPath: ".spec.selector"},
	{Group: "apps", Kind: "ReplicaSet"}:  {SpecReplicasPath: ".spec.replicas", StatusReplicasPath: ".status.replicas", LabelSelectorPath: ".spec.selector"},
	{Kind: "ReplicationController"}:      {SpecReplicasPath: ".spec.replicas", StatusReplicasPath: ".status.replicas", LabelSelectorPath: ".spec.selector"},
}

// newResourceTable returns the table of e's served kinds, built when
// first read.
func newResourceTable(e *env, crds *crd.Set) *resourceTable {
	t := &resourceTable{}
	t.build = func() *resourceTable { return buildResourceTable(e, crds) }
	return t
}

func (t *resourceTable) get() *resourceTable {
	t.once.Do(func() {
		b := t.build()
		t.byGVR, t.groups, t.lists = b.byGVR, b.groups, b.lists
	})
	return t
}

// kind returns the kind a resource of a group and version stands for.
func (t *resourceTable) kind(gvr schema.GroupVersionResource) (schema.GroupVersionKind, bool) {
	r, ok := t.get().byGVR[gvr]
	if !ok {
		return schema.GroupVersionKind{}, false
	}
	return r.gvk, true
}

// scale returns the paths of the scale subresource of a resource, or nil.
func (t *resourceTable) scale(gvr schema.GroupVersionResource) *crd.Scale {
	if r, ok := t.get().byGVR[gvr]; ok {
		return r.scale
	}
	return nil
}

func buildResourceTable(e *env, crds *crd.Set) *resourceTable {
	t := &resourceTable{byGVR: map[schema.GroupVersionResource]*servedResource{}, lists: map[schema.GroupVersion]*metav1.APIResourceList{}}
	crdScale := map[schema.GroupVersionKind]*crd.Scale{}
	if crds != nil {
		for _, v := range crds.Versions() {
			crdScale[v.GVK] = v.Scale
		}
	}
	versions := map[string][]string{}
	for _, gvk := range e.conv.GVKs() {
		if strings.HasSuffix(gvk.Kind, "List") || (e.served != nil && e.served(gvk.Kind) != nil) {
			continue
		}
		plural, singular := e.mapper.resource(gvk)
		res := &servedResource{gvk: gvk, scale: builtinScale[gvk.GroupKind()]}
		if s, ok := crdScale[gvk]; ok {
			res.scale = s
		}
		t.byGVR[plural] = res
		gv := gvk.GroupVersion()
		list := t.lists[gv]
		if list == nil {
			list = &metav1.APIResourceList{TypeMeta: metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"}, GroupVersion: gv.String()}
			t.lists[gv] = list
			if gv.Group != "" {
				versions[gv.Group] = append(versions[gv.Group], gv.Version)
			}
		}
		namespaced := e.mapper.namespaced(gvk.Kind)
		list.APIResources = append(list.APIResources, metav1.APIResource{
			Name: plural.Resource, SingularName: singular.Resource, Namespaced: namespaced, Kind: gvk.Kind,
			Verbs: metav1.Verbs{"create", "delete", "deletecollection", "get", "list", "patch", "update"},
		})
		sub := func(name, kind string, verbs ...string) {
			list.APIResources = append(list.APIResources, metav1.APIResource{
				Name: plural.Resource + "/" + name, Namespaced: namespaced, Kind: kind, Verbs: verbs,
			})
		}
		if e.conv.HasStatus(gvk.Kind) && !e.noStatus[gvk.Kind] {
			sub("status", gvk.Kind, "get", "patch", "update")
		}
		if res.scale != nil {
			sub("scale", "Scale", "get", "patch", "update")
		}
		if gvk.Group == "" && gvk.Kind == "Pod" {
			sub("eviction", "Eviction", "create")
			sub("exec", "PodExecOptions", "create", "get")
			sub("log", "Pod", "get")
		}
	}
	for _, list := range t.lists {
		slices.SortFunc(list.APIResources, func(a, b metav1.APIResource) int { return strings.Compare(a.Name, b.Name) })
	}
	for _, group := range sortedKeys(versions) {
		vs := versions[group]
		slices.Sort(vs)
		g := metav1.APIGroup{Name: group}
		for _, v := range vs {
			g.Versions = append(g.Versions, metav1.GroupVersionForDiscovery{GroupVersion: group + "/" + v, Version: v})
		}
		g.PreferredVersion = g.Versions[len(g.Versions)-1]
		t.groups = append(t.groups, g)
	}
	return t
}

// discovery answers the discovery paths (/api, /apis, a group, a group
// version, /version) from the table, in the legacy (unaggregated) form,
// which client-go's discovery client falls back to.
func (t *restTransport) discovery(path string) (any, bool) {
	tab := t.kinds.get()
	seg := strings.Split(path, "/")
	switch {
	case path == "version":
		return &version.Info{Major: "1", Minor: "37", GitVersion: "v1.37.0-converge-model", Platform: "converge/model"}, true
	case path == "api":
		return &metav1.APIVersions{TypeMeta: metav1.TypeMeta{Kind: "APIVersions"}, Versions: []string{"v1"}}, true
	case path == "apis":
		return &metav1.APIGroupList{TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"}, Groups: tab.groups}, true
	case len(seg) == 2 && seg[0] == "api":
		if list, ok := tab.lists[schema.GroupVersion{Version: seg[1]}]; ok {
			return list, true
		}
	case len(seg) == 2 && seg[0] == "apis":
		for i := range tab.groups {
			if tab.groups[i].Name == seg[1] {
				g := tab.groups[i]
				g.TypeMeta = metav1.TypeMeta{Kind: "APIGroup", APIVersion: "v1"}
				return &g, true
			}
		}
	case len(seg) == 3 && seg[0] == "apis":
		if list, ok := tab.lists[schema.GroupVersion{Group: seg[1], Version: seg[2]}]; ok {
			return list, true
		}
	}
	return nil, false
}
