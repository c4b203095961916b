// Package crd serves custom resource definitions in converge's model API
// server as the Kubernetes API server serves them: it loads the CRD
// manifests controller-gen writes, checks them as the API server checks a
// new CRD, and admits every write of a custom resource through the API
// server's own strategy for it (k8s.io/apiextensions-apiserver): unknown
// fields pruned, schema defaults applied, the OpenAPI v3 schema and the CEL
// rules validated, transition rules included. The core model stays free
// of Kubernetes dependencies; this package plugs into its admission hook.
package crd

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	crdvalidation "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	schemavalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apiextensions-apiserver/pkg/registry/customresource"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// Set is the custom resource definitions a model API server serves: for
// every served version of every loaded CRD, its structural schema and the
// API server's own strategy for that version (defaults, validation, CEL
// rules, the status subresource).
type Set struct {
	versions map[schema.GroupVersionKind]*Version
	// from names, per group and kind, the file that defined it, to report
	// duplicates.
	from map[schema.GroupKind]string
}

// Version is one served version of a custom resource.
type Version struct {
	GVK schema.GroupVersionKind
	// Namespaced says the kind is namespaced (scope Namespaced).
	Namespaced bool
	// Status says the version has a status subresource.
	Status bool
	// Plural is the resource's name (spec.names.plural), which the API
	// server's errors name.
	Plural string
	// Scale holds the paths of the version's scale subresource, or is nil
	// when it has none.
	Scale *Scale

	structural *structuralschema.Structural
	strategy   strategy
	status     strategy
	memo       admissionMemo
}

// Scale is a scale subresource: the JSON paths (".spec.replicas") of the
// replicas it reads and writes, of the replicas it reports, and of the
// label selector it reports ("" for none).
type Scale struct {
	SpecReplicasPath, StatusReplicasPath, LabelSelectorPath string
}

// strategy is the part of the API server's REST strategy for custom
// resources that the model's write path calls.
type strategy interface {
	PrepareForCreate(ctx context.Context, obj runtime.Object)
	PrepareForUpdate(ctx context.Context, obj, old runtime.Object)
	Validate(ctx context.Context, obj runtime.Object) field.ErrorList
	ValidateUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList
}

// Load reads CustomResourceDefinition manifests, as controller-gen writes
// them to config/crd/bases: each path is a YAML file (several documents
// allowed) or a directory whose *.yaml and *.yml files are read in name
// order. Every CRD is validated as the API server validates a new CRD
// (structural schema, pruned defaults, CEL rules that compile within
// their cost budget); an error names the file and the field path.
func Load(paths ...string) (*Set, error) {
	s := NewSet()
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("crd: %w", err)
		}
		files := []string{p}
		if info.IsDir() {
			files = nil
			entries, err := os.ReadDir(p)
			if err != nil {
				return nil, fmt.Errorf("crd: %w", err)
			}
			for _, e := range entries {
				if ext := filepath.Ext(e.Name()); !e.IsDir() && (ext == ".yaml" || ext == ".yml") {
					files = append(files, filepath.Join(p, e.Name()))
				}
			}
			slices.Sort(files)
		}
		before := len(s.from)
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				return nil, fmt.Errorf("crd: %w", err)
			}
			if err := s.Add(f, data); err != nil {
				return nil, err
			}
		}
		if len(s.from) == before {
			return nil, fmt.Errorf("crd: %s defines no CustomResourceDefinition (a directory is read for its .yaml and .yml files)", p)
		}
	}
	return s, nil
}

// NewSet returns an empty set.
func NewSet() *Set {
	return &Set{versions: map[schema.GroupVersionKind]*Version{}, from: map[schema.GroupKind]string{}}
}

// Add parses the CRD manifests in data (YAML, several documents allowed);
// name says where data came from, for errors.
func (s *Set) Add(name string, data []byte) error {
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for doc := 1; ; doc++ {
		raw, err := r.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("crd: %s: document %d: %w", name, doc, err)
		}
		if len(bytes.TrimSpace(stripComments(raw))) == 0 {
			continue
		}
		if err := s.addDocument(name, raw); err != nil {
			return fmt.Errorf("crd: %s: document %d: %w", name, doc, err)
		}
	}
}

// stripComments drops the YAML comment lines of a document.
func stripComments(raw []byte) []byte {
	var out []byte
	for line := range bytes.Lines(raw) {
		if !bytes.HasPrefix(bytes.TrimSpace(line), []byte("#")) {
			out = append(out, line...)
		}
	}
	return out
}

