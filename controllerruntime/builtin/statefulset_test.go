package builtin_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	crt "github.com/converge-sim/converge/controllerruntime"
	"github.com/converge-sim/converge/controllerruntime/builtin"
	"github.com/converge-sim/converge/controllers/statefulset"
	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// typedStatefulSet is an OrderedReady StatefulSet of replicas pods with
// one claim template, "data", whose claims are retained.
func typedStatefulSet(name string, replicas int32) *appsv1.StatefulSet {
	labels := map[string]string{"app": name}
	return &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec: appsv1.StatefulSetSpec{
			Replicas:            &replicas,
			Selector:            &metav1.LabelSelector{MatchLabels: labels},
			ServiceName:         name,
			PodManagementPolicy: appsv1.OrderedReadyPodManagement,
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels, Annotations: map[string]string{"example.com/owner": "ops"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "app:v1"}}},
			},
			VolumeClaimTemplates: []corev1.PersistentVolumeClaim{{
				ObjectMeta: metav1.ObjectMeta{Name: "data"},
				Spec: corev1.PersistentVolumeClaimSpec{
					AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
					Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
				},
			}},
			PersistentVolumeClaimRetentionPolicy: &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{
				WhenScaled: appsv1.RetainPersistentVolumeClaimRetentionPolicyType, WhenDeleted: appsv1.RetainPersistentVolumeClaimRetentionPolicyType,
			},
		},
	}
}

// statefulSetView is what a typed client reads of a StatefulSet, its pods
// and its claims.
type statefulSetView struct {
	set    appsv1.StatefulSet
	pods   map[string]corev1.Pod
	claims map[string]corev1.PersistentVolumeClaim
}

func readStatefulSet(ctx context.Context, c client.Client, name string) (statefulSetView, error) {
	v := statefulSetView{pods: map[string]corev1.Pod{}, claims: map[string]corev1.PersistentVolumeClaim{}}
	if err := c.Get(ctx, client.ObjectKey{Namespace: "default", Name: name}, &v.set); err != nil {
		return v, err
	}
	var pods corev1.PodList
	if err := c.List(ctx, &pods, client.InNamespace("default")); err != nil {
		return v, err
	}
	for _, p := range pods.Items {
		v.pods[p.Name] = p
	}
	var claims corev1.PersistentVolumeClaimList
	if err := c.List(ctx, &claims, client.InNamespace("default")); err != nil {
		return v, err
	}
	for _, pvc := range claims.Items {
		v.claims[pvc.Name] = pvc
	}
	return v, nil
}

