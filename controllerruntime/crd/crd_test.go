package crd_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	crt "github.com/converge-sim/converge/controllerruntime"
	"github.com/converge-sim/converge/controllerruntime/convert"
	"github.com/converge-sim/converge/controllerruntime/crd"
	"github.com/converge-sim/converge/controllerruntime/examples/schemaops"
	"github.com/converge-sim/converge/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

var ctx = context.Background()

const bases = "../examples/schemaops/config/crd/bases"

var conv = func() *convert.Converter {
	c, err := convert.New(schemaops.NewScheme(), convert.Options{})
	if err != nil {
		panic(err)
	}
	return c
}()

// outside returns a client of a fresh cluster that serves crds.
func outside(t *testing.T, crds *crd.Set, opts crd.Options) client.Client {
	t.Helper()
	m, err := crt.NewManager(model.NewCluster(model.Config{}), conv, crt.ManagerOptions{CRDs: crds, CRDOptions: opts})
	require.NoError(t, err)
	return m.OutsideClient("user")
}

func load(t *testing.T) *crd.Set {
	t.Helper()
	s, err := crd.Load(bases)
	require.NoError(t, err)
	return s
}

// causes returns the fields and messages of an Invalid error.
func causes(t *testing.T, err error) []string {
	t.Helper()
	require.True(t, apierrors.IsInvalid(err), "want Invalid, got %v", err)
	var out []string
	for _, c := range err.(apierrors.APIStatus).Status().Details.Causes {
		out = append(out, c.Field+": "+c.Message)
	}
	return out
}

func batch(name string) *schemaops.Batch {
	return &schemaops.Batch{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name}}
}

func TestLoadServesEveryVersion(t *testing.T) {
	s := load(t)
	var kinds []string
	for _, v := range s.Versions() {
		kinds = append(kinds, v.GVK.String())
		assert.True(t, v.Namespaced)
		assert.True(t, v.Status)
	}
	assert.Equal(t, []string{"ops.example.com/v1, Kind=App", "ops.example.com/v1, Kind=Batch"}, kinds)
}

func TestCreateAppliesSchemaDefaults(t *testing.T) {
	c := outside(t, load(t), crd.Options{})
	b := batch("b")
	require.NoError(t, c.Create(ctx, b))
	assert.Equal(t, int32(1), b.Spec.Parallelism, "default: 1")
	assert.Equal(t, "worker:v1", b.Spec.Image)
	var got schemaops.Batch
	require.NoError(t, c.Get(ctx, client.ObjectKeyFromObject(b), &got))
	assert.Equal(t, "worker:v1", got.Spec.Image, "the default is stored")

	rv := got.ResourceVersion
	got.Spec.Image = ""
	require.NoError(t, c.Update(ctx, &got))
	assert.Equal(t, rv, got.ResourceVersion, "an update that only drops a defaulted field is a no-op once defaulted")
}

func TestSchemaViolationsAreInvalidWithFieldPaths(t *testing.T) {
	c := outside(t, load(t), crd.Options{})
	b := batch("b")
	b.Spec.Parallelism = 60
	b.Spec.Image = "Not An Image"
	got := causes(t, c.Create(ctx, b))
	require.Len(t, got, 2)
	assert.Contains(t, got[0]+got[1], "spec.parallelism: Invalid value: 60: spec.parallelism in body should be less than or equal to 50")
	assert.Contains(t, got[0]+got[1], "spec.image: Invalid value: \"Not An Image\": spec.image in body should match")

	b = batch("b")
	require.NoError(t, c.Create(ctx, b))
	for i := range 11 {
		b.Status.Active = append(b.Status.Active, "pod-"+string(rune('a'+i)))
	}
	err := c.Status().Update(ctx, b)
	assert.Equal(t, []string{"status.active: Too many: 11: must have at most 10 items"}, causes(t, err))
	assert.Contains(t, err.Error(), `Batch.ops.example.com "b" is invalid`)
	b.Status.Active = b.Status.Active[:10]
	require.NoError(t, c.Status().Update(ctx, b))
}

