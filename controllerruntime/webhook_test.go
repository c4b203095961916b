package controllerruntime_test

import (
	"context"
	"errors"
	"testing"

	crt "github.com/converge-sim/converge/controllerruntime"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// sizeDefaulter is a scaffolded defaulting webhook: a ConfigMap without
// a size gets size 1.
type sizeDefaulter struct{}

func (sizeDefaulter) Default(_ context.Context, cm *corev1.ConfigMap) error {
	if cm.Data["size"] == "" {
		if cm.Data == nil {
			cm.Data = map[string]string{}
		}
		cm.Data["size"] = "1"
	}
	return nil
}

// sizeValidator is a scaffolded validating webhook: size 0 is Invalid
// (a field error list, as an APIStatus), a ConfigMap labelled
// protected cannot be deleted (a plain error: Forbidden).
type sizeValidator struct{}

func (sizeValidator) check(cm *corev1.ConfigMap) error {
	if cm.Data["size"] == "0" {
		return apierrors.NewInvalid(corev1.SchemeGroupVersion.WithKind("ConfigMap").GroupKind(), cm.Name,
			field.ErrorList{field.Invalid(field.NewPath("data", "size"), "0", "must be positive")})
	}
	return nil
}

func (v sizeValidator) ValidateCreate(_ context.Context, cm *corev1.ConfigMap) (admission.Warnings, error) {
	return nil, v.check(cm)
}

func (v sizeValidator) ValidateUpdate(_ context.Context, _, cm *corev1.ConfigMap) (admission.Warnings, error) {
	return nil, v.check(cm)
}

func (sizeValidator) ValidateDelete(_ context.Context, cm *corev1.ConfigMap) (admission.Warnings, error) {
	if cm.Labels["protected"] == "true" {
		return nil, errors.New("protected ConfigMaps cannot be deleted")
	}
	return nil, nil
}

// sizeCopier keeps, for the ConfigMap "a", a ConfigMap "a-copy" with its
// size, and remembers the size it read.
type sizeCopier struct {
	client.Client
	seen *[]string
}

func (r *sizeCopier) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	if req.Name != "a" {
		return ctrl.Result{}, nil
	}
	var cm corev1.ConfigMap
	if err := r.Get(ctx, req.NamespacedName, &cm); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	*r.seen = append(*r.seen, cm.Data["size"])
	cp := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: cm.Namespace, Name: "a-copy"}}
	_, err := ctrl.CreateOrUpdate(ctx, r.Client, cp, func() error {
		cp.Data = map[string]string{"size": cm.Data["size"]}
		return nil
	})
	return ctrl.Result{}, err
}

// webhookWorld runs the sizeCopier with the ConfigMap webhooks, registered as
// a scaffold's SetupWebhookWithManager does, over objs; it returns the
// manager after the run, and the sizes the sizeCopier read.
func webhookWorld(t *testing.T, objs ...client.Object) (*crt.Manager, []string) {
	t.Helper()
	var mgr *crt.Manager
	var seen []string
	sc := properties.Scenario{Name: "webhooks", Build: func(cfg model.Config) (*model.Cluster, error) {
		c := model.NewCluster(cfg)
		m, err := crt.NewManager(c, clientgoConverter(t), crt.ManagerOptions{})
		if err != nil {
			return nil, err
		}
		mgr = m
		err = m.Setup(func(m manager.Manager) error {
			if err := ctrl.NewWebhookManagedBy(m, &corev1.ConfigMap{}).WithDefaulter(sizeDefaulter{}).WithValidator(sizeValidator{}).Complete(); err != nil {
				return err
			}
			return ctrl.NewControllerManagedBy(m).For(&corev1.ConfigMap{}).Complete(&sizeCopier{Client: m.GetClient(), seen: &seen})
		}, crt.SetupOptions{})
		if err != nil {
			return nil, err
		}
		return c, m.Apply(objs...)
	}}
	_, err := properties.Execute(sc, nil, &properties.ReplayChooser{}, properties.RunOptions{})
	require.NoError(t, err)
	return mgr, seen
}

