package properties

import (
	"errors"
	"flag"
	"fmt"
	"hash/maphash"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// testSeed is the seed a search inside a Go test starts from: the
// -rapid.seed flag (or RAPID_SEED) when it is set, since the printed
// replay line sets it; else seed; else one drawn now, so that both
// searches of one bug, one finding start from the same, printable seed.
func testSeed(seed uint64) (uint64, error) {
	f := flag.Lookup("rapid.seed")
	if f == nil {
		return 0, errors.New("rapid flag -rapid.seed is not registered")
	}
	flagSeed, err := strconv.ParseUint(f.Value.String(), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("-rapid.seed: %w", err)
	}
	for _, s := range []uint64{flagSeed, seed, new(maphash.Hash).Sum64()} {
		if s != 0 {
			return s, nil
		}
	}
	return 1, nil
}

// goTestLine is the go test command, run from the module root, that runs
// the test named name (t.Name(): subtests are elements of -run's pattern)
// in the package whose directory the test runs in, as go test runs every
// test binary.
func goTestLine(name string) (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("the replay line needs the test's package directory: %w", err)
	}
	pkg, err := packageFromModuleRoot(dir)
	if err != nil {
		return "", err
	}
	elems := strings.Split(name, "/")
	for i, e := range elems {
		elems[i] = "^" + regexp.QuoteMeta(e) + "$"
	}
	return fmt.Sprintf("go test %s -run %s", pkg, shellQuote(strings.Join(elems, "/"))), nil
}

// packageFromModuleRoot returns dir as a go test package argument
// relative to the root of the module holding it (the nearest directory
// above with a go.mod): "." or "./sub/pkg".
func packageFromModuleRoot(dir string) (string, error) {
	for root := dir; ; {
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
			rel, err := filepath.Rel(root, dir)
			if err != nil {
				return "", err
			}
			if rel == "." {
				return ".", nil
			}
			return "./" + filepath.ToSlash(rel), nil
		}
		parent := filepath.Dir(root)
		if parent == root {
			return "", fmt.Errorf("the replay line needs the test's module: no go.mod in %s or above", dir)
		}
		root = parent
	}
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