func TestCELTransitionRuleMakesAFieldImmutable(t *testing.T) {
	c := outside(t, load(t), crd.Options{})
	a := &schemaops.App{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "shop"},
		Spec: schemaops.AppSpec{Image: "shop:v1", StorageClass: "standard"}}
	require.NoError(t, c.Create(ctx, a))
	a.Spec.Image = "shop:v2"
	require.NoError(t, c.Update(ctx, a), "other fields stay mutable")
	a.Spec.StorageClass = "fast"
	assert.Equal(t, []string{"spec.storageClass: Invalid value: \"fast\": storageClass is immutable"}, causes(t, c.Update(ctx, a)))
	a.Spec.StorageClass = "slow"
	got := causes(t, c.Update(ctx, a))
	assert.Contains(t, strings.Join(got, "\n"), `spec.storageClass: Unsupported value: "slow": supported values: "standard", "fast"`)

	p := &schemaops.App{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "x"}}
	assert.Equal(t, []string{`spec.image: Invalid value: "": spec.image in body should be at least 1 chars long`}, causes(t, c.Create(ctx, p)))
}

func TestUndefinedKindIsAnErrorUnlessAllowed(t *testing.T) {
	only, err := crd.Load(filepath.Join(bases, "ops.example.com_batches.yaml"))
	require.NoError(t, err)
	a := &schemaops.App{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "shop"}, Spec: schemaops.AppSpec{Image: "shop:v1"}}
	err = outside(t, only, crd.Options{}).Create(ctx, a)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no matches for kind \"App\" in version \"ops.example.com/v1\"")
	require.NoError(t, outside(t, only, crd.Options{AllowUndefined: true}).Create(ctx, a.DeepCopy()))
	require.NoError(t, outside(t, nil, crd.Options{}).Create(ctx, a.DeepCopy()), "without CRDs nothing is validated")
}

// brokenCRD is the batches CRD with one edit applied.
func brokenCRD(t *testing.T, from, to string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(bases, "ops.example.com_batches.yaml"))
	require.NoError(t, err)
	require.Contains(t, string(data), from)
	path := filepath.Join(t.TempDir(), "broken.yaml")
	require.NoError(t, os.WriteFile(path, []byte(strings.Replace(string(data), from, to, 1)), 0o600))
	return path
}

