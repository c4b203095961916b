package model

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// This file is a small datadriven runner in the style of etcd-io/raft's
// testdata scripts. A script is a text file of test cases separated by
// blank lines:
//
//	# a comment (any line starting with '#', outside a case)
//	command arg key=value ...
//	----
//	expected output, one or more lines (none when the command prints nothing)
//
// A case ends at the first blank line or at the end of the file, so
// output never contains a blank line. The runner hands each command to a
// driver and compares what it returns with the expected output; a mismatch
// is reported with the file and line of the command and a line diff.
//
// go test ./model -run TestScripts -rewrite rewrites the expected outputs
// in place from what the driver returns, keeping comments and commands.

var rewrite = flag.Bool("rewrite", false, "rewrite the expected outputs of model/testdata scripts")

// scriptCase is one command of a script with its expected output.
type scriptCase struct {
	line int // of the command, 1-based
	cmd  string
	args []string
	want string
}

// scriptChunk is either verbatim text (comments and blank lines, kept on
// rewrite) or a case.
type scriptChunk struct {
	text string
	tc   *scriptCase
}

// parseScript splits a script into chunks. A command not followed by
// "----" is an error naming its line.
func parseScript(name, src string) ([]scriptChunk, error) {
	lines := strings.Split(strings.TrimSuffix(src, "\n"), "\n")
	var chunks []scriptChunk
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if strings.TrimSpace(l) == "" || strings.HasPrefix(l, "#") {
			chunks = append(chunks, scriptChunk{text: l})
			continue
		}
		fields := strings.Fields(l)
		tc := &scriptCase{line: i + 1, cmd: fields[0], args: fields[1:]}
		if i+1 >= len(lines) || lines[i+1] != "----" {
			return nil, fmt.Errorf("%s:%d: command %q is not followed by a line \"----\"", name, i+1, l)
		}
		i += 2
		var want []string
		for ; i < len(lines) && lines[i] != ""; i++ {
			want = append(want, lines[i])
		}
		tc.want = strings.Join(want, "\n")
		chunks = append(chunks, scriptChunk{tc: tc})
		if i < len(lines) {
			chunks = append(chunks, scriptChunk{text: ""}) // the blank line that ended the case
		}
	}
	return chunks, nil
}

// runScripts runs every file matching pattern, each in a subtest with a
// fresh driver from newDriver. A driver returns a command's output; it
// reports bad input in the output itself, as "error: ...".
func runScripts(t *testing.T, pattern string, newDriver func(t *testing.T) func(tc *scriptCase) string) {
	files, err := filepath.Glob(pattern)
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts match %s (%v)", pattern, err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txt"), func(t *testing.T) {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			got, diffs, err := checkScript(file, string(src), newDriver(t))
			if err != nil {
				t.Fatal(err)
			}
			if !*rewrite {
				for _, d := range diffs {
					t.Error(d)
				}
				return
			}
			if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// checkScript runs the script src (from file) with run. It returns the
// script with every expected output replaced by the actual one, and a
// report with file:line and a diff for each case whose output differs.
func checkScript(file, src string, run func(tc *scriptCase) string) (string, []string, error) {
	chunks, err := parseScript(file, src)
	if err != nil {
		return "", nil, err
	}
	var out strings.Builder
	var diffs []string
	for _, ch := range chunks {
		if ch.tc == nil {
			out.WriteString(ch.text + "\n")
			continue
		}
		got := strings.TrimRight(run(ch.tc), "\n")
		if strings.Contains(got, "\n\n") {
			return "", nil, fmt.Errorf("%s:%d: output has a blank line, which a script cannot hold:\n%s", file, ch.tc.line, got)
		}
		out.WriteString(strings.Join(append([]string{ch.tc.cmd}, ch.tc.args...), " ") + "\n----\n")
		if got != "" {
			out.WriteString(got + "\n")
		}
		if got != ch.tc.want {
			diffs = append(diffs, fmt.Sprintf("%s:%d: %s: output differs (-want +got):\n%s", file, ch.tc.line, ch.tc.cmd, lineDiff(ch.tc.want, got)))
		}
	}
	return out.String(), diffs, nil
}

// lineDiff renders a minimal line diff of want and got: "-" for lines only
// in want, "+" for lines only in got, " " for lines in both.
func lineDiff(want, got string) string {
	a, b := strings.Split(want, "\n"), strings.Split(got, "\n")
	// lcs[i][j] is the longest common subsequence of a[i:] and b[j:].
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var d strings.Builder
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			d.WriteString("  " + a[i] + "\n")
			i, j = i+1, j+1
		case i < len(a) && (j == len(b) || lcs[i+1][j] >= lcs[i][j+1]):
			d.WriteString("- " + a[i] + "\n")
			i++
		default:
			d.WriteString("+ " + b[j] + "\n")
			j++
		}
	}
	return d.String()
}

func TestParseScript(t *testing.T) {
	chunks, err := parseScript("x.txt", "# c\nstart a=1\n----\nout 1\nout 2\n\nnoout\n----\n")
	if err != nil {
		t.Fatal(err)
	}
	var cases []scriptCase
	for _, ch := range chunks {
		if ch.tc != nil {
			cases = append(cases, *ch.tc)
		}
	}
	want := []scriptCase{{line: 2, cmd: "start", args: []string{"a=1"}, want: "out 1\nout 2"}, {line: 7, cmd: "noout", want: ""}}
	if fmt.Sprint(cases) != fmt.Sprint(want) {
		t.Fatalf("parsed %v, want %v", cases, want)
	}
	if _, err := parseScript("x.txt", "# c\nstart\nout\n"); err == nil || !strings.Contains(err.Error(), "x.txt:2:") {
		t.Fatalf("a command without ---- must be an error naming its line, got %v", err)
	}
	if d := lineDiff("a\nb\nc", "a\nx\nc"); d != "  a\n- b\n+ x\n  c\n" {
		t.Fatalf("diff:\n%s", d)
	}
}

func TestCheckScript(t *testing.T) {
	echo := func(tc *scriptCase) string { return strings.Join(tc.args, "\n") }
	src := "# keep me\n\necho a b\n----\na\nc\n\necho\n----\n"
	got, diffs, err := checkScript("x.txt", src, echo)
	if err != nil {
		t.Fatal(err)
	}
	if want := "# keep me\n\necho a b\n----\na\nb\n\necho\n----\n"; got != want {
		t.Fatalf("rewritten script:\n%q\nwant\n%q", got, want)
	}
	if want := []string{"x.txt:3: echo: output differs (-want +got):\n  a\n- c\n+ b\n"}; fmt.Sprint(diffs) != fmt.Sprint(want) {
		t.Fatalf("diffs %q, want %q", diffs, want)
	}
	if _, diffs, _ := checkScript("x.txt", got, echo); len(diffs) != 0 {
		t.Fatalf("a rewritten script must pass, got %q", diffs)
	}
	blank := func(*scriptCase) string { return "a\n\nb" }
	if _, _, err := checkScript("x.txt", "echo\n----\n", blank); err == nil || !strings.Contains(err.Error(), "x.txt:1:") {
		t.Fatalf("output with a blank line must be an error naming its line, got %v", err)
	}
}
