package controllerruntime_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"testing/synctest"

	crt "github.com/converge-sim/converge/controllerruntime"
	"github.com/converge-sim/converge/faults"
	"github.com/converge-sim/converge/model"
	"github.com/converge-sim/converge/properties"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/remotecommand"
	"k8s.io/client-go/util/exec"
	"k8s.io/streaming/pkg/httpstream"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
)

// dbPod is the pod the exec tests run commands in.
func dbPod() *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "db-0"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "db", Image: "postgres"}}}}
}

// executors builds each of client-go's executors, as operators do, for a
// pods/exec URL.
var executors = map[string]func(cfg *rest.Config, u *url.URL) (remotecommand.Executor, error){
	"spdy": func(cfg *rest.Config, u *url.URL) (remotecommand.Executor, error) {
		return remotecommand.NewSPDYExecutor(cfg, "POST", u)
	},
	"websocket": func(cfg *rest.Config, u *url.URL) (remotecommand.Executor, error) {
		return remotecommand.NewWebSocketExecutor(cfg, "GET", u.String())
	},
	"fallback": func(cfg *rest.Config, u *url.URL) (remotecommand.Executor, error) {
		ws, err := remotecommand.NewWebSocketExecutor(cfg, "GET", u.String())
		if err != nil {
			return nil, err
		}
		sp, err := remotecommand.NewSPDYExecutor(cfg, "POST", u)
		if err != nil {
			return nil, err
		}
		return remotecommand.NewFallbackExecutor(ws, sp, func(err error) bool {
			return httpstream.IsUpgradeFailure(err) || httpstream.IsHTTPSProxyError(err)
		})
	},
}

// execURL is the pods/exec URL of command in the db container of pod.
func execURL(cfg *rest.Config, pod string, opts corev1.PodExecOptions) (*url.URL, error) {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	opts.Container = "db"
	return cs.CoreV1().RESTClient().Post().Resource("pods").Namespace("default").Name(pod).SubResource("exec").
		VersionedParams(&opts, clientgoscheme.ParameterCodec).URL(), nil
}

// runExec runs command in pod db-0 with the executor kind, as an
// operator's unchanged code does, and returns what it read.
func runExec(ctx context.Context, cfg *rest.Config, kind string, command ...string) (stdout, stderr string, err error) {
	u, err := execURL(cfg, "db-0", corev1.PodExecOptions{Command: command, Stdout: true, Stderr: true})
	if err != nil {
		return "", "", err
	}
	ex, err := executors[kind](cfg, u)
	if err != nil {
		return "", "", err
	}
	var out, errs strings.Builder
	err = ex.StreamWithContext(ctx, remotecommand.StreamOptions{Stdout: &out, Stderr: &errs})
	return out.String(), errs.String(), err
}

// shell is the scenario's exec hook of the tests: a few commands, each a
// function of its arguments.
func shell(calls *[]string) crt.ExecFunc {
	return func(_ context.Context, pod client.ObjectKey, container string, command []string) (crt.ExecResult, error) {
		if calls != nil {
			*calls = append(*calls, pod.String()+"/"+container+": "+strings.Join(command, " "))
		}
		switch command[0] {
		case "hostname":
			return crt.ExecResult{Stdout: pod.Name + "\n", Stderr: "note: from the model\n"}, nil
		case "role":
			return crt.ExecResult{Stdout: "primary\n"}, nil
		case "exit":
			return crt.ExecResult{Stdout: "partial\n", Stderr: "failing\n", ExitCode: 3}, nil
		}
		return crt.ExecResult{}, fmt.Errorf("%s: executable file not found in $PATH", command[0])
	}
}

// TestExecStreamsTheHooksOutput: client-go's SPDY, WebSocket and fallback
// executors built from mgr.GetConfig() read the hook's stdout and stderr;
// a non-zero exit code is client-go's exec.CodeExitError; a command the
// hook cannot run is the error of Stream, naming the pod and the command.
func TestExecStreamsTheHooksOutput(t *testing.T) {
	var calls []string
	kinds := []string{"spdy", "websocket", "fallback"}
	withConfig(t, crt.ManagerOptions{Exec: shell(&calls)}, []client.Object{dbPod()}, func(ctx context.Context, cfg *rest.Config) {
		for _, kind := range kinds {
			stdout, stderr, err := runExec(ctx, cfg, kind, "hostname", "-s")
			require.NoError(t, err, kind)
			assert.Equal(t, "db-0\n", stdout, kind)
			assert.Equal(t, "note: from the model\n", stderr, kind)

			stdout, stderr, err = runExec(ctx, cfg, kind, "exit")
			var exit exec.CodeExitError
			require.ErrorAs(t, err, &exit, kind)
			assert.Equal(t, 3, exit.Code, kind)
			assert.Equal(t, "partial\n", stdout, kind)
			assert.Equal(t, "failing\n", stderr, kind)

			_, _, err = runExec(ctx, cfg, kind, "psql", "-c", "select 1")
			require.Error(t, err, kind)
			assert.Contains(t, err.Error(), `exec of "psql -c select 1" in pod default/db-0 (container "db") failed: psql: executable file not found`, kind)
			assert.False(t, errors.As(err, &exit), "a command that cannot run has no exit code: %v", err)
		}
	})
	want := []string{}
	for range kinds {
		want = append(want, "default/db-0/db: hostname -s", "default/db-0/db: exit", "default/db-0/db: psql -c select 1")
	}
	assert.Equal(t, want, calls, "each exec calls the hook once")
}