// TestRegisteredWebhooksAdmitCreatesAndUpdates: the webhooks a setup
// registers through ctrl.NewWebhookManagedBy run on the model's API
// server: the defaulter's patch is stored and the reconciler reads it;
// the validator's rejection is the API server's Invalid error, with the
// webhook's message and causes; an update the defaulter fills is checked
// after it.
func TestRegisteredWebhooksAdmitCreatesAndUpdates(t *testing.T) {
	mgr, seen := webhookWorld(t, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "a"}})
	require.NotEmpty(t, seen, "the sizeCopier must reconcile")
	assert.Equal(t, "1", seen[0], "the reconciler reads the object the mutating webhook defaulted")

	user := mgr.OutsideClient("user")
	var cp corev1.ConfigMap
	require.NoError(t, user.Get(ctx, client.ObjectKey{Namespace: "default", Name: "a-copy"}, &cp))
	assert.Equal(t, map[string]string{"size": "1"}, cp.Data, "the controller's own create passes the webhooks too")

	var a corev1.ConfigMap
	require.NoError(t, user.Get(ctx, client.ObjectKey{Namespace: "default", Name: "a"}, &a))
	a.Data["size"] = "0"
	err := user.Update(ctx, &a)
	require.True(t, apierrors.IsInvalid(err), "got %v", err)
	assert.Contains(t, err.Error(), `admission webhook "validate--v1-configmap" denied the request`)
	assert.Contains(t, err.Error(), "must be positive")
	var st apierrors.APIStatus
	require.True(t, errors.As(err, &st))
	require.NotNil(t, st.Status().Details)
	require.Len(t, st.Status().Details.Causes, 1)
	assert.Equal(t, "data.size", st.Status().Details.Causes[0].Field)

	bad := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "b"}, Data: map[string]string{"size": "0"}}
	require.True(t, apierrors.IsInvalid(user.Create(ctx, bad)), "a create the validator refuses is refused")
	require.True(t, apierrors.IsNotFound(user.Get(ctx, client.ObjectKeyFromObject(bad), &corev1.ConfigMap{})))

	require.NoError(t, user.Get(ctx, client.ObjectKey{Namespace: "default", Name: "a"}, &a))
	delete(a.Data, "size")
	require.NoError(t, user.Update(ctx, &a))
	assert.Equal(t, "1", a.Data["size"], "an update is defaulted too, and the caller gets the stored object")

	rej := mgr.Cluster().Server().Rejections(0)
	require.NotEmpty(t, rej)
	assert.Equal(t, "user", rej[0].Caller)
}

// TestRegisteredWebhooksAdmitDeletes: a validating webhook gets DELETE
// requests with the stored object as oldObject; its denial of a user's
// delete is Forbidden with its message, and its denial of the garbage
// collector's delete of an orphan is recorded as a rejection.
func TestRegisteredWebhooksAdmitDeletes(t *testing.T) {
	owner := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "owner"}}
	mgr, _ := webhookWorld(t, owner, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "free"}})
	user := mgr.OutsideClient("user")
	require.NoError(t, user.Get(ctx, client.ObjectKeyFromObject(owner), owner))

	kept := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "kept", Labels: map[string]string{"protected": "true"},
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: owner.Name, UID: owner.UID}}}}
	require.NoError(t, user.Create(ctx, kept))
	err := user.Delete(ctx, kept)
	require.True(t, apierrors.IsForbidden(err), "got %v", err)
	assert.Contains(t, err.Error(), `admission webhook "validate--v1-configmap" denied the request: protected ConfigMaps cannot be deleted`)
	require.NoError(t, user.Get(ctx, client.ObjectKeyFromObject(kept), &corev1.ConfigMap{}), "a denied delete removes nothing")

	require.NoError(t, user.Delete(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "free"}}), "other deletes pass")

	s := mgr.Cluster().Server()
	mark := s.RejectionMark()
	require.NoError(t, user.Delete(ctx, owner))
	require.True(t, s.GCPending())
	for s.GCPending() {
		require.NotPanics(t, func() { s.CollectGarbage() })
	}
	require.NoError(t, user.Get(ctx, client.ObjectKeyFromObject(kept), &corev1.ConfigMap{}), "the collector's denied delete leaves the orphan")
	rej := s.Rejections(mark)
	require.Len(t, rej, 1)
	assert.Equal(t, model.GarbageCollector, rej[0].Caller)
	assert.Equal(t, model.VerbDelete, rej[0].Verb)
	assert.True(t, model.IsForbidden(rej[0].Err))
}

// TestRegisteredWebhookPathsMustBeKnown: a webhook registered at a path
// the builder does not generate needs a declaration of what it handles;
// declared, it runs.
func TestRegisteredWebhookPathsMustBeKnown(t *testing.T) {
	register := func(m manager.Manager) error {
		m.GetWebhookServer().Register("/check", admission.WithValidator(m.GetScheme(), admission.Validator[*corev1.ConfigMap](sizeValidator{})))
		return ctrl.NewControllerManagedBy(m).For(&corev1.ConfigMap{}).Complete(&sizeCopier{Client: m.GetClient(), seen: new([]string)})
	}
	mgr, err := crt.NewManager(model.NewCluster(model.Config{}), clientgoConverter(t), crt.ManagerOptions{})
	require.NoError(t, err)
	err = mgr.Setup(register, crt.SetupOptions{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "GetWebhookServer().Register(/check)")
	assert.Contains(t, err.Error(), "SetupOptions.Webhooks")

	mgr, err = crt.NewManager(model.NewCluster(model.Config{}), clientgoConverter(t), crt.ManagerOptions{})
	require.NoError(t, err)
	require.NoError(t, mgr.Setup(register, crt.SetupOptions{Webhooks: map[string]crt.Webhook{"/check": {For: []client.Object{&corev1.ConfigMap{}}}}}))
	err = mgr.OutsideClient("user").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "b"}, Data: map[string]string{"size": "0"}})
	assert.True(t, apierrors.IsInvalid(err), "got %v", err)
}
