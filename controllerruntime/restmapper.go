package controllerruntime

import (
	"fmt"
	"sync"

	"github.com/converge-sim/converge/controllerruntime/convert"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// clusterScopedKinds are the built-in kinds without a namespace.
var clusterScopedKinds = map[string]bool{
	"Namespace": true, "Node": true, "PersistentVolume": true, "ComponentStatus": true,
	"ClusterRole": true, "ClusterRoleBinding": true, "StorageClass": true, "CSIDriver": true,
	"CSINode": true, "VolumeAttachment": true, "PriorityClass": true, "RuntimeClass": true,
	"IngressClass": true, "CustomResourceDefinition": true, "APIService": true,
	"MutatingWebhookConfiguration": true, "ValidatingWebhookConfiguration": true,
	"CertificateSigningRequest": true,
}

// restMapper maps the converter's kinds to resources: a custom resource
// to the plural its CRD names, any other kind to the plural
// meta.UnsafeGuessKindToResource guesses, as the API server's discovery
// would name the built-ins. A kind is namespaced unless it is a built-in
// cluster-scoped kind, listed in ManagerOptions.ClusterScoped, or defined
// cluster-scoped by its CRD.
type restMapper struct {
	conv          *convert.Converter
	clusterScoped map[string]bool
	// plurals holds the resource names of the custom resource kinds with
	// a loaded CRD.
	plurals map[string]string
}

var _ meta.RESTMapper = (*restMapper)(nil)

func (m *restMapper) namespaced(kind string) bool {
	return !clusterScopedKinds[kind] && !m.clusterScoped[kind]
}

// resource returns gvk's resource, plural and singular.
func (m *restMapper) resource(gvk schema.GroupVersionKind) (plural, singular schema.GroupVersionResource) {
	plural, singular = guessResource(gvk)
	if p, ok := m.plurals[gvk.Kind]; ok {
		plural.Resource = p
	}
	return plural, singular
}

// guessed keeps meta.UnsafeGuessKindToResource's answer for each kind
// asked about (every API error a client returns names its resource): a
// function of the kind alone, shared by every mapper and safe for
// concurrent use.
var guessed sync.Map // schema.GroupVersionKind → [2]schema.GroupVersionResource

func guessResource(gvk schema.GroupVersionKind) (plural, singular schema.GroupVersionResource) {
	if g, ok := guessed.Load(gvk); ok {
		r := g.([2]schema.GroupVersionResource)
		return r[0], r[1]
	}
	plural, singular = meta.UnsafeGuessKindToResource(gvk)
	guessed.Store(gvk, [2]schema.GroupVersionResource{plural, singular})
	return plural, singular
}

func (m *restMapper) mapping(gvk schema.GroupVersionKind) *meta.RESTMapping {
	plural, _ := m.resource(gvk)
	scope := meta.RESTScopeNamespace
	if !m.namespaced(gvk.Kind) {
		scope = meta.RESTScopeRoot
	}
	return &meta.RESTMapping{Resource: plural, GroupVersionKind: gvk, Scope: scope}
}

// RESTMapping returns the mapping of the kind the converter gives gk.
func (m *restMapper) RESTMapping(gk schema.GroupKind, versions ...string) (*meta.RESTMapping, error) {
	gvk, err := m.conv.GVK(gk.Kind)
	if err != nil || gvk.Group != gk.Group {
		return nil, &meta.NoKindMatchError{GroupKind: gk, SearchedVersions: versions}
	}
	return m.mapping(gvk), nil
}

// RESTMappings returns the one mapping RESTMapping returns.
func (m *restMapper) RESTMappings(gk schema.GroupKind, versions ...string) ([]*meta.RESTMapping, error) {
	r, err := m.RESTMapping(gk, versions...)
	if err != nil {
		return nil, err
	}
	return []*meta.RESTMapping{r}, nil
}

// KindFor returns the kind whose resource is resource.
func (m *restMapper) KindFor(resource schema.GroupVersionResource) (schema.GroupVersionKind, error) {
	kinds, err := m.KindsFor(resource)
	if err != nil {
		return schema.GroupVersionKind{}, err
	}
	return kinds[0], nil
}

// KindsFor returns the kinds whose resource is resource.
func (m *restMapper) KindsFor(resource schema.GroupVersionResource) ([]schema.GroupVersionKind, error) {
	var out []schema.GroupVersionKind
	for _, gvk := range m.conv.GVKs() {
		plural, singular := m.resource(gvk)
		r := resource.Resource
		if gvk.Group == resource.Group && (r == plural.Resource || r == singular.Resource) &&
			(resource.Version == "" || resource.Version == gvk.Version) {
			out = append(out, gvk)
		}
	}
	if len(out) == 0 {
		return nil, &meta.NoResourceMatchError{PartialResource: resource}
	}
	return out, nil
}

// ResourceFor returns the full resource for a partial one.
func (m *restMapper) ResourceFor(input schema.GroupVersionResource) (schema.GroupVersionResource, error) {
	gvk, err := m.KindFor(input)
	if err != nil {
		return schema.GroupVersionResource{}, err
	}
	return m.mapping(gvk).Resource, nil
}

// ResourcesFor returns the one resource ResourceFor returns.
func (m *restMapper) ResourcesFor(input schema.GroupVersionResource) ([]schema.GroupVersionResource, error) {
	r, err := m.ResourceFor(input)
	if err != nil {
		return nil, err
	}
	return []schema.GroupVersionResource{r}, nil
}

// ResourceSingularizer returns the singular of a plural resource.
func (m *restMapper) ResourceSingularizer(resource string) (string, error) {
	for _, gvk := range m.conv.GVKs() {
		plural, singular := m.resource(gvk)
		if plural.Resource == resource {
			return singular.Resource, nil
		}
	}
	return "", fmt.Errorf("no resource %q", resource)
}