func (s *Set) addDocument(file string, raw []byte) error {
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.UnmarshalStrict(raw, &crd); err != nil {
		return fmt.Errorf("not a valid CustomResourceDefinition: %w", err)
	}
	if gvk := crd.GroupVersionKind(); gvk != apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition") {
		return fmt.Errorf("%s %q is not an apiextensions.k8s.io/v1 CustomResourceDefinition", gvk, crd.Name)
	}
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(&crd)
	var in apiextensions.CustomResourceDefinition
	if err := apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(&crd, &in, nil); err != nil {
		return fmt.Errorf("CustomResourceDefinition %s: %w", crd.Name, err)
	}
	// A new CRD's status records its storage version, as the API server's
	// CRD strategy sets it on create.
	for _, v := range in.Spec.Versions {
		if v.Storage {
			in.Status.StoredVersions = []string{v.Name}
		}
	}
	if errs := crdvalidation.ValidateCustomResourceDefinition(context.Background(), &in); len(errs) > 0 {
		msgs := make([]string, len(errs))
		for i, e := range errs {
			msgs[i] = e.Error()
		}
		return fmt.Errorf("CustomResourceDefinition %s is invalid:\n  %s", crd.Name, strings.Join(msgs, "\n  "))
	}
	gk := schema.GroupKind{Group: in.Spec.Group, Kind: in.Spec.Names.Kind}
	if prev, ok := s.from[gk]; ok {
		return fmt.Errorf("CustomResourceDefinition %s: kind %s is already defined in %s", crd.Name, gk, prev)
	}
	for _, v := range in.Spec.Versions {
		if !v.Served {
			continue
		}
		ver, err := newVersion(&in, v.Name)
		if err != nil {
			return fmt.Errorf("CustomResourceDefinition %s version %s: %w", crd.Name, v.Name, err)
		}
		s.versions[ver.GVK] = ver
	}
	s.from[gk] = file
	return nil
}

// newVersion builds what the API server builds to serve one version of a
// CRD: the structural schema with pruned defaults, the schema validators
// of the object and of its status, and the REST strategies.
func newVersion(crd *apiextensions.CustomResourceDefinition, version string) (*Version, error) {
	gvk := schema.GroupVersionKind{Group: crd.Spec.Group, Version: version, Kind: crd.Spec.Names.Kind}
	val, err := apiextensions.GetSchemaForVersion(crd, version)
	if err != nil {
		return nil, err
	}
	if val == nil || val.OpenAPIV3Schema == nil {
		return nil, errors.New("no openAPIV3Schema")
	}
	st, err := structuralschema.NewStructural(val.OpenAPIV3Schema)
	if err != nil {
		return nil, fmt.Errorf("schema is not structural: %w", err)
	}
	st = st.DeepCopy()
	if err := structuraldefaulting.PruneDefaults(st); err != nil {
		return nil, fmt.Errorf("defaults: %w", err)
	}
	validator, _, err := schemavalidation.NewSchemaValidator(val.OpenAPIV3Schema)
	if err != nil {
		return nil, err
	}
	subs, err := apiextensions.GetSubresourcesForVersion(crd, version)
	if err != nil {
		return nil, err
	}
	var statusSub *apiextensions.CustomResourceSubresourceStatus
	var statusValidator schemavalidation.SchemaValidator
	var scale *apiextensions.CustomResourceSubresourceScale
	if subs != nil {
		scale = subs.Scale
		if subs.Status != nil {
			statusSub = subs.Status
			if props, ok := val.OpenAPIV3Schema.Properties["status"]; ok {
				if statusValidator, _, err = schemavalidation.NewSchemaValidator(&props); err != nil {
					return nil, err
				}
			}
		}
	}
	namespaced := crd.Spec.Scope == apiextensions.NamespaceScoped
	main := customresource.NewStrategy(runtime.NewScheme(), namespaced, gvk, validator, statusValidator, st, statusSub, scale, nil)
	ver := &Version{GVK: gvk, Namespaced: namespaced, Status: statusSub != nil, Plural: crd.Spec.Names.Plural, structural: st, strategy: main}
	if scale != nil {
		ver.Scale = &Scale{SpecReplicasPath: scale.SpecReplicasPath, StatusReplicasPath: scale.StatusReplicasPath}
		if scale.LabelSelectorPath != nil {
			ver.Scale.LabelSelectorPath = *scale.LabelSelectorPath
		}
	}
	if statusSub != nil {
		ver.status = customresource.NewStatusStrategy(main)
	}
	return ver, nil
}

// Has reports whether the set defines the group and kind, in any version.
func (s *Set) Has(gk schema.GroupKind) bool {
	_, ok := s.from[gk]
	return ok
}

// GVKs returns the group, version and kind of every served version,
// sorted, for convert.Options.Unstructured.
func (s *Set) GVKs() []schema.GroupVersionKind {
	var out []schema.GroupVersionKind
	for _, v := range s.Versions() {
		out = append(out, v.GVK)
	}
	return out
}

// Versions returns every served version, sorted by group, kind and version.
func (s *Set) Versions() []*Version {
	out := make([]*Version, 0, len(s.versions))
	for _, v := range s.versions {
		out = append(out, v)
	}
	slices.SortFunc(out, func(a, b *Version) int {
		return strings.Compare(a.GVK.String(), b.GVK.String())
	})
	return out
}
