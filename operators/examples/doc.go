// Package examples holds the input campaigns of issue 35's measure of
// quietness for the controller-runtime examples of the controllerruntime
// module (examples/memcached, examples/cronjob; examples/gateway,
// examples/kvstore and the Batch of examples/schemaops, fixed), in its
// tests: their
// scenarios as they are, with state transitions of their custom resource
// drawn from their CRDs (crt.Inputs), judged by the history-dependent
// oracle. Their reconcilers are internal to their packages, so the
// campaigns run their own scenarios, goal and user included; see
// operators/QUIET.md.
package examples
