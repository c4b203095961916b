// Package cputime reads the process's CPU time, which the benchmarks report
// per op beside the wall clock ("cpu-ns/op"): on a shared machine the wall
// clock also counts the time the process waits for a CPU (BENCHMARKS.md,
// "How to measure").
package cputime
