package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// KVStoreSpec is the desired state of a KVStore.
type KVStoreSpec struct {
	// Replicas is the number of store pods.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=3
	Replicas int32 `json:"replicas"`

	// Image is the store's container image.
	// +kubebuilder:validation:Enum="kv:1.0";"kv:1.1"
	Image string `json:"image"`

	// LogLevel is written to the store's configuration; unset, the store
	// logs at its built-in level.
	// +optional
	// +kubebuilder:validation:Enum=debug;info
	LogLevel string `json:"logLevel,omitempty"`
}

// KVStoreStatus is the observed state of a KVStore.
type KVStoreStatus struct {
	// ReadyReplicas counts the ready store pods.
	// +optional
	ReadyReplicas int32 `json:"readyReplicas,omitempty"`

	// Applied is the spec the operator last rolled out.
	// +optional
	Applied *KVStoreSpec `json:"applied,omitempty"`
}

// KVStore runs a StatefulSet of spec.replicas store pods configured by a
// ConfigMap.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
type KVStore struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   KVStoreSpec   `json:"spec,omitempty"`
	Status KVStoreStatus `json:"status,omitempty"`
}

// KVStoreList is a list of KVStores.
// +kubebuilder:object:root=true
type KVStoreList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []KVStore `json:"items"`
}

func init() {
	SchemeBuilder.Register(&KVStore{}, &KVStoreList{})
}
