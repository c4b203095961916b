// Package convert maps typed Kubernetes objects, registered in a
// runtime.Scheme, to converge's model.Object and back, so that the model's
// API server can store them with Kubernetes semantics: a generation that
// moves with the spec only, no-op updates that write nothing, and per-field
// diffs in traces.
//
// # Representation
//
//   - Kind: the model kind is the object's Kind alone ("ReplicaSet"). A Kind
//     the scheme has in several groups stands for the core group, or else
//     the group with the most mature version (apps/v1 over
//     extensions/v1beta1); Options.Prefer pins another.
//   - Metadata maps field by field: name, generateName, namespace, uid,
//     resourceVersion (a decimal string; "" is 0, unconditional),
//     generation, labels, finalizers, ownerReferences, and the creation
//     and deletion timestamps (virtual time t is Epoch + t·Tick).
//   - Annotations travel as labels whose key starts with
//     model.AnnotationLabelPrefix ("annotation:"). The model treats them as
//     metadata, as Kubernetes treats annotations: written by Update,
//     ignored by UpdateStatus, no generation bump. Traces, edits and
//     rivals name them metadata.annotations.KEY.
//   - Spec: for a kind whose body (outside metadata and status) is exactly
//     a spec, the spec's fields, flattened, are the model Spec: the path
//     "replicas" is spec.replicas, "template.spec.containers[0].image" is
//     spec.template.spec.containers[0].image. For any other kind
//     (ConfigMap, Secret, ServiceAccount) the whole body is flattened with
//     its top-level names: `data["config.yaml"]`, "type". The model bumps
//     generation when any of it changes.
//   - Status: the status's fields, flattened, are the model Status.
//
// A path joins object keys with dots and list indices in brackets; a key
// that is not made of letters, digits, '-' and '_' is quoted:
// `nodeSelector["kubernetes.io/os"]`. Leaves are int64, string or bool.
// Values a model field cannot hold are kept by a marker that ends the path:
// "resources{}" is an empty object, "ports[]" an empty list,
// "args[1](null)" a null list element, "ratio(float)" a non-integral
// number held as its shortest decimal string.
//
// # Lossy edges
//
// Each is exact for what a typed Go object can tell apart, or is what a
// real API server does too, unless said otherwise.
//
//   - A null object field is dropped: a typed object cannot tell it from an
//     absent one. An empty spec or status is dropped likewise.
//   - An integral float becomes an integer in the model and a float again
//     in the typed object.
//   - Resource quantities and timestamps travel as their JSON strings:
//     a quantity comes back in canonical form ("0.1" as "100m"), a
//     timestamp at second precision, as from a real API server.
//   - Owner references keep kind, name, uid, controller and
//     blockOwnerDeletion. apiVersion comes back as the version this
//     converter gives the kind (empty for a kind the scheme lacks), and
//     controller=false and blockOwnerDeletion=false come back unset.
//   - deletionGracePeriodSeconds, managedFields and selfLink are dropped:
//     the model has no graceful deletion, and the controllerruntime
//     package keeps managed fields beside the model.
//   - Unstructured objects convert like typed ones: an object of a kind
//     with a Go type has the same model form either way. A kind without
//     one (Options.Unstructured) keeps its whole body but status as the
//     Spec, with its top-level names ("spec.replicas"), and every value a
//     model field can hold; a null is dropped as for typed objects.
package convert
