package fuzzrun

import (
	"bufio"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReadLineBoundsALine: readLine returns whole lines without their
// newline, drops a line the end of the results cut short, and stops at
// maxResultLine with what it read.
func TestReadLineBoundsALine(t *testing.T) {
	r := bufio.NewReader(strings.NewReader("{\"job\":1}\n" + strings.Repeat("y", 5000) + "\ncut sh"))
	line, err := readLine(r)
	require.NoError(t, err)
	assert.Equal(t, `{"job":1}`, string(line))
	line, err = readLine(r)
	require.NoError(t, err)
	assert.Equal(t, strings.Repeat("y", 5000), string(line), "longer than the reader's buffer")
	_, err = readLine(r)
	assert.ErrorIs(t, err, io.EOF)

	r = bufio.NewReader(strings.NewReader(strings.Repeat("z", maxResultLine+1) + "\n"))
	line, err = readLine(r)
	assert.ErrorIs(t, err, errLineTooLong)
	assert.LessOrEqual(t, len(line), maxResultLine)
	assert.True(t, strings.HasPrefix(string(line), "zzz"))
}
