package fuzzrun

import "syscall"

// dup2 makes newfd a copy of oldfd; Linux on arm64 and riscv64 has only
// dup3.
func dup2(oldfd, newfd int) error { return syscall.Dup3(oldfd, newfd, 0) }
