package statefulset_test

import (
	"testing"

	"github.com/converge-sim/converge/controllers/node"
	"github.com/converge-sim/converge/controllers/replicaset"
	"github.com/converge-sim/converge/controllers/statefulset"
	"github.com/converge-sim/converge/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// world is a cluster running the StatefulSet controller and, with kubelet,
// a scheduler and the kubelet of one node that runs every pod; without
// it, pods are made ready by hand.
type world struct {
	t       *testing.T
	c       *model.Cluster
	creates []string // pods created, in order
	deletes []string // pods deleted, in order
}

func newWorld(t *testing.T, kubelet bool, objs ...*model.Object) *world {
	t.Helper()
	return newWorldWith(t, statefulset.Options{}, kubelet, objs...)
}

func newWorldWith(t *testing.T, opts statefulset.Options, kubelet bool, objs ...*model.Object) *world {
	t.Helper()
	c := model.NewCluster(model.Config{})
	w := &world{t: t, c: c}
	require.NoError(t, c.AddController(statefulset.Controller(opts)))
	if kubelet {
		require.NoError(t, c.AddController(node.Scheduler()))
		require.NoError(t, c.AddController(node.Kubelet("node-1")))
		objs = append(objs, node.New("node-1"))
	}
	c.OnWrite(func(wr model.Write) {
		if wr.Ref().Kind != replicaset.PodKind {
			return
		}
		switch {
		case wr.Old == nil:
			w.creates = append(w.creates, wr.New.Name)
		case wr.New == nil || (wr.New.Deleting() && !wr.Old.Deleting()):
			w.deletes = append(w.deletes, wr.Old.Name)
		}
	})
	require.NoError(t, c.Apply(objs...))
	require.NoError(t, c.Start())
	w.settle()
	return w
}

// settle runs every owed action, never firing a timer (no resync, no
// backoff), until nothing is owed.
func (w *world) settle() {
	w.t.Helper()
	var buf []model.Action
	for range 10000 {
		if !w.c.Busy() {
			return
		}
		buf = w.c.Enabled(buf[:0])
		for _, a := range buf {
			if a.Kind != model.ActTimer {
				w.c.Do(a)
				break
			}
		}
	}
	w.t.Fatal("the cluster did not settle in 10000 steps")
}

// runUntil runs the cluster, timers included, until virtual time until.
func (w *world) runUntil(until model.Time) {
	w.t.Helper()
	var buf []model.Action
	for range 100000 {
		buf = w.c.Enabled(buf[:0])
		var next *model.Action
		for i, a := range buf {
			if a.Kind != model.ActTimer {
				next = &buf[i]
				break
			}
		}
		if next == nil {
			if t := w.c.NextTimer(); t == nil || t.At > until {
				return
			}
			next = &model.Action{Kind: model.ActTimer}
		}
		w.c.Do(*next)
	}
	w.t.Fatal("the cluster did not reach its deadline in 100000 steps")
}

func (w *world) set(name string) *model.Object {
	return w.c.Server().Peek(model.Ref{Kind: statefulset.Kind, Namespace: "default", Name: name})
}

func (w *world) pod(name string) *model.Object {
	return w.c.Server().Peek(model.Ref{Kind: replicaset.PodKind, Namespace: "default", Name: name})
}

func (w *world) claim(name string) *model.Object {
	return w.c.Server().Peek(model.Ref{Kind: statefulset.PVCKind, Namespace: "default", Name: name})
}

// edit sets a spec field of the StatefulSet web as a user, and settles.
func (w *world) edit(path string, v any) {
	w.t.Helper()
	require.NoError(w.t, w.c.Outside("user").Set(w.set("web").DeepCopy(), path, v))
	w.settle()
}

// ready marks a pod running and ready, as its kubelet would, and settles.
func (w *world) ready(name string) {
	w.t.Helper()
	p := w.pod(name).DeepCopy()
	p.Status = replicaset.RunningReady()
	require.NoError(w.t, w.c.Outside("kubelet").UpdateStatus(p))
	w.settle()
}

func (w *world) delete(kind, name string) {
	w.t.Helper()
	require.NoError(w.t, w.c.Outside("user").Delete(model.Ref{Kind: kind, Namespace: "default", Name: name}, model.DeleteOptions{}))
	w.settle()
}

func (w *world) podNames() []string {
	var out []string
	for _, p := range w.c.State().List(replicaset.PodKind, model.ListOptions{}) {
		out = append(out, p.Name)
	}
	return out
}

func (w *world) claimNames() []string {
	var out []string
	for _, p := range w.c.State().List(statefulset.PVCKind, model.ListOptions{}) {
		out = append(out, p.Name)
	}
	return out
}

func (w *world) assertComplete() {
	w.t.Helper()
	assert.Empty(w.t, statefulset.Complete(w.c.State()))
}

func TestOrderedReadyCreatesInOrderAndDeletesInReverse(t *testing.T) {
	w := newWorld(t, true, statefulset.New("default", "web", 3, "app:v1", "data"))
	assert.Equal(t, []string{"web-0", "web-1", "web-2"}, w.creates)
	assert.Equal(t, []string{"web-0", "web-1", "web-2"}, w.podNames())
	assert.Equal(t, []string{"data-web-0", "data-web-1", "data-web-2"}, w.claimNames())
	assert.Equal(t, "data-web-1", w.pod("web-1").Spec.Str("volumes[0].persistentVolumeClaim.claimName"))
	w.assertComplete()

	w.edit("spec.replicas", int64(0))
	assert.Equal(t, []string{"web-2", "web-1", "web-0"}, w.deletes)
	assert.Empty(t, w.podNames())
	assert.Equal(t, []string{"data-web-0", "data-web-1", "data-web-2"}, w.claimNames(), "Retain keeps the claims")
	w.assertComplete()
}

func TestOrderedReadyWaitsForEachPodToBeReady(t *testing.T) {
	w := newWorld(t, false, statefulset.New("default", "web", 3, "app:v1", "data"))
	assert.Equal(t, []string{"web-0"}, w.podNames(), "web-1 waits for web-0")
	assert.Equal(t, []string{"data-web-0"}, w.claimNames(), "a pod's claims come just before it")
	w.ready("web-0")
	assert.Equal(t, []string{"web-0", "web-1"}, w.podNames())
	w.ready("web-1")
	w.ready("web-2")
	w.assertComplete()

	w.edit("spec.replicas", int64(1))
	assert.Equal(t, []string{"web-2", "web-1"}, w.deletes)
	assert.Equal(t, []string{"web-0"}, w.podNames())
}

// TestOrderedReadyScaleDownWaitsForAnUnreadyPod: a scale-down under
// OrderedReady deletes no ready pod while a lower one is not ready, but
// may delete the unready one itself.
func TestOrderedReadyScaleDownWaitsForAnUnreadyPod(t *testing.T) {
	w := newWorld(t, false, statefulset.New("default", "web", 3, "app:v1"))
	w.ready("web-0")
	w.ready("web-1")
	w.ready("web-2")
	p := w.pod("web-1").DeepCopy()
	p.Status = replicaset.RunningReady()
	p.Status.Set("conditions[0].status", "False")
	require.NoError(t, w.c.Outside("kubelet").UpdateStatus(p))
	w.settle()
	w.edit("spec.replicas", int64(1))
	assert.Empty(t, w.deletes, "web-2 is ready and web-1 is not: nothing goes")
	w.edit("spec.replicas", int64(2))
	w.edit("spec.replicas", int64(1))
	assert.Empty(t, w.deletes)
	w.ready("web-1")
	assert.Equal(t, []string{"web-2", "web-1"}, w.deletes)
}

func TestParallelCreatesAndDeletesAllAtOnce(t *testing.T) {
	set := statefulset.New("default", "web", 3, "app:v1", "data")
	set.Spec.Set("podManagementPolicy", statefulset.Parallel)
	w := newWorld(t, false, set)
	assert.Equal(t, []string{"web-0", "web-1", "web-2"}, w.podNames(), "no pod waits for another")
	assert.Equal(t, []string{"data-web-0", "data-web-1", "data-web-2"}, w.claimNames())
	assert.Equal(t, int64(3), w.set("web").Status.Int("replicas"))
	assert.Equal(t, int64(0), w.set("web").Status.Int("readyReplicas"))
	w.edit("spec.replicas", int64(0))
	assert.Empty(t, w.podNames(), "unready pods are deleted all at once")
	assert.ElementsMatch(t, []string{"web-0", "web-1", "web-2"}, w.deletes)
	w.assertComplete()
}

func TestClaimRetentionPolicy(t *testing.T) {
	all := []string{"data-web-0", "data-web-1", "data-web-2"}
	for _, tc := range []struct {
		whenScaled, whenDeleted string
		afterScale, afterDelete []string
	}{
		{statefulset.Retain, statefulset.Retain, all, all},
		{statefulset.Delete, statefulset.Retain, all[:1], all[:1]},
		{statefulset.Retain, statefulset.Delete, all, nil},
		{statefulset.Delete, statefulset.Delete, all[:1], nil},
	} {
		t.Run(tc.whenScaled+"/"+tc.whenDeleted, func(t *testing.T) {
			set := statefulset.New("default", "web", 3, "app:v1", "data")
			set.Spec.Set("persistentVolumeClaimRetentionPolicy.whenScaled", tc.whenScaled)
			set.Spec.Set("persistentVolumeClaimRetentionPolicy.whenDeleted", tc.whenDeleted)
			w := newWorld(t, true, set)
			require.Equal(t, all, w.claimNames())
			w.assertComplete()
			w.edit("spec.replicas", int64(1))
			assert.Equal(t, []string{"web-0"}, w.podNames())
			assert.Equal(t, tc.afterScale, w.claimNames(), "after the scale-down")
			w.assertComplete()
			w.delete(statefulset.Kind, "web")
			assert.Empty(t, w.podNames(), "the garbage collector removes the pods")
			assert.Equal(t, tc.afterDelete, w.claimNames(), "after the StatefulSet's deletion")
		})
	}
}

func TestAScaleUpReusesRetainedClaims(t *testing.T) {
	w := newWorld(t, true, statefulset.New("default", "web", 2, "app:v1", "data"))
	uid := w.claim("data-web-1").UID
	w.edit("spec.replicas", int64(1))
	w.edit("spec.replicas", int64(2))
	assert.Equal(t, uid, w.claim("data-web-1").UID, "web-1 gets its old claim back")
	w.assertComplete()
}

func TestAMissingClaimIsMadeAgain(t *testing.T) {
	w := newWorld(t, true, statefulset.New("default", "web", 2, "app:v1", "data"))
	w.delete(statefulset.PVCKind, "data-web-1")
	assert.NotNil(t, w.claim("data-web-1"))
	w.assertComplete()
}

func TestPartitionedRollingUpdateStopsAtThePartition(t *testing.T) {
	set := statefulset.New("default", "web", 4, "app:v1")
	set.Spec.Set("updateStrategy.rollingUpdate.partition", int64(2))
	w := newWorld(t, true, set)
	v1 := statefulset.Revision(w.set("web"))
	w.assertComplete()
	assert.Equal(t, model.NewFields(model.Values{
		"replicas": int64(4), "readyReplicas": int64(4), "availableReplicas": int64(4), "currentReplicas": int64(4), "updatedReplicas": int64(4),
		"currentRevision": v1, "updateRevision": v1, "observedGeneration": int64(1),
	}), w.set("web").Status)

	w.edit("spec.template.spec.containers[0].image", "app:v2")
	v2 := statefulset.Revision(w.set("web"))
	require.NotEqual(t, v1, v2)
	assert.Equal(t, []string{"web-3", "web-2"}, w.deletes, "highest ordinal first, down to the partition")
	for name, rev := range map[string]string{"web-0": v1, "web-1": v1, "web-2": v2, "web-3": v2} {
		assert.Equal(t, rev, w.pod(name).Labels.Value(statefulset.RevisionLabel), name)
	}
	assert.Equal(t, "app:v2", w.pod("web-3").Spec.Str(replicaset.ImagePath))
	assert.Equal(t, "app:v1", w.pod("web-1").Spec.Str(replicaset.ImagePath))
	w.assertComplete()
	assert.Equal(t, model.NewFields(model.Values{
		"replicas": int64(4), "readyReplicas": int64(4), "availableReplicas": int64(4), "currentReplicas": int64(2), "updatedReplicas": int64(2),
		"currentRevision": v1, "updateRevision": v2, "observedGeneration": int64(2),
	}), w.set("web").Status)

	// A pod below the partition that is deleted comes back at the current
	// revision.
	w.delete(replicaset.PodKind, "web-0")
	assert.Equal(t, v1, w.pod("web-0").Labels.Value(statefulset.RevisionLabel))
	assert.Equal(t, "app:v1", w.pod("web-0").Spec.Str(replicaset.ImagePath))

	w.deletes = nil
	w.edit("spec.updateStrategy.rollingUpdate.partition", int64(0))
	assert.Equal(t, []string{"web-1", "web-0"}, w.deletes)
	w.assertComplete()
	assert.Equal(t, model.NewFields(model.Values{
		"replicas": int64(4), "readyReplicas": int64(4), "availableReplicas": int64(4), "currentReplicas": int64(4), "updatedReplicas": int64(4),
		"currentRevision": v2, "updateRevision": v2, "observedGeneration": int64(3),
	}), w.set("web").Status)
}

func TestRollingUpdateWaitsForEachReplacement(t *testing.T) {
	w := newWorld(t, false, statefulset.New("default", "web", 2, "app:v1"))
	w.ready("web-0")
	w.ready("web-1")
	w.edit("spec.template.spec.containers[0].image", "app:v2")
	assert.Equal(t, []string{"web-1"}, w.deletes)
	assert.Equal(t, "app:v2", w.pod("web-1").Spec.Str(replicaset.ImagePath))
	assert.Equal(t, "app:v1", w.pod("web-0").Spec.Str(replicaset.ImagePath), "web-0 waits for the new web-1 to be ready")
	w.ready("web-1")
	assert.Equal(t, []string{"web-1", "web-0"}, w.deletes)
}

func TestOnDeleteUpdatesOnlyDeletedPods(t *testing.T) {
	set := statefulset.New("default", "web", 2, "app:v1")
	set.Spec.Set("updateStrategy.type", statefulset.OnDelete)
	w := newWorld(t, true, set)
	w.edit("spec.template.spec.containers[0].image", "app:v2")
	assert.Empty(t, w.deletes)
	w.assertComplete()
	w.delete(replicaset.PodKind, "web-1")
	assert.Equal(t, "app:v2", w.pod("web-1").Spec.Str(replicaset.ImagePath))
	assert.Equal(t, "app:v1", w.pod("web-0").Spec.Str(replicaset.ImagePath))
	assert.Equal(t, int64(1), w.set("web").Status.Int("updatedReplicas"))
	w.assertComplete()
}

func TestRevisionNamesTheTemplate(t *testing.T) {
	a := statefulset.New("default", "web", 1, "app:v1")
	b := statefulset.New("default", "web", 5, "app:v1", "data")
	assert.Equal(t, statefulset.Revision(a), statefulset.Revision(b), "replicas and claims are not the template")
	assert.Regexp(t, `^web-[0-9a-z]+$`, statefulset.Revision(a))
	b.Spec.Set("template.spec.containers[0].image", "app:v2")
	assert.NotEqual(t, statefulset.Revision(a), statefulset.Revision(b))
}

func TestABadSpecIsReported(t *testing.T) {
	for field, want := range map[string]string{
		"podManagementPolicy":                             `unknown podManagementPolicy "Sometimes"`,
		"updateStrategy.type":                             `unknown updateStrategy.type "Sometimes"`,
		"persistentVolumeClaimRetentionPolicy.whenScaled": `unknown persistentVolumeClaimRetentionPolicy.whenScaled "Sometimes"`,
	} {
		set := statefulset.New("default", "web", 1, "app:v1")
		set.Spec.Set(field, "Sometimes")
		w := newWorld(t, true, set)
		assert.Empty(t, w.podNames(), field)
		unmet := statefulset.Complete(w.c.State())
		require.Len(t, unmet, 1, field)
		assert.Contains(t, unmet[0].Message, want)
	}
	set := statefulset.New("default", "web", 1, "app:v1")
	set.Spec.Set("volumeClaimTemplates[0].spec.storageClassName", "fast")
	w := newWorld(t, true, set)
	unmet := statefulset.Complete(w.c.State())
	require.Len(t, unmet, 1)
	assert.Contains(t, unmet[0].Message, "volume claim template 0 without metadata.name")
}

// TestOrderedReadyWaitsForItsCacheToSeeItsOwnDeletes: the StatefulSet
// controller scales web down to 2, and the Deleted event of web-2 is held
// back from it; web is then scaled up to 4. Its cache still shows web-2
// ready, but it waits for the cache to drop the pod it deleted before it
// acts, and so creates web-2 before web-3. Without expectations it
// creates web-3 at once, while web-2 is gone.
func TestOrderedReadyWaitsForItsCacheToSeeItsOwnDeletes(t *testing.T) {
	for _, expectations := range []bool{true, false} {
		w := newWorldWith(t, statefulset.Options{NoExpectations: !expectations}, true, statefulset.New("default", "web", 3, "app:v1"))
		require.NoError(t, w.c.Faults().ArmDelay("statefulset", replicaset.PodKind, 10))
		w.edit("spec.replicas", int64(2))
		require.Equal(t, []string{"web-2"}, w.deletes)
		w.creates = nil
		w.edit("spec.replicas", int64(4))
		if !expectations {
			assert.Equal(t, []string{"web-3"}, w.creates, "without expectations, web-3 comes while web-2 is gone")
			assert.Nil(t, w.pod("web-2"))
			continue
		}
		assert.Empty(t, w.creates, "it waits for its cache")
		w.runUntil(w.c.Now() + 40)
		assert.Equal(t, []string{"web-2", "web-3"}, w.creates)
		w.assertComplete()
	}
}

// typedForm is a StatefulSet as the controllerruntime adapter flattens a
// typed apps/v1 one: a matchLabels selector, the template's metadata and
// spec (a container and a volume of its own), a claim template and a
// service name.
func typedForm(replicas, partition int64) *model.Object {
	return &model.Object{Kind: statefulset.Kind, Namespace: "default", Name: "web", Spec: model.NewFields(model.Values{
		"replicas": replicas, "serviceName": "web", "selector.matchLabels.app": "web",
		"updateStrategy.type": "RollingUpdate", "updateStrategy.rollingUpdate.partition": partition,
		`template.metadata.labels["app.kubernetes.io/name"]`: "web", "template.metadata.labels.app": "web",
		`template.metadata.annotations["example.com/owner"]`: "ops",
		"template.spec.containers[0].name":                   "app", "template.spec.containers[0].image": "app:v1",
		"template.spec.volumes[0].name": "config", "template.spec.volumes[0].configMap.name": "web-config",
		"volumeClaimTemplates[0].metadata.name": "data", "volumeClaimTemplates[0].spec.resources.requests.storage": "1Gi",
	})}
}

// readyByCondition marks a pod running and ready as a typed kubelet does:
// phase Running and the Ready condition True.
func (w *world) readyByCondition(name string) {
	w.t.Helper()
	p := w.pod(name).DeepCopy()
	p.Status = model.NewFields(model.Values{
		"phase":                "Running",
		"conditions[0].type":   "ContainersReady",
		"conditions[0].status": "True",
		"conditions[1].type":   "Ready",
		"conditions[1].status": "True",
	})
	require.NoError(w.t, w.c.Outside("kubelet").UpdateStatus(p))
	w.settle()
}

func TestTheTypedFormMakesPodsFromTheTemplateSpec(t *testing.T) {
	w := newWorld(t, false, typedForm(3, 2))
	for _, name := range []string{"web-0", "web-1", "web-2"} {
		require.NotNil(t, w.pod(name), "%s is created once the lower ones are ready by their Ready condition", name)
		w.readyByCondition(name)
	}
	p := w.pod("web-1")
	assert.Equal(t, map[string]string{
		"app": "web", "app.kubernetes.io/name": "web", statefulset.PodNameLabel: "web-1",
		model.AnnotationLabelPrefix + "example.com/owner": "ops",
		statefulset.RevisionLabel:                         statefulset.Revision(w.set("web")),
	}, p.Labels.Map())
	assert.Equal(t, model.NewFields(model.Values{
		"containers[0].name": "app", "containers[0].image": "app:v1",
		"volumes[0].name": "config", "volumes[0].configMap.name": "web-config",
		"volumes[1].name": "data", "volumes[1].persistentVolumeClaim.claimName": "data-web-1",
		"hostname": "web-1", "subdomain": "web",
	}), p.Spec, "the template's spec, the claim's volume after the template's own")
	assert.Equal(t, int64(3), w.set("web").Status.Int("readyReplicas"))
	w.assertComplete()

	// A rolling update stops at the partition; web-0, below it, deleted,
	// comes back copied from web-1 of the current revision, mounting its
	// own claim.
	v1 := statefulset.Revision(w.set("web"))
	w.edit("spec.template.spec.containers[0].image", "app:v2")
	w.readyByCondition("web-2")
	assert.Equal(t, "app:v2", w.pod("web-2").Spec.Str("containers[0].image"))
	w.delete(replicaset.PodKind, "web-0")
	p = w.pod("web-0")
	require.NotNil(t, p)
	assert.Equal(t, v1, p.Labels.Value(statefulset.RevisionLabel))
	assert.Equal(t, "web-0", p.Labels.Value(statefulset.PodNameLabel))
	assert.Equal(t, "app:v1", p.Spec.Str("containers[0].image"))
	assert.Equal(t, "web-0", p.Spec.Str("hostname"))
	assert.Equal(t, "web-config", p.Spec.Str("volumes[0].configMap.name"))
	assert.Equal(t, "data-web-0", p.Spec.Str("volumes[1].persistentVolumeClaim.claimName"))
}

func TestUnsetReplicasMeansOne(t *testing.T) {
	set := typedForm(3, 0)
	set.Spec.Delete("replicas")
	w := newWorld(t, false, set)
	assert.Equal(t, []string{"web-0"}, w.podNames())
	w.readyByCondition("web-0")
	assert.Equal(t, []string{"web-0"}, w.podNames())
	assert.Equal(t, int64(1), w.set("web").Status.Int("readyReplicas"))
	w.assertComplete()
}

// TestValidateForbidsChangingVolumeClaimTemplates: the server, with
// Validate, refuses an update of a set's volumeClaimTemplates (or its
// selector) as Kubernetes does, and accepts one of its replicas, template,
// update strategy and retention policy.
func TestValidateForbidsChangingVolumeClaimTemplates(t *testing.T) {
	c := model.NewCluster(model.Config{})
	c.Server().AddAdmission(statefulset.Validate)
	require.NoError(t, c.Apply(statefulset.New("default", "web", 2, "app:v1", "data")))
	get := func() *model.Object { return c.State().Get(statefulset.Kind, "default", "web").DeepCopy() }

	for path, v := range map[string]any{
		"volumeClaimTemplates[0].spec.resources.requests.storage": "2Gi",
		"volumeClaimTemplates[1].metadata.name":                   "logs",
		"selector.matchLabels.app":                                "other",
		"podManagementPolicy":                                     statefulset.Parallel,
	} {
		set := get()
		set.Spec.Set(path, v)
		err := c.Outside("user").Update(set)
		require.True(t, model.IsInvalid(err), "%s: %v", path, err)
		assert.ErrorContains(t, err, "spec: Forbidden: updates to statefulset spec for fields other than 'replicas'", path)
	}
	set := get()
	set.Spec.Set("replicas", int64(3))
	set.Spec.Set("template.spec.containers[0].image", "app:v2")
	set.Spec.Set("updateStrategy.rollingUpdate.partition", int64(1))
	set.Spec.Set("persistentVolumeClaimRetentionPolicy.whenScaled", statefulset.Delete)
	require.NoError(t, c.Outside("user").Update(set))
	assert.Equal(t, "1Gi", get().Spec.Str("volumeClaimTemplates[0].spec.resources.requests.storage"))
}

// TestValidateAcceptsAnEmptyObject: an update that adds an empty object
// or list, as the controllerruntime adapter flattens one (an operator
// copying "updateStrategy: {}" from its custom resource), is no change of
// a fixed field, as on a real API server; a non-empty one still is.
func TestValidateAcceptsAnEmptyObject(t *testing.T) {
	c := model.NewCluster(model.Config{})
	c.Server().AddAdmission(statefulset.Validate)
	require.NoError(t, c.Apply(statefulset.New("default", "web", 2, "app:v1", "data")))
	for _, path := range []string{"updateStrategy{}", "persistentVolumeClaimRetentionPolicy{}", "volumeClaimTemplates[0].spec.resources.limits{}", "ordinals{}", "minReadySeconds{}"} {
		set := c.State().Get(statefulset.Kind, "default", "web").DeepCopy()
		set.Spec.Set(path, true)
		require.NoError(t, c.Outside("user").Update(set), path)
	}
	set := c.State().Get(statefulset.Kind, "default", "web").DeepCopy()
	set.Spec.Set("volumeClaimTemplates[0].spec.resources.limits.storage", "1Gi")
	require.True(t, model.IsInvalid(c.Outside("user").Update(set)))
}

// TestAnOrphanDeletedSetCreatedAgainAdoptsItsPods: a StatefulSet deleted
// with the Orphan policy leaves its pods and claims; created again with a
// bigger claim template (which no update may change), it adopts the pods
// instead of creating them again, and is complete. This is how operators
// resize a StatefulSet's volumes.
func TestAnOrphanDeletedSetCreatedAgainAdoptsItsPods(t *testing.T) {
	w := newWorld(t, true, statefulset.New("default", "web", 2, "app:v1", "data"))
	w.assertComplete()
	uids := map[string]model.UID{"web-0": w.pod("web-0").UID, "web-1": w.pod("web-1").UID}
	require.NoError(t, w.c.Outside("operator").Delete(model.Ref{Kind: statefulset.Kind, Namespace: "default", Name: "web"},
		model.DeleteOptions{Propagation: model.PropagationOrphan}))
	w.settle()
	require.Nil(t, w.set("web"), "the set is gone")
	for name := range uids {
		_, owned := w.pod(name).ControllerRef()
		assert.False(t, owned, "%s is orphaned, not deleted", name)
	}

	bigger := statefulset.New("default", "web", 2, "app:v1", "data")
	require.NoError(t, bigger.SetField("spec.volumeClaimTemplates[0].spec.resources.requests.storage", "2Gi"))
	require.NoError(t, w.c.Outside("operator").Create(bigger))
	w.settle()
	for name, uid := range uids {
		p := w.pod(name)
		require.NotNil(t, p)
		assert.Equal(t, uid, p.UID, "%s was adopted, not created again", name)
		assert.True(t, p.IsControlledBy(w.set("web")))
	}
	assert.Equal(t, []string{"web-0", "web-1"}, w.creates, "no pod was created twice")
	w.assertComplete()
}
