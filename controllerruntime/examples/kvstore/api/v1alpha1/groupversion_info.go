// Package v1alpha1 contains the API of the KVStore operator, group
// store.example.converge.dev, version v1alpha1, in the layout kubebuilder
// scaffolds.
// +kubebuilder:object:generate=true
// +groupName=store.example.converge.dev
package v1alpha1

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

var (
	// GroupVersion is the group and version of this API.
	GroupVersion = schema.GroupVersion{Group: "store.example.converge.dev", Version: "v1alpha1"}

	// SchemeBuilder registers this API's types with a scheme.
	//lint:ignore SA1019 as the kubebuilder scaffold writes it
	SchemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}

	// AddToScheme adds this API's types to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)