// assertStatefulSet checks, as a typed client reads them, that set runs
// the pods of ordinals 0..replicas-1, made from its template, each
// mounting its claim, and that its status counts them ready.
func assertStatefulSet(t *testing.T, v statefulSetView, replicas int32) {
	t.Helper()
	set := v.set
	for i := range int(replicas) {
		name := fmt.Sprintf("%s-%d", set.Name, i)
		p, ok := v.pods[name]
		if !assert.True(t, ok, "pod %s", name) {
			continue
		}
		assert.True(t, metav1.IsControlledBy(&p, &set), "%s is controlled by the set", name)
		assert.Equal(t, "StatefulSet", p.OwnerReferences[0].Kind)
		assert.Equal(t, "apps/v1", p.OwnerReferences[0].APIVersion)
		assert.Equal(t, set.Name, p.Labels["app"])
		assert.Equal(t, name, p.Labels[statefulset.PodNameLabel])
		assert.Equal(t, map[string]string{"example.com/owner": "ops"}, p.Annotations, "the template's annotations")
		assert.Equal(t, name, p.Spec.Hostname)
		assert.Equal(t, set.Spec.ServiceName, p.Spec.Subdomain)
		require.Len(t, p.Spec.Containers, 1, "%s has the template's containers", name)
		// The template's container as the API server defaulted it, in the
		// set and again in the pod (imagePullPolicy, terminationMessage*).
		assert.Equal(t, set.Spec.Template.Spec.Containers[0], p.Spec.Containers[0])
		assert.Equal(t, corev1.Container{Name: "app", Image: "app:v1", ImagePullPolicy: corev1.PullIfNotPresent,
			TerminationMessagePath: corev1.TerminationMessagePathDefault, TerminationMessagePolicy: corev1.TerminationMessageReadFile}, p.Spec.Containers[0])
		require.Len(t, p.Spec.Volumes, 1, "%s mounts its claim", name)
		assert.Equal(t, "data", p.Spec.Volumes[0].Name)
		require.NotNil(t, p.Spec.Volumes[0].PersistentVolumeClaim)
		assert.Equal(t, "data-"+name, p.Spec.Volumes[0].PersistentVolumeClaim.ClaimName)
		assert.Equal(t, corev1.PodRunning, p.Status.Phase)
	}
	var live int
	for _, p := range v.pods {
		if metav1.IsControlledBy(&p, &set) && p.DeletionTimestamp == nil {
			live++
		}
	}
	assert.Equal(t, int(replicas), live, "no pod beyond the last ordinal")
	st := set.Status
	assert.Equal(t, replicas, st.Replicas)
	assert.Equal(t, replicas, st.ReadyReplicas)
	assert.Equal(t, replicas, st.AvailableReplicas)
	assert.Equal(t, replicas, st.CurrentReplicas)
	assert.Equal(t, replicas, st.UpdatedReplicas)
	assert.Equal(t, set.Generation, st.ObservedGeneration)
	assert.Positive(t, set.Generation)
	assert.NotEmpty(t, st.UpdateRevision)
	assert.Equal(t, st.UpdateRevision, st.CurrentRevision)
	for _, p := range v.pods {
		if metav1.IsControlledBy(&p, &set) {
			assert.Equal(t, st.UpdateRevision, p.Labels[statefulset.RevisionLabel])
		}
	}
}

// TestStatefulSetThroughTheAdapter: a typed client creates an OrderedReady
// apps/v1 StatefulSet of three pods with a claim template; the core
// module's StatefulSet controller, declared by builtin.StatefulSets, runs
// it beside the typed Kubelet. Read through the typed client, the pods
// web-0..2 run, owned by the set and mounting data-web-<i>; the claims
// exist; the status is right. Scaled down to one, the set keeps web-0
// and every claim (Retain).
func TestStatefulSetThroughTheAdapter(t *testing.T) {
	conv := converter(t)
	ctx := context.Background()
	const scaleAt = 200
	var (
		before, after statefulSetView
		readErr       error
		mgr           *crt.Manager
	)
	sc := properties.Scenario{
		Name: "typed-statefulset",
		// The run goes on past the scale-down: the horizon is the end of
		// the phase in which timers fire.
		Budget: faults.Budget{Horizon: 2 * scaleAt},
		Build: func(cfg model.Config) (*model.Cluster, error) {
			c := model.NewCluster(cfg)
			var err error
			if mgr, err = crt.NewManager(c, conv, crt.ManagerOptions{}); err != nil {
				return nil, err
			}
			if err := mgr.Setup(builtin.Kubelet(mgr, builtin.KubeletOptions{}), crt.SetupOptions{}); err != nil {
				return nil, err
			}
			if err := builtin.StatefulSets(mgr, statefulset.Options{}); err != nil {
				return nil, err
			}
			user := mgr.OutsideClient("user")
			c.At(scaleAt, "user", "scale web to 1", func() {
				if before, readErr = readStatefulSet(ctx, user, "web"); readErr != nil {
					return
				}
				set := before.set.DeepCopy()
				set.Spec.Replicas = new(int32(1))
				readErr = user.Update(ctx, set)
			})
			return c, user.Create(ctx, typedStatefulSet("web", 3))
		},
	}
	out, _, err := properties.Replay(sc, nil, nil, properties.RunOptions{})
	require.NoError(t, err)
	require.Nil(t, out.Failure)
	require.NoError(t, readErr)
	require.GreaterOrEqual(t, int(out.Cluster.Now()), scaleAt, "the run reached the scale-down")

	assertStatefulSet(t, before, 3)
	assert.Equal(t, int64(1), before.set.Generation)
	for i := range 3 {
		name := fmt.Sprintf("data-web-%d", i)
		pvc, ok := before.claims[name]
		if assert.True(t, ok, "claim %s", name) {
			assert.Equal(t, "web", pvc.Labels["app"])
			assert.Equal(t, resource.MustParse("1Gi"), pvc.Spec.Resources.Requests[corev1.ResourceStorage])
			assert.Equal(t, []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}, pvc.Spec.AccessModes)
			assert.Empty(t, pvc.OwnerReferences, "Retain: nothing owns the claim")
		}
	}

	after, err = readStatefulSet(ctx, mgr.OutsideClient("check"), "web")
	require.NoError(t, err)
	assertStatefulSet(t, after, 1)
	assert.Equal(t, int64(2), after.set.Generation)
	assert.Len(t, after.pods, 1)
	for i := range 3 {
		assert.Contains(t, after.claims, fmt.Sprintf("data-web-%d", i), "Retain keeps the claims of scaled-away pods")
	}
}

