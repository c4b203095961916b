package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// GatewaySpec is the desired state of a Gateway.
type GatewaySpec struct {
	// Replicas is the number of proxy pods.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=3
	Replicas int32 `json:"replicas"`

	// TLS, when set, makes the proxy terminate TLS.
	// +optional
	TLS *TLSSpec `json:"tls,omitempty"`
}

// TLSSpec configures TLS termination.
type TLSSpec struct {
	// Port is the port the proxy serves TLS on.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	Port int32 `json:"port"`

	// SecretName names the Secret of the certificate; unset, it is
	// <gateway>-tls.
	// +optional
	// +kubebuilder:validation:Pattern=`^[a-z]([-a-z0-9]*[a-z0-9])?$`
	// +kubebuilder:validation:MaxLength=20
	SecretName *string `json:"secretName,omitempty"`
}

// GatewayStatus is the observed state of a Gateway.
type GatewayStatus struct {
	// ReadyReplicas counts the ready proxy pods.
	// +optional
	ReadyReplicas int32 `json:"readyReplicas,omitempty"`
}

// Gateway runs a Deployment of proxy pods configured by a ConfigMap.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
type Gateway struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   GatewaySpec   `json:"spec,omitempty"`
	Status GatewayStatus `json:"status,omitempty"`
}

// GatewayList is a list of Gateways.
// +kubebuilder:object:root=true
type GatewayList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Gateway `json:"items"`
}

func init() {
	SchemeBuilder.Register(&Gateway{}, &GatewayList{})
}
