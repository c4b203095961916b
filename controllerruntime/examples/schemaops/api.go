package schemaops

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
)

// GroupVersion is the API group of this package's custom resources; their
// CRDs are in config/crd/bases, as controller-gen writes them.
var GroupVersion = schema.GroupVersion{Group: "ops.example.com", Version: "v1"}

// BatchSpec asks for Parallelism worker pods running Image.
type BatchSpec struct {
	Parallelism int32  `json:"parallelism,omitempty"`
	Image       string `json:"image,omitempty"`
}

// BatchStatus lists the batch's active pods, as a CronJob's status lists
// its active jobs. The CRD caps Active at 10 items.
type BatchStatus struct {
	Active             []string `json:"active,omitempty"`
	ActiveCount        int32    `json:"activeCount,omitempty"`
	ObservedGeneration int64    `json:"observedGeneration,omitempty"`
}

// Batch runs a set of worker pods.
type Batch struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              BatchSpec   `json:"spec,omitempty"`
	Status            BatchStatus `json:"status,omitempty"`
}

// BatchList is a list of Batches.
type BatchList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Batch `json:"items"`
}

// AppSpec is an application's deployment: its image, replicas and the
// storage class of its volume, which the CRD makes immutable (a CEL
// transition rule, self == oldSelf), as a PersistentVolumeClaim's.
type AppSpec struct {
	Image        string `json:"image"`
	Replicas     int32  `json:"replicas,omitempty"`
	StorageClass string `json:"storageClass,omitempty"`
}

// AppStatus reports whether the application is healthy.
type AppStatus struct {
	Ready              bool  `json:"ready,omitempty"`
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}

// App is an application a GitOps sync keeps as git declares it.
type App struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              AppSpec   `json:"spec,omitempty"`
	Status            AppStatus `json:"status,omitempty"`
}

// AppList is a list of Apps.
type AppList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []App `json:"items"`
}

// DeepCopyInto copies b into out.
func (b *Batch) DeepCopyInto(out *Batch) {
	*out = *b
	b.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Status.Active = append([]string(nil), b.Status.Active...)
}

// DeepCopy returns a copy of b.
func (b *Batch) DeepCopy() *Batch {
	out := new(Batch)
	b.DeepCopyInto(out)
	return out
}

// DeepCopyObject implements runtime.Object.
func (b *Batch) DeepCopyObject() runtime.Object { return b.DeepCopy() }

// DeepCopyObject implements runtime.Object.
func (l *BatchList) DeepCopyObject() runtime.Object {
	out := &BatchList{TypeMeta: l.TypeMeta}
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	for i := range l.Items {
		out.Items = append(out.Items, *l.Items[i].DeepCopy())
	}
	return out
}

// DeepCopy returns a copy of a.
func (a *App) DeepCopy() *App {
	out := *a
	a.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return &out
}

// DeepCopyObject implements runtime.Object.
func (a *App) DeepCopyObject() runtime.Object { return a.DeepCopy() }

// DeepCopyObject implements runtime.Object.
func (l *AppList) DeepCopyObject() runtime.Object {
	out := &AppList{TypeMeta: l.TypeMeta}
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	for i := range l.Items {
		out.Items = append(out.Items, *l.Items[i].DeepCopy())
	}
	return out
}

// NewScheme returns the client-go scheme with this package's kinds.
func NewScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(s)
	s.AddKnownTypes(GroupVersion, &Batch{}, &BatchList{}, &App{}, &AppList{})
	metav1.AddToGroupVersion(s, GroupVersion)
	return s
}
