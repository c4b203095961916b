package controllerruntime_test

import (
	"testing"

	crt "github.com/converge-sim/converge/controllerruntime"
	"github.com/converge-sim/converge/controllerruntime/convert"
	"github.com/converge-sim/converge/controllerruntime/crd"
	"github.com/converge-sim/converge/properties"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
)

// poolCRD declares the list types and a quantity the oracle compares by:
// ports keyed by port and protocol, tags a set, hosts atomic, memory and
// the values of limits quantities.
const poolCRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: pools.sem.example.com
spec:
  group: sem.example.com
  names: {kind: Pool, listKind: PoolList, plural: pools, singular: pool}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              ports:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [port, protocol]
                items:
                  type: object
                  required: [port, protocol]
                  properties:
                    port: {type: integer}
                    protocol: {type: string}
              tags:
                type: array
                x-kubernetes-list-type: set
                items: {type: string}
              hosts:
                type: array
                x-kubernetes-list-type: atomic
                items: {type: string}
              memory:
                anyOf: [{type: integer}, {type: string}]
                x-kubernetes-int-or-string: true
                pattern: ^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$
              limits:
                type: object
                additionalProperties:
                  anyOf: [{type: integer}, {type: string}]
                  x-kubernetes-int-or-string: true
                  pattern: ^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$
              replicas:
                x-kubernetes-int-or-string: true
                anyOf: [{type: integer}, {type: string}]
          status:
            type: object
            properties:
              lastUpdateTime: {type: string, format: date-time}
              phase: {type: string}
              conditions:
                type: array
                items: &condition
                  type: object
                  required: [lastTransitionTime, message, reason, status, type]
                  properties:
                    lastTransitionTime: {type: string, format: date-time}
                    message: {type: string}
                    observedGeneration: {type: integer}
                    reason: {type: string}
                    status: {type: string}
                    type: {type: string}
              atomicConditions:
                type: array
                x-kubernetes-list-type: atomic
                items: *condition
`

// semanticsWorld returns the semantics of the built-in kinds and of Pool,
// served unstructured (its model Spec holds "spec.ports").
func semanticsWorld(t *testing.T) properties.Semantics {
	t.Helper()
	crds := crd.NewSet()
	require.NoError(t, crds.Add("pools.yaml", []byte(poolCRD)))
	conv, err := convert.New(clientgoscheme.Scheme, convert.Options{Unstructured: []schema.GroupVersionKind{{Group: "sem.example.com", Version: "v1", Kind: "Pool"}}})
	require.NoError(t, err)
	return crt.Semantics(crds, conv)
}

// TestCustomResourceListsAndQuantitiesFollowTheCRD: a CRD's list types
// decide how its lists compare, and its quantities compare by value.
func TestCustomResourceListsAndQuantitiesFollowTheCRD(t *testing.T) {
	sem := semanticsWorld(t)
	assert.Equal(t, []string{"port", "protocol"}, sem.List("Pool", "spec.spec.ports").Keys)
	assert.True(t, sem.List("Pool", "spec.spec.tags").Set)
	assert.Equal(t, properties.ListType{}, sem.List("Pool", "spec.spec.hosts"), "atomic: by position")
	assert.Equal(t, properties.ListType{}, sem.List("Pool", "spec.spec.nowhere"))
	assert.Equal(t, "2", sem.Value("Pool", "spec.spec.memory", "2000m"))
	assert.Equal(t, "2", sem.Value("Pool", "spec.spec.memory", int64(2)), "an integer quantity is the same value")
	assert.Equal(t, "1Gi", sem.Value("Pool", "spec.spec.limits.memory", "1024Mi"), "a map's values")
	assert.Equal(t, "2000m", sem.Value("Pool", "spec.spec.replicas", "2000m"), "int-or-string without the quantity pattern is no quantity")
	assert.Equal(t, "lots", sem.Value("Pool", "spec.spec.memory", "lots"), "a value that is no quantity is left as written")
}

// TestConditionsAreKeyedByType: a list of metav1.Condition with no list
// type (as many CRDs declare status.conditions) compares by type, as
// meta.SetStatusCondition keeps it; one declared atomic stays by position.
func TestConditionsAreKeyedByType(t *testing.T) {
	sem := semanticsWorld(t)
	assert.Equal(t, []string{"type"}, sem.List("Pool", "status.conditions").Keys)
	assert.Equal(t, properties.ListType{}, sem.List("Pool", "status.atomicConditions"), "declared atomic: by position")
}

// TestBuiltInListKeysComeFromStructuredMergeDiff: a built-in kind's lists
// are keyed as its structured-merge-diff schema says, and its
// resource.Quantity fields compare by value.
func TestBuiltInListKeysComeFromStructuredMergeDiff(t *testing.T) {
	sem := semanticsWorld(t)
	for _, tc := range []struct {
		kind, path string
		want       []string
	}{
		{"Service", "spec.ports", []string{"port", "protocol"}},
		{"Deployment", "spec.template.spec.containers", []string{"name"}},
		{"Deployment", "spec.template.spec.containers[*].env", []string{"name"}},
		{"Deployment", "spec.template.spec.containers[*].volumeMounts", []string{"mountPath"}},
		{"Deployment", "spec.template.spec.volumes", []string{"name"}},
		{"StatefulSet", "spec.template.spec.containers[*].ports", []string{"containerPort", "protocol"}},
		{"Deployment", "spec.template.spec.containers[*].args", nil},
		{"ConfigMap", "spec.data", nil},
	} {
		assert.Equal(t, tc.want, sem.List(tc.kind, tc.path).Keys, "%s %s", tc.kind, tc.path)
	}
	assert.True(t, sem.List("Pod", "spec.tolerations").Keys == nil && !sem.List("Pod", "spec.tolerations").Set, "atomic")
	assert.True(t, sem.List("Deployment", "metadata.finalizers").Keys == nil)
	assert.Equal(t, "2", sem.Value("Deployment", "spec.template.spec.containers[*].resources.limits.cpu", "2000m"))
	assert.Equal(t, "2000m", sem.Value("Deployment", "spec.template.spec.containers[*].image", "2000m"), "not a quantity")
	assert.Equal(t, "1Gi", sem.Value("PersistentVolumeClaim", "spec.resources.requests.storage", "1024Mi"))
}

// TestTimesCompareAsSet: a time (format date-time in a CRD, metav1.Time in
// a built-in kind) records when a history passed, so every value of one
// compares the same; other strings compare as written.
func TestTimesCompareAsSet(t *testing.T) {
	sem := semanticsWorld(t)
	a := sem.Value("Pool", "status.lastUpdateTime", "2026-01-01T00:00:10Z")
	b := sem.Value("Pool", "status.lastUpdateTime", "2026-01-01T00:03:20Z")
	assert.Equal(t, a, b, "two times of one field")
	assert.Equal(t, "Ready", sem.Value("Pool", "status.phase", "Ready"))
	assert.Equal(t, sem.Value("Job", "status.startTime", "2026-01-01T00:00:10Z"), sem.Value("Job", "status.startTime", "2026-01-01T00:01:00Z"))
	assert.Equal(t, "app:v1", sem.Value("Job", "spec.template.spec.containers[*].image", "app:v1"))
}
