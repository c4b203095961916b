package fuzzrun

import (
	"io"
	"sync"
)

// lockedWriter serializes writes: worker subprocesses' stderr is copied
// into the campaign's stderr by goroutines of their own.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