func TestBadManifestsFailAtLoadNamingFileAndPath(t *testing.T) {
	for _, tc := range []struct {
		name, from, to string
		want           []string
	}{
		{"malformed YAML", "  group: ops.example.com", "  group: [ops", []string{"document 1", "not a valid CustomResourceDefinition"}},
		{"unknown field", "  scope: Namespaced", "  scope: Namespaced\n  scoop: x", []string{`unknown field "scoop"`}},
		{"not structural", "              activeCount:\n                format: int32\n                type: integer", "              activeCount:\n                format: int32",
			[]string{"spec.validation.openAPIV3Schema.properties[status].properties[activeCount].type: Required value: must not be empty for specified object fields"}},
		{"CEL does not compile", "              activeCount:\n                format: int32", "              activeCount:\n                x-kubernetes-validations:\n                - rule: self > oldSelf.nope\n                format: int32",
			[]string{"spec.validation.openAPIV3Schema.properties[status].properties[activeCount].x-kubernetes-validations[0].rule: Invalid value", "compilation failed"}},
		{"default violates the schema", "                default: 1", "                default: 99",
			[]string{"spec.validation.openAPIV3Schema.properties[spec].properties[parallelism].default: Invalid value: 99"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := brokenCRD(t, tc.from, tc.to)
			_, err := crd.Load(path)
			require.Error(t, err)
			assert.Contains(t, err.Error(), path)
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
	_, err := crd.Load(filepath.Join(t.TempDir(), "missing.yaml"))
	assert.ErrorContains(t, err, "missing.yaml")
	empty := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(empty, "README.md"), []byte("no manifests here"), 0o600))
	_, err = crd.Load(bases, empty)
	assert.ErrorContains(t, err, empty+" defines no CustomResourceDefinition", "a directory without CRDs")
	comments := filepath.Join(empty, "only-comments.yaml")
	require.NoError(t, os.WriteFile(comments, []byte("# nothing\n---\n"), 0o600))
	_, err = crd.Load(comments)
	assert.ErrorContains(t, err, comments+" defines no CustomResourceDefinition", "a file without CRDs")
	_, err = crd.Load(bases, filepath.Join(bases, "ops.example.com_apps.yaml"))
	assert.ErrorContains(t, err, "kind App.ops.example.com is already defined in "+filepath.Join(bases, "ops.example.com_apps.yaml"))
}

// TestRejectionsNameTheRule reads the model's rejection record, as the
// rejected-writes verdict does.
func TestRejectionsNameTheRule(t *testing.T) {
	c := model.NewCluster(model.Config{})
	m, err := crt.NewManager(c, conv, crt.ManagerOptions{CRDs: load(t)})
	require.NoError(t, err)
	cl := m.OutsideClient("user")
	b := batch("b")
	b.Spec.Parallelism = 51
	require.Error(t, cl.Create(ctx, b))
	a := &schemaops.App{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "shop"}, Spec: schemaops.AppSpec{Image: "shop:v1", StorageClass: "standard"}}
	require.NoError(t, cl.Create(ctx, a))
	a.Spec.StorageClass = "fast"
	require.Error(t, cl.Update(ctx, a))
	b = batch("c")
	require.NoError(t, cl.Create(ctx, b))
	b.Status.Active = make([]string, 11)
	require.Error(t, cl.Status().Update(ctx, b))
	var rules []string
	for _, r := range c.Server().Rejections(0) {
		cause := r.Err.(*model.StatusError).Causes[0]
		rules = append(rules, cause.Field+" "+cause.Rule)
	}
	assert.Equal(t, []string{"spec.parallelism maximum: 50", "spec.storageClass self == oldSelf", "status.active maxItems: 10"}, rules)

	err = m.Apply(&schemaops.Batch{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "d"}, Spec: schemaops.BatchSpec{Image: "x"}})
	assert.ErrorContains(t, err, "spec.image in body should match", "setup objects are validated too")
}

// A custom resource without a status subresource: its status is part of
// the object (Update writes it, generation moves with it) and Status()
// writes are NotFound, as the API server serves no /status.
func TestCustomResourceWithoutStatusSubresource(t *testing.T) {
	data, err := os.ReadFile("testdata/notes.yaml")
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "notes.yaml")
	require.NoError(t, os.WriteFile(path, []byte(strings.Replace(string(data), "    subresources:\n      status: {}\n", "", 1)), 0o600))
	crds, err := crd.Load(path)
	require.NoError(t, err)
	conv, err := convert.New(schemaops.NewScheme(), convert.Options{Unstructured: crds.GVKs()})
	require.NoError(t, err)
	m, err := crt.NewManager(model.NewCluster(model.Config{}), conv, crt.ManagerOptions{CRDs: crds, CRDOptions: crd.Options{AllowUndefined: true}})
	require.NoError(t, err)
	c := m.OutsideClient("user")
	n := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"text": "a"}, "status": map[string]any{"seen": "a"}}}
	n.SetGroupVersionKind(schema.GroupVersionKind{Group: "notes.example.com", Version: "v1", Kind: "Note"})
	n.SetNamespace("default")
	n.SetName("n")
	require.NoError(t, c.Create(ctx, n))
	seen, _, _ := unstructured.NestedString(n.Object, "status", "seen")
	assert.Equal(t, "a", seen, "create keeps the status")
	require.NoError(t, unstructured.SetNestedField(n.Object, "b", "status", "seen"))
	require.NoError(t, c.Update(ctx, n))
	seen, _, _ = unstructured.NestedString(n.Object, "status", "seen")
	assert.Equal(t, "b", seen, "update writes the status")
	assert.Equal(t, int64(2), n.GetGeneration(), "and bumps generation")
	assert.True(t, apierrors.IsNotFound(c.Status().Update(ctx, n)), "no status subresource")
	assert.True(t, crt.HasGeneration(conv, "Note"))
}
