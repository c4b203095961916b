// Package fuzzruntest checks a project's fuzzrun campaign from its own
// tests: it runs the project's test binary, made fuzzrun by
// fuzzrun.MainTest, as a real subprocess, and replays the findings of a
// campaign through it to require that each replays byte for byte.
//
//	func TestFuzzrun(t *testing.T) { fuzzrun.MainTest(t, campaign...) }
//
//	func TestCampaignReplays(t *testing.T) {
//		bin := fuzzruntest.Self(t, "TestFuzzrun")
//		fuzzruntest.RequireCampaignReplays(t, bin, "-runs", "20", "-workers", "2")
//	}
package fuzzruntest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Binary is a test binary whose test Test calls fuzzrun.MainTest.
type Binary struct {
	// Path is the binary's file.
	Path string
	// Test is the name of the test that calls fuzzrun.MainTest, as
	// TestFuzzrun.
	Test string
}

// Build builds the test binary of the package pkg (a go test package
// argument, "." for the calling test's own) into a temporary directory of
// t, with go test -c (without vet: the go test that runs the caller has
// vetted the package), and returns it with test as its MainTest test.
func Build(t testing.TB, pkg, test string) Binary {
	t.Helper()
	path := filepath.Join(t.TempDir(), "fuzzrun.test")
	cmd := exec.Command("go", "test", "-c", "-vet=off", "-o", path, pkg)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "go test -c -vet=off -o %s %s:\n%s", path, pkg, out)
	return Binary{Path: path, Test: test}
}

// Self returns the running test binary, with test as its MainTest test:
// already built, and the same program Build would build for the calling
// test's package.
func Self(t testing.TB, test string) Binary {
	t.Helper()
	path, err := os.Executable()
	require.NoError(t, err)
	return Binary{Path: path, Test: test}
}

// Result is what a run of the binary did.
type Result struct {
	// Args are fuzzrun's arguments, those after "--".
	Args []string
	// Code is the exit code: fuzzrun.ExitOK, ExitUnexpected, …
	Code   int
	Stdout string
	Stderr string
}

// String renders the run for a failure message.
func (r Result) String() string {
	return fmt.Sprintf("fuzzrun %s: exit code %d\nstdout:\n%s\nstderr:\n%s", strings.Join(r.Args, " "), r.Code, clip(r.Stdout), clip(r.Stderr))
}

// clip keeps the end of a long output, where the verdict is.
func clip(s string) string {
	const most = 8 << 10
	if len(s) <= most {
		return s
	}
	return "…" + s[len(s)-most:]
}

// Run runs the binary as fuzzrun with args (fuzzrun's flags), as a real
// subprocess: b.Path -test.run '^Test$' -- args. A binary that cannot be
// started, or that ends other than by exiting, fails t.
func Run(t testing.TB, b Binary, args ...string) Result {
	t.Helper()
	require.NotEmpty(t, b.Test, "fuzzruntest: the binary's MainTest test is not named")
	cmdArgs := append([]string{"-test.run", "^" + regexp.QuoteMeta(b.Test) + "$", "--"}, args...)
	cmd := exec.Command(b.Path, cmdArgs...)
	cmd.Env = slices.DeleteFunc(os.Environ(), func(kv string) bool {
		return strings.HasPrefix(kv, "CONVERGE_FUZZRUN_")
	})
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	res := Result{Args: args, Stdout: stdout.String(), Stderr: stderr.String()}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit) && exit.Exited():
		res.Code = exit.ExitCode()
	case err != nil:
		require.NoError(t, err, "running %s as fuzzrun: %s", b.Path, res)
	}
	return res
}

// Findings lists the finding files of a campaign's -out directory, in
// name order.
func Findings(t testing.TB, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "finding-*.json"))
	require.NoError(t, err)
	slices.Sort(files)
	return files
}

// Replay is one replay of a finding: the run, and its timeline page
// (-html).
type Replay struct {
	Result
	Page []byte
}

// ReplayTwice replays the finding file twice through the binary (-replay
// with -html), each time in a process of its own, and returns both.
func ReplayTwice(t testing.TB, b Binary, finding string) (first, second Replay) {
	t.Helper()
	page := filepath.Join(t.TempDir(), "replay.html")
	once := func() Replay {
		r := Replay{Result: Run(t, b, "-replay", finding, "-html", page)}
		data, err := os.ReadFile(page)
		if err == nil {
			r.Page = data
			require.NoError(t, os.Remove(page))
		}
		return r
	}
	return once(), once()
}

// RequireReplaysByteForByte replays every finding in the -out directory
// dir twice through the binary (ReplayTwice) and requires that each
// replay exits with fuzzrun.ExitOK (it fails as its row must) and that
// the two print the same report and trace and write the same timeline
// page, byte for byte, timestamps included; and that the page is the one
// the campaign wrote beside the finding, when there is one. It returns
// how many findings it replayed.
func RequireReplaysByteForByte(t testing.TB, b Binary, dir string) int {
	t.Helper()
	files := Findings(t, dir)
	for _, f := range files {
		first, second := ReplayTwice(t, b, f)
		require.Equal(t, 0, first.Code, "replay of %s: %s", f, first.Result)
		require.Equal(t, 0, second.Code, "second replay of %s: %s", f, second.Result)
		require.Equal(t, first.Stdout, second.Stdout, "two replays of %s print different output", f)
		require.NotEmpty(t, first.Page, "replay of %s wrote no timeline page: %s", f, first.Result)
		require.True(t, bytes.Equal(first.Page, second.Page), "two replays of %s write different timeline pages", f)
		if page, err := os.ReadFile(strings.TrimSuffix(f, ".json") + ".html"); err == nil {
			require.True(t, bytes.Equal(page, first.Page), "the replay of %s writes another timeline page than the campaign wrote beside it", f)
		}
	}
	return len(files)
}

// RequireCampaignReplays runs a campaign through the binary with args
// (fuzzrun's flags; -out and -json are added), requires that it exits 0
// (every row showed what it must), and replays its findings as
// RequireReplaysByteForByte does. It returns how many findings it
// replayed.
func RequireCampaignReplays(t testing.TB, b Binary, args ...string) int {
	t.Helper()
	dir := t.TempDir()
	res := Run(t, b, append(slices.Clip(args), "-out", dir, "-json")...)
	require.Equal(t, 0, res.Code, "the campaign: %s", res)
	return RequireReplaysByteForByte(t, b, dir)
}
