//go:build unix

package fuzzrun_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/converge-sim/converge/fuzzrun"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// buildFuzzrun builds cmd/fuzzrun into a temporary directory.
func buildFuzzrun(t *testing.T) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go tool to build cmd/fuzzrun: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "fuzzrun")
	out, err := exec.Command(goTool, "build", "-o", bin, "../cmd/fuzzrun").CombinedOutput()
	require.NoError(t, err, "go build:\n%s", out)
	return bin
}

// campaignProcess starts the binary and returns its command and a reader
// of its -json events.
func campaignProcess(t *testing.T, bin string, args ...string) (*exec.Cmd, *bufio.Scanner) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 1<<24)
	return cmd, sc
}

// next reads events until one of type typ, and returns it.
func next(t *testing.T, sc *bufio.Scanner, typ string) map[string]any {
	t.Helper()
	for sc.Scan() {
		var ev map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &ev), sc.Text())
		if ev["type"] == typ {
			return ev
		}
	}
	t.Fatalf("no %q event before the output ended (%v)", typ, sc.Err())
	return nil
}

// TestAKilledCampaignLeavesOnlyCompleteFindings kills a campaign with
// SIGKILL while it is finding and rewriting findings: every finding file
// it leaves parses, and every one it announced is there.
func TestAKilledCampaignLeavesOnlyCompleteFindings(t *testing.T) {
	bin := buildFuzzrun(t)
	dir := t.TempDir()
	cmd, events := campaignProcess(t, bin, "-json", "-scenario", "replicaset-edge", "-duration", "10m", "-workers", "2", "-out", dir)
	announced, rewrites := map[string]bool{}, 0
	for len(announced) < 2 || rewrites < 1 {
		ev := next(t, events, "finding")
		announced[ev["file"].(string)] = true
		if ev["new"] == false {
			rewrites++ // the count of a file went up: it was written again
		}
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	err := cmd.Wait()
	var exit *exec.ExitError
	require.True(t, errors.As(err, &exit), "%v", err)
	assert.Equal(t, "signal: killed", exit.Error())

	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	findings := 0
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		if strings.HasPrefix(e.Name(), ".tmp-finding-") {
			continue // a write the kill interrupted, never renamed into place
		}
		if strings.HasPrefix(e.Name(), "finding-") && strings.HasSuffix(e.Name(), ".html") {
			continue // a finding's timeline page
		}
		require.True(t, strings.HasPrefix(e.Name(), "finding-") && strings.HasSuffix(e.Name(), ".json"), "stray file %s", e.Name())
		_, err := fuzzrun.ReadFinding(path)
		assert.NoError(t, err)
		findings++
	}
	for path := range announced {
		_, err := fuzzrun.ReadFinding(path)
		assert.NoError(t, err, "announced finding %s", path)
	}
	assert.GreaterOrEqual(t, findings, len(announced))
}

// TestASignalStopsTheCampaignAndPrintsTheSummary: a campaign sent
// SIGTERM (a deleted pod), SIGINT (Ctrl-C) or SIGHUP (a closed terminal or
// CI session) stops starting runs, lets those in flight finish, stops its
// workers, prints its summary and exits with a code CI can read (issue
// 37, item 10: SIGHUP).
func TestASignalStopsTheCampaignAndPrintsTheSummary(t *testing.T) {
	bin := buildFuzzrun(t)
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd, events := campaignProcess(t, bin, "-json", "-scenario", "replicaset-edge", "-duration", "10m", "-workers", "2")
			next(t, events, "finding")
			workers := children(t, cmd.Process.Pid)
			require.Len(t, workers, 2, "the campaign's worker processes")
			require.NoError(t, cmd.Process.Signal(sig))
			summary := next(t, events, "summary")
			assert.Equal(t, true, summary["interrupted"])
			assert.Positive(t, summary["runs"])
			assert.False(t, events.Scan(), "the summary is the last line")
			err := cmd.Wait()
			code := 0
			var exit *exec.ExitError
			if errors.As(err, &exit) {
				code = exit.ExitCode()
			}
			assert.Contains(t, []int{fuzzrun.ExitOK, fuzzrun.ExitUnexpected, fuzzrun.ExitNotShown}, code, "exited by itself, not by the signal: %v", err)
			assert.InDelta(t, code, summary["exit_code"], 0)
			for _, pid := range workers {
				// Gone, and reaped by the campaign: not even a zombie
				// left to init.
				assert.ErrorIs(t, syscall.Kill(pid, 0), syscall.ESRCH, "worker %d outlived the campaign", pid)
			}
		})
	}
}

