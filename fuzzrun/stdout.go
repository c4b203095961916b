package fuzzrun

import (
	"io"
	"os"
)

// Output that user code prints never reaches the campaign's own stdout
// (docs/design.md, "Workers and their output"). A controller may print
// with fmt.Println, or through a logger that captured os.Stdout when its
// package initialized; among -json events or a -trace-json trace either
// would garble them. So while Run runs with the process's stdout, the
// process's stdout descriptor (fd 1) points at stderr, and Run writes its
// own output through a descriptor it duplicated from stdout before. Worker
// processes get stderr as their stdout from the campaign, and the
// protocol on descriptors of their own (worker.go).

// privateStdout moves the process's stdout aside if stdout is it: it
// returns the writer Run writes its output to, and a function that puts
// stdout back. Any other writer is returned as it is.
func privateStdout(stdout io.Writer) (io.Writer, func()) {
	if f, ok := stdout.(*os.File); !ok || f != os.Stdout {
		return stdout, func() {}
	}
	out, restore, err := redirectStdout()
	if err != nil {
		// The descriptors cannot be moved: keep at least Go code's
		// os.Stdout off the output.
		os.Stdout = os.Stderr
		return stdout, func() { os.Stdout = stdout.(*os.File) }
	}
	return out, restore
}
