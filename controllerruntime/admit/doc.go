// Package admit is the model API server's defaulting and validation of
// built-in kinds. Defaults fills the fields a real API server defaults
// (pod specs and templates, workloads, Services, claims, Secrets) before
// Builtin validates; Builtin is the part of a real API server's
// validation that answers what operators write: object names, labels and annotations, owner references and
// finalizers; pod specs (containers with a name and an image, ports,
// environment variable names, volumes and their mounts, resource
// quantities, restart policies); workload selectors and their match with
// the template's labels; Service ports; ConfigMap and Secret keys; and
// the fields Kubernetes fixes at creation. It uses the API's own
// libraries (k8s.io/apimachinery's validation packages and
// apiequality.Semantic) where they exist, and rewrites, small, the checks
// that live only in k8s.io/kubernetes, which cannot be required as a
// module. A rejection is Invalid, with one cause per field, sorted.
//
// What they cover and what they leave out is listed, field by field and
// check by check, in controllerruntime/README.md ("Validation of built-in
// kinds", "Defaults of built-in kinds").
//
// The controllerruntime package installs both, in this order, in every
// cluster it builds:
//
//	s.AddAdmission(admit.Defaults(conv))
//	s.AddAdmission(admit.Builtin(conv, namespaced))
package admit
