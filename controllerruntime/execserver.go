package controllerruntime

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/remotecommand"
	"k8s.io/klog/v2"
	"k8s.io/streaming/pkg/httpstream"
	"k8s.io/streaming/pkg/httpstream/spdy"
	"k8s.io/streaming/pkg/httpstream/wsstream"
)

// The exec protocol on a loopback socket.
//
// pods/exec is the one request of the model's API served over a socket:
// client-go's remotecommand executors read a command's streams from a
// connection they dial themselves (docs/design.md, "The model's API over
// HTTP, in-process"). The outcome is decided in the reconcile, by the
// scenario's ExecFunc (exec.go); the server here only writes it back, with
// Kubernetes' own server-side protocol libraries: the SPDY response
// upgrader (remotecommand v4 and v5 over SPDY) and wsstream (the
// WebSocket v5 protocol of NewWebSocketExecutor and NewFallbackExecutor).
//
// Runs live in testing/synctest bubbles, and a bubble must end with every
// goroutine it started. So the server's goroutines are never started by a
// caller: execLoop is begun at package init, outside any bubble, and waits
// for the listener the first exec opens; the accept loop and the
// per-connection goroutines are its children.

// execOutcome is the answer the scenario gave to one pods/exec.
type execOutcome struct {
	// stdout, stderr are what the command wrote; wantStdout, wantStderr
	// say which of them the request asked for.
	stdout, stderr         string
	wantStdout, wantStderr bool
	// code is the command's exit code.
	code int
	// failure, when set, is why the command could not run; the caller
	// sees it as the error of its Stream.
	failure string
}

// status is the metav1.Status the error stream carries: success, a
// non-zero exit code (which client-go returns as exec.CodeExitError), or
// the failure.
func (o *execOutcome) status() metav1.Status {
	s := metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: metav1.StatusSuccess}
	switch {
	case o.failure != "":
		s.Status, s.Reason, s.Message = metav1.StatusFailure, metav1.StatusReasonInternalError, o.failure
	case o.code != 0:
		s.Status, s.Reason = metav1.StatusFailure, remotecommand.NonZeroExitCodeReason
		s.Message = fmt.Sprintf("command terminated with non-zero exit code: %d", o.code)
		s.Details = &metav1.StatusDetails{Causes: []metav1.StatusCause{
			{Type: remotecommand.ExitCodeCauseType, Message: strconv.Itoa(o.code)}}}
	}
	return s
}

// write writes the outcome to the streams the client opened (nil for one
// it did not) and closes them: stdout, stderr, then the status on the
// error stream, which client-go reads last.
func (o *execOutcome) write(stdout, stderr, errs io.WriteCloser) {
	for _, w := range []struct {
		to   io.WriteCloser
		text string
	}{{stdout, o.stdout}, {stderr, o.stderr}} {
		if w.to != nil {
			_, _ = io.WriteString(w.to, w.text)
			_ = w.to.Close()
		}
	}
	if errs != nil {
		b, _ := json.Marshal(o.status())
		_, _ = errs.Write(b)
		_ = errs.Close()
	}
}

// execServer serves the outcomes decided in reconciles to the executors
// that dial it, each once, under a token on the loopback URL.
type execServer struct {
	start chan net.Listener

	mu      sync.Mutex
	addr    string
	next    uint64
	pending map[string]*execOutcome
}

// execSrv is the process's one exec server; its loop is begun at init,
// outside any bubble.
var execSrv = &execServer{start: make(chan net.Listener, 1), pending: map[string]*execOutcome{}}

func init() { go execSrv.loop() }

// loop waits for the first exec to open the listener, then serves it.
func (s *execServer) loop() {
	ln := <-s.start
	_ = (&http.Server{Handler: s, ReadHeaderTimeout: streamWait}).Serve(ln)
}

// address returns the listener's host:port, opening it on the first call.
// The calling goroutine opens it (a listen starts no goroutine) and hands
// it to loop through a channel made at init: no bubble's channel or
// goroutine is involved.
func (s *execServer) address() (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.addr != "" {
		return s.addr, nil
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("the exec server cannot listen on the loopback interface: %w", err)
	}
	s.addr = ln.Addr().String()
	s.start <- ln
	return s.addr, nil
}

// put holds o for one connection and returns its token.
func (s *execServer) put(o *execOutcome) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.next++
	token := strconv.FormatUint(s.next, 10)
	s.pending[token] = o
	return token
}

// take returns the outcome held under token and forgets it.
func (s *execServer) take(token string) (*execOutcome, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	o, ok := s.pending[token]
	delete(s.pending, token)
	return o, ok
}

