package controllerruntime

import (
	"sync"

	"github.com/converge-sim/converge/controllerruntime/admit"
	"github.com/converge-sim/converge/controllerruntime/convert"
	"github.com/converge-sim/converge/controllerruntime/crd"
	"github.com/converge-sim/converge/model"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// withGeneration lists the built-in kinds whose API server strategy keeps
// metadata.generation: 1 on create, one more with every change of the
// spec. Every other built-in kind (ConfigMap, Secret, Service,
// ServiceAccount, Namespace, Node, RBAC, Lease, Event…) has none: its
// generation stays 0, whatever a write changes. Custom resources always
// have one. README.md, "Generation", states the rule.
var withGeneration = map[string]bool{
	"Pod": true, "ReplicationController": true,
	"Deployment": true, "ReplicaSet": true, "StatefulSet": true, "DaemonSet": true,
	"Job": true, "CronJob": true,
	"HorizontalPodAutoscaler": true, "PodDisruptionBudget": true,
	"Ingress": true, "NetworkPolicy": true,
	"CustomResourceDefinition": true, "APIService": true,
	"ValidatingWebhookConfiguration": true, "MutatingWebhookConfiguration": true,
	"ValidatingAdmissionPolicy": true, "MutatingAdmissionPolicy": true,
	"FlowSchema": true, "PriorityLevelConfiguration": true,
}

// HasGeneration reports whether objects of a model kind have a
// metadata.generation in Kubernetes: custom resources and the built-in
// workloads do, ConfigMaps and Secrets do not.
func HasGeneration(conv *convert.Converter, kind string) bool {
	gvk, err := conv.GVK(kind)
	if err != nil || !clientgoscheme.Scheme.Recognizes(gvk) {
		return true
	}
	return withGeneration[kind]
}

// withoutGenerations holds, by converter, the kinds withoutGeneration
// lists: a converter is immutable, and every cluster built with it asks.
// Its entries live as long as the process: a process makes a converter
// per world it tests (a few dozen in this repository's test binaries),
// not per cluster.
var withoutGenerations sync.Map

// withoutGeneration returns the kinds of conv that have no generation
// (HasGeneration), sorted; the caller must not modify them.
func withoutGeneration(conv *convert.Converter) []string {
	if kinds, ok := withoutGenerations.Load(conv); ok {
		return kinds.([]string)
	}
	var kinds []string
	for _, gvk := range conv.GVKs() {
		if !HasGeneration(conv, gvk.Kind) {
			kinds = append(kinds, gvk.Kind)
		}
	}
	got, _ := withoutGenerations.LoadOrStore(conv, kinds)
	return got.([]string)
}

// apiServer is what a manager's clients share about the API server
// beyond the model: which kinds it serves and how, and the managed fields
// of server-side apply.
type apiServer struct {
	// noStatus holds the custom resource kinds whose CRD has no status
	// subresource.
	noStatus map[string]bool
	// served, when set, says whether the API server serves a kind (see
	// env.kind).
	served func(kind string) error
	// owners records managed fields for server-side apply (ssa.go); now
	// is the cluster's clock.
	owners *fieldOwnership
	now    func() model.Time
	// reject records a write the client refused on the server's behalf
	// (an apply conflict) as a rejection of the caller's write.
	reject func(caller string, verb model.Verb, ref model.Ref, err error)
}

// installAPIServer makes the model's API server behave as Kubernetes' for
// the converter's kinds: generation only where Kubernetes keeps one, the
// built-in kinds' defaulting and validation (package admit), and with
// crds, the custom resources' defaulting and validation; and the
// operator's webhooks wh, as a real API server orders them: mutating
// webhooks after the built-in defaulting, validating ones last
// (docs/design.md, "An operator's webhooks").
func installAPIServer(c *model.Cluster, e *env, crds *crd.Set, opts crd.Options, wh *webhooks) {
	e.now = c.Now
	e.ownership() // created now, so that every client's copy of the env shares it
	s := c.Server()
	// Last in the chain, whichever way this returns.
	defer s.AddAdmission(wh.validate)
	e.reject = s.RecordRejection
	for _, kind := range withoutGeneration(e.conv) {
		s.SetGenerationRule(kind, model.GenerationNone)
	}
	// The converter is read at each write, not now: Setup may pin an
	// ambiguous kind's group after this (pin.go), and an owner reference
	// to that kind takes its apiVersion from the pinned converter.
	s.AddAdmission(func(caller string, verb model.Verb, old, obj *model.Object) error {
		if !memoDefaults {
			return admit.DefaultsFresh(e.conv)(caller, verb, old, obj)
		}
		return admit.Defaults(e.conv)(caller, verb, old, obj)
	})
	s.AddAdmission(wh.mutate)
	s.AddAdmission(func(caller string, verb model.Verb, old, obj *model.Object) error {
		if !memoDefaults {
			return admit.BuiltinFresh(e.conv, e.mapper.namespaced)(caller, verb, old, obj)
		}
		return admit.Builtin(e.conv, e.mapper.namespaced)(caller, verb, old, obj)
	})
	if crds == nil {
		return
	}
	e.noStatus = map[string]bool{}
	e.mapper.plurals = map[string]string{}
	for _, v := range crds.Versions() {
		e.mapper.plurals[v.GVK.Kind] = v.Plural
		if !v.Namespaced {
			e.mapper.clusterScoped[v.GVK.Kind] = true
		}
		if !v.Status {
			e.noStatus[v.GVK.Kind] = true
			s.SetGenerationRule(v.GVK.Kind, model.GenerationAnyChange)
		}
	}
	// The admission follows the converter a manager's pins replace
	// (pin.go).
	admit, admitConv := crds.Admission(e.conv, opts), e.conv
	s.AddAdmission(func(caller string, verb model.Verb, old, obj *model.Object) error {
		if admitConv != e.conv {
			admit, admitConv = crds.Admission(e.conv, opts), e.conv
		}
		return admit(caller, verb, old, obj)
	})
	if opts.AllowUndefined {
		return
	}
	e.served = func(kind string) error {
		gvk, err := e.conv.GVK(kind)
		if err != nil || clientgoscheme.Scheme.Recognizes(gvk) || crds.Has(gvk.GroupKind()) {
			return err
		}
		return &meta.NoKindMatchError{GroupKind: gvk.GroupKind(), SearchedVersions: []string{gvk.Version}}
	}
}

// kind returns the model kind of a typed object or list, as conv.Kind, and
// with CRDs loaded, the error a real client's REST mapper returns for a
// kind the server does not serve: neither built in nor defined by a CRD.
func (e *env) kind(obj runtime.Object) (string, error) {
	kind, err := e.conv.Kind(obj)
	if err != nil || e.served == nil {
		return kind, err
	}
	return kind, e.served(kind)
}

// newObject returns an empty object of kind, unstructured when like (the
// caller's object or list) is unstructured, typed otherwise.
func (e *env) newObject(kind string, like runtime.Object) (client.Object, error) {
	if _, ok := like.(runtime.Unstructured); ok {
		gvk, err := e.conv.GVK(kind)
		if err != nil {
			return nil, err
		}
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(gvk)
		return u, nil
	}
	return e.conv.New(kind)
}
