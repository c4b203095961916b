package controllerruntime

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// exec answers a pods/exec request with ManagerOptions.Exec.
//
// client-go's remotecommand executors (NewSPDYExecutor,
// NewWebSocketExecutor, NewFallbackExecutor) send the upgrade request
// through rest.Config.WrapTransport, so it reaches the model and the hook
// runs, synchronously, in the reconcile's step; but they read the
// command's streams from a connection they dial themselves with a
// net.Dialer that no field of rest.Config replaces, and the model opens
// no socket. So the executor's Stream always returns an error: the hook's
// own error when the command failed, and otherwise one that says the
// command ran and what it wrote. README.md, "Exec and logs", says what
// works.
func (t *restTransport) exec(ctx context.Context, pod client.ObjectKey, r *restRequest) error {
	container, command := first(r.query, "container"), r.query["command"]
	what := fmt.Sprintf("exec of %q in pod %s (container %q)", strings.Join(command, " "), pod, container)
	if t.opts.Exec == nil {
		return apierrors.NewBadRequest(what + ": the scenario answers no pods/exec: set ManagerOptions.Exec")
	}
	stdout, stderr, err := t.opts.Exec(ctx, pod, container, command)
	if err != nil {
		return &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: http.StatusInternalServerError,
			Reason: metav1.StatusReasonInternalError, Message: fmt.Sprintf("%s failed: %v", what, err)}}
	}
	return &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: http.StatusNotImplemented,
		Reason: metav1.StatusReasonInternalError, Message: fmt.Sprintf("%s ran in ManagerOptions.Exec and succeeded "+
			"(%d bytes of stdout, %d of stderr), but the model cannot stream them: remotecommand reads them over a connection it dials itself, "+
			"and the model serves no socket", what, len(stdout), len(stderr))}}
}