// TestExecRefusals: without a hook, an exec is an error naming the pod and
// the command, with each executor; an exec in a pod the API server does
// not have is NotFound; stdin and plain (not upgraded) requests are
// refused with errors naming them.
func TestExecRefusals(t *testing.T) {
	withConfig(t, crt.ManagerOptions{}, []client.Object{dbPod()}, func(ctx context.Context, cfg *rest.Config) {
		for kind := range executors {
			_, _, err := runExec(ctx, cfg, kind, "pg_isready", "-q")
			require.Error(t, err, kind)
			assert.Contains(t, err.Error(), `exec of "pg_isready -q" in pod default/db-0`, kind)
			assert.Contains(t, err.Error(), "ManagerOptions.Exec", kind)
		}
	})
	withConfig(t, crt.ManagerOptions{Exec: shell(nil)}, []client.Object{dbPod()}, func(ctx context.Context, cfg *rest.Config) {
		u, err := execURL(cfg, "missing", corev1.PodExecOptions{Command: []string{"hostname"}, Stdout: true})
		require.NoError(t, err)
		ex, err := remotecommand.NewSPDYExecutor(cfg, "POST", u)
		require.NoError(t, err)
		err = ex.StreamWithContext(ctx, remotecommand.StreamOptions{Stdout: &bytes.Buffer{}})
		require.Error(t, err)
		assert.Contains(t, err.Error(), `pods "missing" not found`)

		u, err = execURL(cfg, "db-0", corev1.PodExecOptions{Command: []string{"cat"}, Stdin: true, Stdout: true})
		require.NoError(t, err)
		ex, err = remotecommand.NewSPDYExecutor(cfg, "POST", u)
		require.NoError(t, err)
		err = ex.StreamWithContext(ctx, remotecommand.StreamOptions{Stdin: strings.NewReader("x"), Stdout: &bytes.Buffer{}})
		require.Error(t, err)
		assert.Contains(t, err.Error(), "asks for stdin")

		cs, err := kubernetes.NewForConfig(cfg)
		require.NoError(t, err)
		err = cs.CoreV1().RESTClient().Post().Resource("pods").Namespace("default").Name("db-0").SubResource("exec").
			VersionedParams(&corev1.PodExecOptions{Command: []string{"hostname"}, Stdout: true}, clientgoscheme.ParameterCodec).Do(ctx).Error()
		assert.True(t, apierrors.IsBadRequest(err), "%v", err)
		assert.Contains(t, err.Error(), "upgraded connection")
	})
}

// TestExecInABubble: the executors work inside a testing/synctest bubble,
// as every run of crt.Check executes; the bubble ends with every
// goroutine remotecommand started, and the exec server's goroutines are
// none of its own (synctest.Test fails otherwise).
func TestExecInABubble(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		withConfig(t, crt.ManagerOptions{Exec: shell(nil)}, []client.Object{dbPod()}, func(ctx context.Context, cfg *rest.Config) {
			for _, kind := range []string{"spdy", "websocket", "fallback"} {
				stdout, _, err := runExec(ctx, cfg, kind, "hostname")
				require.NoError(t, err, kind)
				assert.Equal(t, "db-0\n", stdout, kind)
				_, _, err = runExec(ctx, cfg, kind, "exit")
				var exit exec.CodeExitError
				require.ErrorAs(t, err, &exit, kind)
				assert.Equal(t, 3, exit.Code, kind)
			}
		})
	})
}

// roleLabeler asks pod db-0 for its role with an exec, as an operator of
// a database does, and labels ConfigMap "a" with the answer; an exec
// that fails is retried.
type roleLabeler struct {
	cfg      *rest.Config
	cl       client.Client
	executor string
}

func (r *roleLabeler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	if req.Name != "a" {
		return ctrl.Result{}, nil
	}
	var cm corev1.ConfigMap
	if err := r.cl.Get(ctx, req.NamespacedName, &cm); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	u, err := execURL(r.cfg, "db-0", corev1.PodExecOptions{Command: []string{"role"}, Stdout: true})
	if err != nil {
		return ctrl.Result{}, err
	}
	ex, err := executors[r.executor](r.cfg, u)
	if err != nil {
		return ctrl.Result{}, err
	}
	var out bytes.Buffer
	if err := ex.StreamWithContext(ctx, remotecommand.StreamOptions{Stdout: &out}); err != nil {
		return ctrl.Result{}, err
	}
	role := strings.TrimSpace(out.String())
	if cm.Labels["role"] == role {
		return ctrl.Result{}, nil
	}
	base := cm.DeepCopy()
	if cm.Labels == nil {
		cm.Labels = map[string]string{}
	}
	cm.Labels["role"] = role
	return ctrl.Result{}, r.cl.Patch(ctx, &cm, client.MergeFrom(base))
}