// execPath is the path of the loopback URL, before the token.
const execPath = "/exec/"

// streamWait bounds the wait for the streams a request asked for (a client
// that asked for stdout but opens no stdout stream) and for a request's
// headers. It is wall time, in the server's goroutines, outside any bubble.
const streamWait = 30 * time.Second

// ServeHTTP serves one upgraded exec connection. The protocol libraries
// log through the request's logger, which discards: the end of each
// connection is an error to them ("use of closed network connection"),
// and the test's output is no place for it.
func (s *execServer) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	req = req.WithContext(klog.NewContext(req.Context(), logr.Discard()))
	o, ok := s.take(strings.TrimPrefix(req.URL.Path, execPath))
	if !strings.HasPrefix(req.URL.Path, execPath) || !ok {
		http.Error(w, "converge's exec server holds no outcome for "+req.URL.Path, http.StatusNotFound)
		return
	}
	if wsstream.IsWebSocketRequest(req) {
		serveWebSocket(w, req, o)
		return
	}
	serveSPDY(w, req, o)
}

// execProtocols are the remotecommand protocols served: v5 and v4 carry
// the exit code as a metav1.Status on the error stream.
var execProtocols = []string{remotecommand.StreamProtocolV5Name, remotecommand.StreamProtocolV4Name}

// serveWebSocket writes o over a WebSocket connection: channel 1 stdout,
// 2 stderr, 3 the status; closing the connection ends the client's
// streams.
func serveWebSocket(w http.ResponseWriter, req *http.Request, o *execOutcome) {
	channels := []wsstream.ChannelType{wsstream.ReadChannel, wsstream.WriteChannel, wsstream.WriteChannel, wsstream.WriteChannel, wsstream.ReadChannel}
	protocols := map[string]wsstream.ChannelProtocolConfig{}
	for _, p := range execProtocols {
		protocols[p] = wsstream.ChannelProtocolConfig{Binary: true, Channels: channels}
	}
	conn := wsstream.NewConn(protocols)
	_, streams, err := conn.Open(w, req)
	if err != nil {
		return // the handshake failed, and answered so
	}
	defer func() { _ = conn.Close() }()
	o.write(wanted(o.wantStdout, streams[1]), wanted(o.wantStderr, streams[2]), streams[3])
}

// wanted returns s if the request asked for it.
func wanted(want bool, s io.WriteCloser) io.WriteCloser {
	if want {
		return s
	}
	return nil
}

// serveSPDY writes o over a SPDY connection, on the streams the client
// opens (the error stream, stdout and stderr as asked), then waits for the
// client to hang up.
func serveSPDY(w http.ResponseWriter, req *http.Request, o *execOutcome) {
	if _, err := httpstream.Handshake(req, w, execProtocols); err != nil {
		return // Handshake answered
	}
	type arrival struct {
		stream  httpstream.Stream
		replied <-chan struct{}
	}
	arrivals := make(chan arrival, 8)
	conn := spdy.NewResponseUpgrader().UpgradeResponse(w, req, func(st httpstream.Stream, replied <-chan struct{}) error {
		select {
		case arrivals <- arrival{st, replied}:
			return nil
		default:
			return fmt.Errorf("too many streams for one exec")
		}
	})
	if conn == nil {
		return // UpgradeResponse answered
	}
	defer func() { _ = conn.Close() }()
	want := map[string]bool{corev1.StreamTypeError: true, corev1.StreamTypeStdout: o.wantStdout, corev1.StreamTypeStderr: o.wantStderr}
	streams := map[string]httpstream.Stream{}
	timeout := time.NewTimer(streamWait)
	defer timeout.Stop()
wait:
	for len(streams) < count(want) {
		select {
		case a := <-arrivals:
			select {
			case <-a.replied:
			case <-conn.CloseChan():
				return
			}
			if kind := a.stream.Headers().Get(corev1.StreamType); want[kind] {
				streams[kind] = a.stream
			}
		case <-timeout.C:
			break wait
		case <-conn.CloseChan():
			return
		}
	}
	o.write(stream(streams, corev1.StreamTypeStdout), stream(streams, corev1.StreamTypeStderr), stream(streams, corev1.StreamTypeError))
	<-conn.CloseChan()
}

// count is the number of true values of m.
func count(m map[string]bool) int {
	n := 0
	for _, v := range m {
		if v {
			n++
		}
	}
	return n
}

// stream returns the stream of kind, or nil (not a nil Stream in an
// interface) if the client opened none.
func stream(streams map[string]httpstream.Stream, kind string) io.WriteCloser {
	if s, ok := streams[kind]; ok {
		return s
	}
	return nil
}