// TestTypedStatefulSetConvergesUnderFaults: the typed StatefulSet of three
// pods reaches the StatefulSet controller's goal (every pod of the set
// ready, its status right) under dropped notifications, restarts of the
// controller and the kubelet, and outside deletions of its pods.
func TestTypedStatefulSetConvergesUnderFaults(t *testing.T) {
	conv := converter(t)
	sc := properties.Scenario{
		Name: "typed-statefulset-faults",
		Build: func(cfg model.Config) (*model.Cluster, error) {
			c := model.NewCluster(cfg)
			mgr, err := crt.NewManager(c, conv, crt.ManagerOptions{SyncPeriod: 30 * time.Second})
			if err != nil {
				return nil, err
			}
			if err := mgr.Setup(builtin.Kubelet(mgr, builtin.KubeletOptions{}), crt.SetupOptions{}); err != nil {
				return nil, err
			}
			if err := builtin.StatefulSets(mgr, statefulset.Options{Resync: 30}); err != nil {
				return nil, err
			}
			return c, mgr.Apply(typedStatefulSet("web", 3))
		},
		Edits: []faults.EditTarget{{Resource: "Pod"}},
	}
	res, err := properties.Search(sc, faults.Mix{faults.KindDrop, faults.KindRestart, faults.KindEdit}, properties.SearchOptions{Test: t, Checks: 40, Seed: 1})
	require.NoError(t, err)
	if cx := res.Counterexample; cx != nil {
		t.Fatalf("must converge:\n%s\n%v", cx.Report(), cx.Trace)
	}
	assert.Equal(t, 40, res.Runs)
}

// TestTypedStatefulSetUpdatesAreValidated: with builtin.StatefulSets, the
// API server accepts a typed update of a StatefulSet's replicas and refuses
// one of its volumeClaimTemplates as Invalid, as Kubernetes does; an
// operator that wants bigger volumes must patch the claims.
func TestTypedStatefulSetUpdatesAreValidated(t *testing.T) {
	ctx := context.Background()
	c := model.NewCluster(model.Config{})
	mgr, err := crt.NewManager(c, converter(t), crt.ManagerOptions{})
	require.NoError(t, err)
	require.NoError(t, builtin.StatefulSets(mgr, statefulset.Options{}))
	user := mgr.OutsideClient("user")
	require.NoError(t, user.Create(ctx, typedStatefulSet("web", 2)))

	var set appsv1.StatefulSet
	require.NoError(t, user.Get(ctx, client.ObjectKey{Namespace: "default", Name: "web"}, &set))
	set.Spec.Replicas = new(int32(3))
	require.NoError(t, user.Update(ctx, &set), "replicas may change")

	require.NoError(t, user.Get(ctx, client.ObjectKey{Namespace: "default", Name: "web"}, &set))
	set.Spec.VolumeClaimTemplates[0].Spec.Resources.Requests[corev1.ResourceStorage] = resource.MustParse("2Gi")
	err = user.Update(ctx, &set)
	require.Error(t, err)
	assert.True(t, apierrors.IsInvalid(err), "%v", err)
	assert.Contains(t, err.Error(), "updates to statefulset spec for fields other than")
}
