//go:build unix

package fuzzrun

import (
	"fmt"
	"os"
	"syscall"
)

// redirectStdout duplicates os.Stdout's descriptor (fd 1, unless a
// program replaced os.Stdout) to a new one, for the caller's output, and
// points it at os.Stderr's, where what anything else in this process
// writes to it then goes. restore points it back.
func redirectStdout() (out *os.File, restore func(), err error) {
	stdout, stderr := int(os.Stdout.Fd()), int(os.Stderr.Fd())
	// Under ForkLock, so that no process started meanwhile inherits it.
	syscall.ForkLock.RLock()
	fd, err := syscall.Dup(stdout)
	if err == nil {
		syscall.CloseOnExec(fd)
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return nil, nil, fmt.Errorf("duplicating stdout: %w", err)
	}
	if err := dup2(stderr, stdout); err != nil {
		_ = syscall.Close(fd)
		return nil, nil, fmt.Errorf("pointing stdout at stderr: %w", err)
	}
	out = os.NewFile(uintptr(fd), os.Stdout.Name())
	restore = func() {
		_ = dup2(fd, stdout)
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
