package echo_test

import (
	"strings"
	"testing"

	"github.com/converge-sim/converge/internal/echo"
	"github.com/stretchr/testify/assert"
)

func TestQuote(t *testing.T) {
	assert.Equal(t, `"web"`, echo.Quote("web"))
	assert.Equal(t, `"a\nb"`, echo.Quote("a\nb"))
	assert.Equal(t, `"`+strings.Repeat("x", 80)+`"`, echo.Quote(strings.Repeat("x", 80)), "up to Max, whole")
	assert.Equal(t, `"`+strings.Repeat("x", 80)+`…" (1048576 bytes)`, echo.Quote(strings.Repeat("x", 1<<20)))
	// A cut inside a character backs off to its start.
	got := echo.Quote(strings.Repeat("x", 79) + "é" + strings.Repeat("y", 10))
	assert.Equal(t, `"`+strings.Repeat("x", 79)+`…" (91 bytes)`, got)
}

func TestClip(t *testing.T) {
	assert.Equal(t, "go run ./cmd/fuzzrun", echo.Clip("go run ./cmd/fuzzrun", 20))
	assert.Equal(t, "go run… (20 bytes)", echo.Clip("go run ./cmd/fuzzrun", 6))
}
