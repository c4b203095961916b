// Package v1 contains the API of the PeriodicJob operator, group
// jobs.example.converge.dev, version v1, in the layout kubebuilder
// scaffolds.
// +kubebuilder:object:generate=true
// +groupName=jobs.example.converge.dev
package v1

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

var (
	// GroupVersion is the group and version of this API.
	GroupVersion = schema.GroupVersion{Group: "jobs.example.converge.dev", Version: "v1"}

	// SchemeBuilder registers this API's types with a scheme.
	//lint:ignore SA1019 as the kubebuilder scaffold writes it
	SchemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}

	// AddToScheme adds this API's types to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)
