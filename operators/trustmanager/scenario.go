// Package trustmanager runs trust-manager's Bundle migration controller
// (github.com/cert-manager/trust-manager, pkg/bundle/controller), as its
// integration tests set it up, in the model cluster, over the CRDs its
// module ships (deploy/crds). The controller keeps, for every Bundle
// (trust.cert-manager.io/v1alpha1), a ClusterBundle (trust-manager.io/v1alpha2)
// of the same name with the converted spec, written by server-side apply,
// and marks the Bundle Deprecated; a ClusterBundle a user annotated as
// migrated is released to its user. The world and the goal are ours: two
// Bundles, a user who edits one's sources, and the goal that every Bundle
// has its ClusterBundle, controlled by it, with its spec converted, and a
// Deprecated condition at its generation.
package trustmanager

import (
	"context"
	"fmt"
	"path/filepath"

	trustapi "github.com/cert-manager/trust-manager/pkg/apis/trust/v1alpha1"
	trustmanagerapi "github.com/cert-manager/trust-manager/pkg/apis/trustmanager/v1alpha2"
	"github.com/cert-manager/trust-manager/pkg/bundle/controller"
	"github.com/cert-manager/trust-manager/pkg/webhook"
	crt "github.com/converge-sim/converge/controllerruntime"
	"github.com/converge-sim/converge/controllerruntime/convert"
	"github.com/converge-sim/converge/controllerruntime/crd"
	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/operators/goal"
	"github.com/converge-sim/converge/operators/moddir"
	"github.com/converge-sim/converge/properties"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Module is the operator's module, as go.mod requires it.
const Module = "github.com/cert-manager/trust-manager"

// World is what every run shares, built once: the converter of the
// operator's scheme and its CRDs.
type World struct {
	Conv *convert.Converter
	CRDs *crd.Set
}

// NewWorld builds the converter of the operator's scheme (client-go's,
// trust.cert-manager.io/v1alpha1 and trust-manager.io/v1alpha2) and loads
// the CRDs from the module's deploy/crds.
func NewWorld() (World, error) {
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, trustapi.AddToScheme, trustmanagerapi.AddToScheme} {
		if err := add(scheme); err != nil {
			return World{}, err
		}
	}
	conv, err := convert.New(scheme, convert.Options{})
	if err != nil {
		return World{}, err
	}
	dir, err := moddir.Dir(Module)
	if err != nil {
		return World{}, err
	}
	crds, err := crd.Load(filepath.Join(dir, "deploy", "crds"))
	if err != nil {
		return World{}, err
	}
	return World{Conv: conv, CRDs: crds}, nil
}

// Scenario runs the Bundle controller over the Bundles "roots" and
// "internal", with a user who edits the inline source of "roots"; outside
// edits may delete a Bundle or a ClusterBundle.
func Scenario(name string, w World) properties.Scenario {
	return properties.Scenario{
		Name: name,
		Doc:  "trust-manager's Bundle migration controller: each Bundle applied as a ClusterBundle, by server-side apply",
		Build: func(cfg model.Config) (*model.Cluster, error) {
			c := model.NewCluster(cfg)
			mgr, err := crt.NewManager(c, w.Conv, crt.ManagerOptions{
				CRDs:          w.CRDs,
				ClusterScoped: []client.Object{&trustapi.Bundle{}, &trustmanagerapi.ClusterBundle{}},
			})
			if err != nil {
				return nil, err
			}
			err = mgr.Setup(Setup, crt.SetupOptions{Goals: map[string]crt.GoalFunc{"bundle": Migrated}})
			if err != nil {
				return nil, err
			}
			if err := c.AddActor(mgr.Actor("user", edit), 1); err != nil {
				return nil, err
			}
			return c, mgr.Apply(New("roots", "roots-ca"), New("internal", "internal-ca"))
		},
		Edits: []faults.EditTarget{
			{Resource: "Bundle"},
			{Resource: "ClusterBundle"},
		},
	}
}

// Setup sets up the manager as trust-manager's main does for Bundles:
// the Bundle migration controller, and the validating webhook of Bundles
// (pkg/webhook, registered by its SetupWebhookWithManager as main
// registers it), which the model's API server calls on every create,
// update and delete of a Bundle (docs/design.md, "An operator's
// webhooks"): a Bundle the webhook refuses never reaches the controller,
// as in a cluster.
func Setup(m ctrl.Manager) error {
	if err := (&controller.BundleReconciler{Client: m.GetClient()}).SetupWithManager(m); err != nil {
		return err
	}
	return webhook.SetupWebhookWithManager(m)
}

// New returns a Bundle of one inline source, placed into ConfigMaps under
// the key "ca.crt".
func New(name, inline string) *trustapi.Bundle {
	return &trustapi.Bundle{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: trustapi.BundleSpec{
			Sources: []trustapi.BundleSource{{InLine: inline}},
			Target:  trustapi.BundleTarget{ConfigMap: &trustapi.TargetTemplate{Key: "ca.crt"}},
		},
	}
}

// edit is a user's move: the inline source of "roots" becomes one of two.
func edit(ctx context.Context, c client.Client, choose func(int, string) int) error {
	var b trustapi.Bundle
	if err := c.Get(ctx, client.ObjectKey{Name: "roots"}, &b); err != nil {
		return client.IgnoreNotFound(err)
	}
	if len(b.Spec.Sources) == 0 {
		return nil
	}
	base := b.DeepCopy()
	b.Spec.Sources[0].InLine = []string{"roots-ca", "roots-ca-rotated"}[choose(2, "user picks the roots source")]
	return c.Patch(ctx, &b, client.MergeFrom(base))
}

// Migrated is the goal: every Bundle has a ClusterBundle of its name,
// controlled by it, whose spec is the Bundle's converted (the API's own
// Bundle.ConvertTo), and a Deprecated condition at its generation.
func Migrated(ctx context.Context, r client.Reader) []model.Unmet {
	return goal.Each(ctx, r, &trustapi.BundleList{}, func(b *trustapi.Bundle) string { return unmet(ctx, r, b) })
}

func unmet(ctx context.Context, r client.Reader, b *trustapi.Bundle) string {
	var cb trustmanagerapi.ClusterBundle
	if err := r.Get(ctx, client.ObjectKey{Name: b.Name}, &cb); err != nil {
		return fmt.Sprintf("has no ClusterBundle: %v", err)
	}
	if !metav1.IsControlledBy(&cb, b) {
		return "does not control its ClusterBundle"
	}
	var want trustmanagerapi.ClusterBundle
	if err := b.ConvertTo(&want); err != nil {
		return fmt.Sprintf("does not convert: %v", err)
	}
	if !equality.Semantic.DeepEqual(want.Spec, cb.Spec) {
		return fmt.Sprintf("ClusterBundle spec %+v, its converted spec %+v", cb.Spec, want.Spec)
	}
	c := meta.FindStatusCondition(b.Status.Conditions, trustapi.BundleConditionDeprecated)
	switch {
	case c == nil || c.Status != metav1.ConditionTrue:
		return fmt.Sprintf("is not marked Deprecated: %v", c)
	case c.ObservedGeneration != b.Generation:
		return fmt.Sprintf("Deprecated condition at generation %d of %d", c.ObservedGeneration, b.Generation)
	}
	return ""
}