// TestSIGQUITDumpsStacksAndExitsTwo: SIGQUIT is left to the Go runtime,
// as docs/ci.md says: the campaign prints every goroutine's stack and
// exits 2 at once, without a summary (issue 37, item 10).
func TestSIGQUITDumpsStacksAndExitsTwo(t *testing.T) {
	bin := buildFuzzrun(t)
	cmd := exec.Command(bin, "-json", "-scenario", "replicaset-edge", "-duration", "10m", "-workers", "2")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	events := bufio.NewScanner(stdout)
	events.Buffer(nil, 1<<24)
	next(t, events, "finding")
	require.NoError(t, cmd.Process.Signal(syscall.SIGQUIT))
	for events.Scan() {
		assert.NotContains(t, events.Text(), `"type":"summary"`)
	}
	err = cmd.Wait()
	var exit *exec.ExitError
	require.True(t, errors.As(err, &exit), "%v", err)
	assert.Equal(t, fuzzrun.ExitUsage, exit.ExitCode())
	assert.Contains(t, stderr.String(), "SIGQUIT: quit")
	assert.Contains(t, stderr.String(), "goroutine ")
}

// children returns the processes whose parent is pid, from /proc.
func children(t *testing.T, pid int) []int {
	t.Helper()
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	require.NoError(t, err)
	if len(stats) == 0 {
		t.Skip("no /proc to find the campaign's workers in")
	}
	var kids []int
	for _, path := range stats {
		data, err := os.ReadFile(path)
		if err != nil {
			continue // a process that ended meanwhile
		}
		// pid (comm) state ppid …; comm may hold spaces and parentheses.
		s := string(data)
		fields := strings.Fields(s[strings.LastIndex(s, ")")+1:])
		if len(fields) < 2 || fields[1] != strconv.Itoa(pid) {
			continue
		}
		child, err := strconv.Atoi(filepath.Base(filepath.Dir(path)))
		require.NoError(t, err)
		kids = append(kids, child)
	}
	return kids
}

// TestExhaustiveShowsDepthsOnATerminal runs an exploration under script(1),
// which gives it a terminal: each row shows the depths it finishes on one
// rewritten line, which its result then replaces. Through a pipe the same
// command writes no such line.
func TestExhaustiveShowsDepthsOnATerminal(t *testing.T) {
	scriptTool, err := exec.LookPath("script")
	if err != nil {
		t.Skipf("no script(1) to give the binary a terminal: %v", err)
	}
	bin := buildFuzzrun(t)
	args := []string{"-strategy", "exhaustive", "-scenario", "replicaset-edge", "-faults", "delay", "-depth", "2", "-workers", "1"}
	cmd := exec.Command(scriptTool, "-qec", bin+" "+strings.Join(args, " "), "/dev/null")
	out, err := cmd.Output()
	require.NoError(t, err, "%s", out)
	const guarantee = "replicaset-edge: no counterexample with ≤1 fault (delay) and ≤2 decisions ("
	assert.Contains(t, string(out), "\rreplicaset-edge [delay]: exploring depth 1…\x1b[K"+
		"\rreplicaset-edge [delay]: depth 1 of 2 explored (70 states, 14 executions, ")
	assert.Contains(t, string(out), "s); exploring depth 2…\x1b[K\rreplicaset-edge [delay]: depth 2 of 2 explored (236 states, 71 executions, ")
	assert.Contains(t, string(out), "s)\x1b[K\r\x1b[K"+guarantee)

	piped, err := exec.Command(bin, args...).Output()
	require.NoError(t, err, "%s", piped)
	assert.True(t, strings.HasPrefix(string(piped), guarantee), "%s", piped)
	assert.NotContains(t, string(piped), "\r")
}
