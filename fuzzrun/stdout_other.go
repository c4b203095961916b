//go:build !unix

package fuzzrun

import (
	"errors"
	"os"
)

// redirectStdout cannot move descriptors here: privateStdout then moves
// only os.Stdout.
func redirectStdout() (*os.File, func(), error) {
	return nil, nil, errors.New("no dup2 on this system")
}

// inheritedFile returns the descriptor fd this process inherited.
func inheritedFile(fd int, name string) *os.File {
	return os.NewFile(uintptr(fd), name)
}