// labelled is the roleLabeler's goal.
func labelled(ctx context.Context, r client.Reader) []model.Unmet {
	var cm corev1.ConfigMap
	if err := r.Get(ctx, client.ObjectKey{Namespace: "default", Name: "a"}, &cm); err != nil {
		return []model.Unmet{{Message: err.Error()}}
	}
	if cm.Labels["role"] != "primary" {
		return []model.Unmet{{Object: model.Ref{Kind: "ConfigMap", Namespace: "default", Name: "a"}, Message: "not labelled with the role the pod gave"}}
	}
	return nil
}

func roleScenario(t *testing.T, executor string) properties.Scenario {
	conv := clientgoConverter(t)
	return properties.Scenario{
		Name: "role-" + executor,
		Build: func(cfg model.Config) (*model.Cluster, error) {
			c := model.NewCluster(cfg)
			mgr, err := crt.NewManager(c, conv, crt.ManagerOptions{Exec: shell(nil)})
			if err != nil {
				return nil, err
			}
			err = mgr.Setup(func(m manager.Manager) error {
				return ctrl.NewControllerManagedBy(m).For(&corev1.ConfigMap{}).
					Complete(&roleLabeler{cfg: m.GetConfig(), cl: m.GetClient(), executor: executor})
			}, crt.SetupOptions{Goals: map[string]crt.GoalFunc{"configmap": labelled}})
			if err != nil {
				return nil, err
			}
			return c, mgr.Apply(dbPod(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "a"}})
		},
	}
}

// TestExecReconcilerUnderFaults: a reconciler that acts on an exec's
// output, with the SPDY executor and with the fallback one, reaches its
// goal under faults, every run inside a bubble (crt.Check).
func TestExecReconcilerUnderFaults(t *testing.T) {
	for _, executor := range []string{"spdy", "fallback"} {
		t.Run(executor, func(t *testing.T) {
			crt.Check(t, roleScenario(t, executor), faults.Mix{faults.KindAPIError, faults.KindPartition, faults.KindRestart, faults.KindDrop})
		})
	}
}

// TestExecPartitionStrikes: a partition strikes an exec's upgrade
// request, as it strikes any call, before the hook runs: the trace names
// the pod's read that failed, and the reconciler retries. (Injected API
// errors strike writes only, and the model serves an exec as a read of
// its pod.) The first of 30 fixed seeds whose run has the partition
// strike it is kept.
func TestExecPartitionStrikes(t *testing.T) {
	for seed := range uint64(30) {
		res, err := properties.Search(roleScenario(t, "spdy"), faults.Mix{faults.KindPartition}, properties.SearchOptions{Test: t, Checks: 1, Seed: seed + 1})
		require.NoError(t, err)
		require.Nil(t, res.Counterexample)
		var b strings.Builder
		require.NoError(t, res.Passed.Cluster.Trace().WriteText(&b))
		for line := range strings.SplitSeq(b.String(), "\n") {
			if strings.Contains(line, "read Pod default/db-0 failed") && strings.Contains(line, "cannot reach the API server (partition)") {
				t.Logf("seed %d: %s", seed+1, line)
				return
			}
		}
	}
	t.Fatal("no run of 30 seeds had a partition strike an exec")
}

// TestExecScenarioReplaysByteForByte: the same seed gives the same trace
// for a reconciler that execs, with each executor, inside a bubble.
func TestExecScenarioReplaysByteForByte(t *testing.T) {
	mix := faults.Mix{faults.KindAPIError, faults.KindPartition, faults.KindRestart, faults.KindDrop}
	for _, executor := range []string{"spdy", "fallback"} {
		for seed := range uint64(3) {
			var traces []string
			for range 2 {
				res, err := properties.Search(roleScenario(t, executor), mix, properties.SearchOptions{Test: t, Checks: 1, Seed: seed + 1, Wrap: properties.InBubble(t)})
				require.NoError(t, err)
				require.Nil(t, res.Counterexample)
				require.NotNil(t, res.Passed)
				var b strings.Builder
				require.NoError(t, res.Passed.Cluster.Trace().WriteText(&b))
				traces = append(traces, b.String())
			}
			assert.Equal(t, traces[0], traces[1], "%s, seed %d", executor, seed+1)
			assert.Contains(t, traces[0], "Pod default/db-0", "the exec's read of the pod is in the trace")
		}
	}
}
