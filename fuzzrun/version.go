package fuzzrun

import (
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
)

// modulePath is converge's module path.
const modulePath = "github.com/converge-sim/converge"

// version returns the converge version this program was built with: the
// module version when converge is a dependency or was built from a
// version control checkout, with the VCS revision when there is one.
var version = sync.OnceValue(func() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := "(devel)"
	if bi.Main.Path == modulePath {
		v = bi.Main.Version
	} else {
		for _, d := range bi.Deps {
			if d.Path == modulePath {
				v = d.Version
				if d.Replace != nil {
					v += " => " + d.Replace.Path
				}
			}
		}
	}
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" && !strings.Contains(v, s.Value[:min(12, len(s.Value))]) {
			v += " (" + s.Value + ")"
		}
	}
	return v
})

// command returns how to run this program again: in a test binary that
// MainTest made fuzzrun, the binary as it was invoked with the test's
// -test.run and "--"; else programCommand.
func command() string {
	if c := testCommand.Load(); c != nil {
		return *c
	}
	return programCommand()
}

// testCommand is command in a test binary that MainTest made fuzzrun: set
// once, by MainTest, in a process that is then that test's fuzzrun.
var testCommand atomic.Pointer[string]

// programCommand returns how to run this program again from its module's
// root: "go run ./cmd/fuzzrun" for converge's own, "go run ./cmd/mine" for
// a user's program that calls Main. It falls back to converge's command
// when the build does not say (a test binary).
var programCommand = sync.OnceValue(func() string {
	const fallback = "go run ./cmd/fuzzrun"
	bi, ok := debug.ReadBuildInfo()
	if !ok || bi.Main.Path == "" || strings.HasSuffix(bi.Path, ".test") {
		return fallback
	}
	rel, ok := strings.CutPrefix(bi.Path, bi.Main.Path)
	if !ok || (rel != "" && !strings.HasPrefix(rel, "/")) {
		return fallback
	}
	return "go run ." + rel
})
