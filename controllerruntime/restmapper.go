package controllerruntime

import (
	"fmt"

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

// restMapper maps the converter's kinds to resources, guessing plurals as
// meta.UnsafeGuessKindToResource does. A kind is namespaced unless it is a
// built-in cluster-scoped kind or listed in ManagerOptions.ClusterScoped.
type restMapper struct {
	conv          *convert.Converter
	clusterScoped map[string]bool
}

var _ meta.RESTMapper = (*restMapper)(nil)

func (m *restMapper) namespaced(kind string) bool {
	return !clusterScopedKinds[kind] && !m.clusterScoped[kind]
}

func (m *restMapper) mapping(gvk schema.GroupVersionKind) *meta.RESTMapping {
	plural, _ := meta.UnsafeGuessKindToResource(gvk)
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

// KindFor returns the kind whose guessed resource is resource.
func (m *restMapper) KindFor(resource schema.GroupVersionResource) (schema.GroupVersionKind, error) {
	kinds, err := m.KindsFor(resource)
	if err != nil {
		return schema.GroupVersionKind{}, err
	}
	return kinds[0], nil
}

// KindsFor returns the kinds whose guessed resource is resource.
func (m *restMapper) KindsFor(resource schema.GroupVersionResource) ([]schema.GroupVersionKind, error) {
	var out []schema.GroupVersionKind
	for _, gvk := range m.conv.GVKs() {
		plural, singular := meta.UnsafeGuessKindToResource(gvk)
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

// ResourceSingularizer returns the singular of a guessed plural resource.
func (m *restMapper) ResourceSingularizer(resource string) (string, error) {
	for _, gvk := range m.conv.GVKs() {
		plural, singular := meta.UnsafeGuessKindToResource(gvk)
		if plural.Resource == resource {
			return singular.Resource, nil
		}
	}
	return "", fmt.Errorf("no resource %q", resource)
}
