// Package examples holds the input campaigns of issue 35's measure of
// quietness for the controller-runtime examples of the controllerruntime
// module, in its tests: memcached and cronjob (their own scenarios, goal
// and user included, since their reconcilers are internal to their
// packages), gateway and kvstore (their fixed operators, with the inputs
// their worlds draw) and schemaops' Batch (its goal included), each with
// state transitions of its custom resource drawn from its CRD
// (crt.Inputs) and judged by the history-dependent oracle; see
// operators/QUIET.md.
package examples
