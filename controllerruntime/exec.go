package controllerruntime

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/streaming/pkg/httpstream"
	"k8s.io/streaming/pkg/httpstream/wsstream"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// ExecResult is what a command run by an ExecFunc wrote, and its exit code.
type ExecResult struct {
	// Stdout and Stderr are what the command wrote to each stream.
	Stdout, Stderr string
	// ExitCode is the command's exit status, 0 to 255; a non-zero one
	// reaches the caller of remotecommand's Stream as client-go's
	// exec.CodeExitError with this Code.
	ExitCode int
}

// ExecFunc answers a pods/exec request: the command run in a container of
// a pod the API server has. It returns what the command wrote and its exit
// code, or an error when the command could not run at all (no such
// container or executable): the caller's Stream returns that error's
// message. The scenario declares it with ManagerOptions.Exec; it is
// called in the reconcile's goroutine, in its step, before the executor
// opens its streams, so it must be a function of its arguments and the
// model's state for a run to replay. The command's stdin is not given to
// it, for that reason: a request that asks for stdin or a TTY is refused
// with an error naming it.
type ExecFunc func(ctx context.Context, pod client.ObjectKey, container string, command []string) (ExecResult, error)

// upgradeTransport is what the model's rest.Config makes of an upgrading
// round tripper (remotecommand's SPDY or WebSocket one) it is asked to
// wrap: requests are answered in-process, except that an exec's upgrade,
// once the model has answered it, is passed to the upgrader, addressed to
// the loopback exec server (execserver.go).
type upgradeTransport struct {
	t       *restTransport
	upgrade http.RoundTripper
}

// RoundTrip answers req in-process; an exec goes on to the exec server.
// An answer that is not an upgrade is returned to a WebSocket executor as
// an upgrade failure, as client-go's own WebSocket round tripper returns a
// refused handshake (NewFallbackExecutor then tries its SPDY executor).
func (u *upgradeTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := u.t.roundTrip(req, u.upgrade)
	if err != nil || resp.StatusCode == http.StatusSwitchingProtocols || !isWebSocket(req) {
		return resp, err
	}
	defer func() { _ = resp.Body.Close() }()
	return nil, &httpstream.UpgradeFailureError{Cause: responseError(resp)}
}

// isWebSocket reports whether req is a WebSocket executor's upgrade: it
// names its subprotocols before its round tripper dials.
func isWebSocket(req *http.Request) bool {
	return wsstream.IsWebSocketRequest(req) || len(req.Header.Values(wsstream.WebSocketProtocolHeader)) > 0
}

// responseError is the API error a model's Status response carries.
func responseError(resp *http.Response) error {
	st, ok := decodeStatus(resp)
	if !ok {
		return fmt.Errorf("the model answered the exec with %s", resp.Status)
	}
	return &apierrors.StatusError{ErrStatus: st}
}

// exec answers a pods/exec request: ManagerOptions.Exec decides the
// outcome here, in the reconcile's goroutine and step, and the upgrade
// request then goes on to the loopback exec server, which streams the
// outcome back to the executor. This is the one request the model serves
// over a socket: remotecommand's executors read the streams from a
// connection they dial themselves with a net.Dialer that no field of
// rest.Config replaces (docs/design.md, "The model's API over HTTP,
// in-process").
func (t *restTransport) exec(ctx context.Context, pod client.ObjectKey, r *restRequest) (int, any, error) {
	container, command := first(r.query, "container"), r.query["command"]
	what := fmt.Sprintf("exec of %q in pod %s (container %q)", strings.Join(command, " "), pod, container)
	switch {
	case t.opts.Exec == nil:
		return 0, nil, apierrors.NewBadRequest(what + ": the scenario answers no pods/exec: set ManagerOptions.Exec")
	case r.upgrade == nil:
		return 0, nil, apierrors.NewBadRequest(what + ": an exec streams its output over an upgraded connection; " +
			"send it with client-go's remotecommand executors (NewSPDYExecutor, NewWebSocketExecutor, NewFallbackExecutor)")
	case isTrue(r.query, "stdin"):
		return 0, nil, apierrors.NewBadRequest(what + ": asks for stdin, which ManagerOptions.Exec is not given (see ExecFunc)")
	case isTrue(r.query, "tty"):
		return 0, nil, apierrors.NewBadRequest(what + ": asks for a TTY, which the model does not serve")
	}
	res, err := t.opts.Exec(ctx, pod, container, command)
	o := &execOutcome{stdout: res.Stdout, stderr: res.Stderr, code: res.ExitCode,
		wantStdout: isTrue(r.query, "stdout"), wantStderr: isTrue(r.query, "stderr")}
	switch {
	case err != nil:
		o.failure = fmt.Sprintf("%s failed: %v", what, err)
	case res.ExitCode < 0 || res.ExitCode > 255:
		o.failure = fmt.Sprintf("%s: ManagerOptions.Exec returned exit code %d, outside 0 to 255", what, res.ExitCode)
	}
	resp, err := forward(r.upgrade, r.req, o)
	if err != nil {
		return 0, nil, apierrors.NewInternalError(fmt.Errorf("%s: %w", what, err))
	}
	return 0, resp, nil
}

// isTrue reports whether the query sets key to true, as the API server
// reads PodExecOptions.
func isTrue(q map[string][]string, key string) bool {
	v := first(q, key)
	return v == "true" || v == "1"
}

// forward sends the executor's upgrade request to the exec server through
// the executor's own round tripper, which dials it, and returns the
// server's upgrade.
func forward(up http.RoundTripper, req *http.Request, o *execOutcome) (*http.Response, error) {
	addr, err := execSrv.address()
	if err != nil {
		return nil, err
	}
	token := execSrv.put(o)
	defer execSrv.take(token) // forget it if the server never asked
	fwd := req.Clone(req.Context())
	fwd.URL = &url.URL{Scheme: "http", Host: addr, Path: execPath + token, RawQuery: req.URL.RawQuery}
	fwd.Host, fwd.Body, fwd.ContentLength = "", nil, 0
	return up.RoundTrip(fwd)
}

// decodeStatus reads the metav1.Status a model's error response carries.
func decodeStatus(resp *http.Response) (metav1.Status, bool) {
	var st metav1.Status
	b, err := io.ReadAll(resp.Body)
	if err != nil || json.Unmarshal(b, &st) != nil || st.Kind != "Status" {
		return metav1.Status{}, false
	}
	return st, true
}
