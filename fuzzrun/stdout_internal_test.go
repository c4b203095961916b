//go:build unix

package fuzzrun

import (
	"fmt"
	"io"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPrivateStdoutMovesWhatElseIsPrinted: while stdout is private, what
// the caller writes through the returned writer goes to stdout, what
// anything else writes to os.Stdout goes to stderr; restore puts stdout
// back. Stdout and stderr are pipes here, in place of fds 1 and 2.
func TestPrivateStdoutMovesWhatElseIsPrinted(t *testing.T) {
	outR, outW, err := os.Pipe()
	require.NoError(t, err)
	errR, errW, err := os.Pipe()
	require.NoError(t, err)
	saved, savedErr := os.Stdout, os.Stderr
	os.Stdout, os.Stderr = outW, errW
	defer func() { os.Stdout, os.Stderr = saved, savedErr }()

	w, restore := privateStdout(os.Stdout)
	require.NotSame(t, outW, w, "a copy of stdout")
	fmt.Fprintln(w, "the campaign's")
	fmt.Println("a controller's")
	restore()
	fmt.Println("after")
	os.Stdout, os.Stderr = saved, savedErr
	require.NoError(t, outW.Close())
	require.NoError(t, errW.Close())

	out, err := io.ReadAll(outR)
	require.NoError(t, err)
	assert.Equal(t, "the campaign's\nafter\n", string(out))
	printed, err := io.ReadAll(errR)
	require.NoError(t, err)
	assert.Equal(t, "a controller's\n", string(printed))

	other, restore := privateStdout(io.Discard)
	restore()
	assert.Equal(t, io.Discard, other, "only the process's stdout is moved")
}
