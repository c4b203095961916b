//go:build unix

package fuzzrun

import (
	"fmt"
	"os"
	"syscall"
)

// redirectStdout duplicates fd 1 to a new descriptor, for the caller's
// output, and points fd 1 at stderr (fd 2), where what anything else in
// this process writes to os.Stdout then goes. restore points fd 1 back.
func redirectStdout() (out *os.File, restore func(), err error) {
	// Under ForkLock, so that no process started meanwhile inherits it.
	syscall.ForkLock.RLock()
	fd, err := syscall.Dup(syscall.Stdout)
	if err == nil {
		syscall.CloseOnExec(fd)
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return nil, nil, fmt.Errorf("duplicating stdout: %w", err)
	}
	if err := dup2(syscall.Stderr, syscall.Stdout); err != nil {
		_ = syscall.Close(fd)
		return nil, nil, fmt.Errorf("pointing stdout at stderr: %w", err)
	}
	out = os.NewFile(uintptr(fd), os.Stdout.Name())
	restore = func() {
		_ = dup2(fd, syscall.Stdout)
		_ = out.Close()
	}
	return out, restore, nil
}

// inheritedFile returns the descriptor fd this process inherited, closed
// on exec so that no process it starts holds it too.
func inheritedFile(fd int, name string) *os.File {
	syscall.CloseOnExec(fd)
	return os.NewFile(uintptr(fd), name)
}
