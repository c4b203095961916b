package fuzzrun

import (
	"bytes"
	"io"
	"strings"
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

// crashLines bounds the stack a crash finding keeps.
const crashLines = 40

// cause is why a worker died, as its stderr tells: the first fatal line
// (a Go fatal error or unrecovered panic, or the worker's own
// out-of-memory line) and the trimmed stack of the goroutine that follows.
type cause struct {
	fatal string
	stack []string
	// oom is set when the worker ran out of memory.
	oom bool
}

// crashLog watches a worker's stderr for the cause of its death. The Go
// runtime prints the fatal line first and then every goroutine's stack,
// thousands of lines that bury it; crashLog keeps the line and the first
// goroutine's stack. It is reset at each job, so that a line user code
// printed earlier is not taken for the cause.
type crashLog struct {
	mu      sync.Mutex
	partial []byte
	c       cause
	// done is set once the first goroutine's stack has ended.
	done bool
}

// fatalPrefixes start the lines that say why a Go process died.
var fatalPrefixes = []string{"fatal error:", "panic:", "runtime: out of memory", "fatal: morestack", "runtime: goroutine stack exceeds"}

func (l *crashLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.partial = append(l.partial, p...)
	for {
		i := bytes.IndexByte(l.partial, '\n')
		if i < 0 {
			break
		}
		l.line(string(l.partial[:i]))
		l.partial = l.partial[i+1:]
	}
	if len(l.partial) > 4096 {
		l.partial = l.partial[:0] // a line that long explains nothing
	}
	return len(p), nil
}

func (l *crashLog) line(s string) {
	switch {
	case l.c.fatal == "":
		for _, p := range fatalPrefixes {
			if strings.HasPrefix(s, p) {
				l.c.fatal = s
				l.c.oom = strings.Contains(s, "out of memory")
			}
		}
	case l.done || len(l.c.stack) >= crashLines:
	case s == "" && len(l.c.stack) > 0 && strings.HasPrefix(l.c.stack[0], "goroutine "):
		l.done = true
	case s == "" && len(l.c.stack) == 0:
	case strings.HasPrefix(s, "goroutine ") || len(l.c.stack) > 0:
		l.c.stack = append(l.c.stack, s)
	default:
		// Lines between the fatal line and the first stack ("fatal
		// error: out of memory" after "runtime: out of memory", say).
		l.c.oom = l.c.oom || strings.Contains(s, "out of memory")
	}
}

// reset forgets what was seen.
func (l *crashLog) reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.partial, l.c, l.done = l.partial[:0], cause{}, false
}

// cause returns what was seen.
func (l *crashLog) cause() cause {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.c
}
