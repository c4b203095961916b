package timeline

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
)

// Run is what a page shows: one execution of a scenario.
type Run struct {
	// Title heads the page: scenario, fault mix, seed.
	Title string
	// Cluster is the cluster as the run left it. Its trace must have been
	// kept (not model.Config.DiscardTrace).
	Cluster *model.Cluster
	// Schedule is the fault schedule the run was given.
	Schedule faults.Schedule
	// QuietFrom is the step at which quiescence began; zero when the run
	// failed before it got there.
	QuietFrom int
	// Violation is the violated property; nil for a run that passed.
	Violation *Violation
	// Replay is the command that replays the run, shown under the title.
	Replay string

	_ struct{}
}

// Violation is a violated property as the page shows it: the fields of
// properties.Failure, which this package cannot import (properties writes
// pages).
type Violation struct {
	Property  string
	Verdict   string
	Summary   string
	Details   []string
	Diagnosis []string
	Step      int
	At        model.Time

	_ struct{}
}

//go:embed page.html
var pageHTML string

//go:embed page.css
var pageCSS string

//go:embed page.js
var pageJS string

// Write writes the page for run to w.
func Write(w io.Writer, run Run) error {
	if run.Cluster == nil {
		return errors.New("timeline: the run has no cluster")
	}
	if run.Cluster.Steps() > 0 && len(run.Cluster.Trace().Records) == 0 {
		return errors.New("timeline: the run kept no trace (model.Config.DiscardTrace)")
	}
	data, err := json.Marshal(build(run))
	if err != nil {
		return fmt.Errorf("timeline: %w", err)
	}
	// encoding/json escapes <, > and &, so the data cannot end the script
	// element it sits in.
	page := strings.NewReplacer(
		"{{title}}", htmlEscape(run.Title),
		"{{css}}", pageCSS,
		"{{js}}", pageJS,
		"{{data}}", string(data),
	).Replace(pageHTML)
	_, err = io.WriteString(w, page)
	return err
}

// WriteFile writes the page for run to path.
func WriteFile(path string, run Run) error {
	var b bytes.Buffer
	if err := Write(&b, run); err != nil {
		return err
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("timeline: %w", err)
	}
	return nil
}

func htmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}
