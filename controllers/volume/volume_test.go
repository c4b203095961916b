package volume_test

import (
	"testing"

	"github.com/converge-sim/converge/controllers/volume"
	"github.com/converge-sim/converge/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseStorageReadsMiAndGiAndNothingElse(t *testing.T) {
	for in, want := range map[string]int64{"1Gi": 1024, "512Mi": 512, "0Mi": 0, "3Gi": 3072} {
		got, err := volume.ParseStorage(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
		assert.Equal(t, in, volume.FormatStorage(got))
	}
	for _, bad := range []string{"", "1G", "1.5Gi", "1", "-1Gi", "+1Gi", "1Ki", "Gi", "1e3Mi", " 1Gi", "99999999999999999Gi"} {
		_, err := volume.ParseStorage(bad)
		assert.ErrorContains(t, err, "want <n>Mi or <n>Gi", bad)
	}
	assert.Equal(t, "1536Mi", volume.FormatStorage(1536))
}

// world is a cluster with the volume controller, its admission, and the
// given classes and claims, settled.
type world struct {
	t *testing.T
	c *model.Cluster
}

func newWorld(t *testing.T, objs ...*model.Object) *world {
	t.Helper()
	c := model.NewCluster(model.Config{})
	volume.Install(c)
	require.NoError(t, c.AddController(volume.Controller(volume.Options{})))
	require.NoError(t, c.Apply(objs...))
	require.NoError(t, c.Start())
	w := &world{t: t, c: c}
	w.settle()
	return w
}

// settle runs every owed action but timers until nothing is owed, and
// returns the number of steps it took.
func (w *world) settle() int {
	w.t.Helper()
	var buf []model.Action
	for i := range 10000 {
		if !w.c.Busy() {
			return i
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
	return 0
}

func (w *world) claim(name string) *model.Object {
	w.t.Helper()
	c := w.c.State().Get(volume.ClaimKind, "default", name)
	require.NotNil(w.t, c, name)
	return c.DeepCopy()
}

// resize sets a claim's request as a user would.
func (w *world) resize(name, storage string) error {
	c := w.claim(name)
	c.Spec.Set(volume.RequestPath, storage)
	return w.c.Outside("user").Update(c)
}

func TestClaimIsDefaultedBoundAndResizedInTwoSteps(t *testing.T) {
	w := newWorld(t, volume.NewClass("standard", true, true), volume.NewClaim("default", "data", "", "1Gi"))
	c := w.claim("data")
	assert.Equal(t, "standard", c.Spec.Str(volume.ClassPath), "the default class")
	assert.Equal(t, volume.Bound, c.Status.Str("phase"))
	assert.Equal(t, "1Gi", c.Status.Str(volume.CapacityPath))
	assert.Empty(t, volume.Settled(w.c.State()))

	var steps []string
	var midway []model.Unmet
	w.c.OnWrite(func(wr model.Write) {
		if wr.Caller == "volume" && wr.New != nil {
			steps = append(steps, wr.New.Status.String())
			if midway == nil {
				midway = volume.Settled(w.c.State())
			}
		}
	})
	require.NoError(t, w.resize("data", "2Gi"))
	w.settle()
	assert.Equal(t, []string{
		`{allocatedResources.storage: "2Gi", capacity.storage: "1Gi", conditions[0].status: "True", conditions[0].type: "FileSystemResizePending", phase: "Bound"}`,
		`{allocatedResources.storage: "2Gi", capacity.storage: "2Gi", phase: "Bound"}`,
	}, steps, "the volume grows, then its file system")
	require.Len(t, midway, 1)
	assert.Equal(t, "PersistentVolumeClaim default/data has capacity 1Gi, requests 2Gi", midway[0].String())
	assert.Empty(t, volume.Settled(w.c.State()))
}

func TestServerRejectsWhatKubernetesRejects(t *testing.T) {
	w := newWorld(t,
		volume.NewClass("standard", true, true), volume.NewClass("fixed", false, false),
		volume.NewClaim("default", "data", "", "2Gi"), volume.NewClaim("default", "fixed", "fixed", "1Gi"),
		volume.NewClaim("default", "orphan", "missing", "1Gi"))

	err := w.resize("data", "1Gi")
	require.True(t, model.IsInvalid(err), "%v", err)
	assert.ErrorContains(t, err, "spec.resources.requests.storage: Forbidden: field can not be less than previous value")
	assert.Equal(t, "spec.resources.requests.storage", err.(*model.StatusError).Causes[0].Field)

	err = w.resize("fixed", "2Gi")
	require.True(t, model.IsInvalid(err), "%v", err)
	assert.ErrorContains(t, err, "the storageclass that provisions the pvc must support resize")

	err = w.resize("orphan", "2Gi")
	require.True(t, model.IsInvalid(err), "%v", err)
	assert.ErrorContains(t, err, "spec is immutable after creation except resources.requests", "a Pending claim may not be resized")
	assert.Equal(t, volume.Pending, w.claim("orphan").Status.Str("phase"), "no class, no binding")

	moved := w.claim("data")
	moved.Spec.Set(volume.ClassPath, "fixed")
	assert.ErrorContains(t, w.c.Outside("user").Update(moved), "spec is immutable after creation")

	assert.ErrorContains(t, w.resize("data", "2.5Gi"), `storage quantity "2.5Gi": want <n>Mi or <n>Gi`)
	assert.ErrorContains(t, w.c.Outside("user").Create(volume.NewClaim("default", "zero", "", "0Mi")), "must be greater than zero")
	assert.ErrorContains(t, w.c.Outside("user").Create(&model.Object{Kind: volume.ClaimKind, Namespace: "default", Name: "none"}),
		"has no resources.requests.storage")

	require.NoError(t, w.resize("data", "3Gi"), "growing a bound claim of a class that allows it")
	w.settle()
	unmet := volume.Settled(w.c.State())
	require.Len(t, unmet, 1)
	assert.Equal(t, `PersistentVolumeClaim default/orphan is Pending, not Bound (storageClassName "missing")`, unmet[0].String())
}

func TestClaimBindsOnceItsClassExists(t *testing.T) {
	w := newWorld(t, volume.NewClaim("default", "data", "late", "1Gi"))
	assert.Equal(t, volume.Pending, w.claim("data").Status.Str("phase"))
	require.NoError(t, w.c.Outside("admin").Create(volume.NewClass("late", false, false)))
	w.settle()
	assert.Equal(t, volume.Bound, w.claim("data").Status.Str("phase"), "the class's event maps to its claims")
}
