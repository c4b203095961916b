package convert

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// jsonPieces are the pieces TestScanMergePatch builds patches from: JSON's
// tokens, numbers of every form, strings with escapes, control
// characters and bytes that are not UTF-8, and spaces.
var jsonPieces = rapid.SampledFrom([]string{"{", "}", "[", "]", ":", ",", `"a"`, `"spec"`, `"replicas"`, `"é"`,
	`"a\"b"`, `"\u00e9"`, "\"\x01\"", "\"\xff\"", `"`, "0", "1", "-1", "-0", "01", "1.0", "1e3", "-", "99999999999999999999",
	"true", "false", "null", "nul", " ", "\n", "\t", "x"})

// TestScanMergePatch: where scanMergePatch reads a patch, encoding/json's
// reading (decodeMergePatch) gives the same, for patches marshalled from
// random values and for random sequences of JSON's pieces; and it reads
// the plain ones.
func TestScanMergePatch(t *testing.T) {
	var marshalled, scanned int
	rapid.Check(t, func(t *rapid.T) {
		m := map[string]any{}
		for range rapid.IntRange(0, 3).Draw(t, "keys") {
			m[patchKeys.Draw(t, "key")] = drawPatchValue(t, 0)
		}
		data, err := json.Marshal(m)
		require.NoError(t, err)
		switch rapid.IntRange(0, 2).Draw(t, "form") {
		case 0:
			marshalled++
		case 1:
			// One piece spliced in, over a few of the bytes.
			i := rapid.IntRange(0, len(data)).Draw(t, "at")
			j := min(len(data), i+rapid.IntRange(0, 3).Draw(t, "over"))
			data = []byte(string(data[:i]) + jsonPieces.Draw(t, "piece") + string(data[j:]))
		default:
			data = []byte(strings.Join(rapid.SliceOfN(jsonPieces, 0, 12).Draw(t, "pieces"), ""))
		}
		got, ok := scanMergePatch(data)
		if !ok {
			return
		}
		scanned++
		want, wantOK := decodeMergePatch(data)
		require.True(t, wantOK, "scanned %q, which encoding/json's reading declines", data)
		require.Equal(t, want, got, "%q", data)
	})
	assert.Greater(t, scanned, marshalled/2, "plain patches are scanned")
	for _, plain := range []string{`{"spec":{"replicas":3}}`, `{}`, ` {"metadata":{"labels":{"a":null}},"spec":{"x":[1,"b",null,{}]}} `} {
		m, ok := scanMergePatch([]byte(plain))
		assert.True(t, ok, plain)
		want, _ := decodeMergePatch([]byte(plain))
		assert.Equal(t, want, m, plain)
	}
}

// TestScanMergePatchLeavesTheRestToEncodingJSON: what encoding/json
// refuses, reads otherwise, or reads in a way the fast path declines,
// scanMergePatch leaves to it.
func TestScanMergePatchLeavesTheRestToEncodingJSON(t *testing.T) {
	for _, data := range []string{`{"a":01}`, `{"a":-01}`, `{"a":1.0}`, `{"a":1e3}`, `{"a":1E3}`, `{"a":-}`, `{"a":99999999999999999999}`,
		`{"a":"\u00e9"}`, `{"a":"\n"}`, "{\"a\":\"\x01\"}", "{\"a\":\"\xff\"}", `{"a":1,"a":2}`, `{"a":[{"b":null}]}`,
		`{"a":[[{"b":{"c":null}}]]}`, `{"a":1} x`, `{"a":1}{}`, `[1]`, `null`, `{"a":nul}`, `{"a":tru}`, `{"a" 1}`, `{"a":1,}`,
		`{,}`, `{"a":[1,]}`, `{"a":"b}`, `{"a":1`, `{a:1}`, "\ufeff{}", ``,
		strings.Repeat(`{"a":`, maxScanDepth+2) + "1" + strings.Repeat(`}`, maxScanDepth+2)} {
		_, ok := scanMergePatch([]byte(data))
		assert.False(t, ok, "%q", data)
	}
}
