package controllerruntime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The model's API server over HTTP, in-process.
//
// A project's mgr.GetConfig() and mgr.GetHTTPClient() reach the model
// through restTransport, an http.RoundTripper that answers each request
// synchronously, in the caller's goroutine, with no socket (an exec's
// streams excepted, exec.go): it parses the request as the API server's
// router would, makes the call through the controller's own client (reads from the API server, not the cache;
// writes through the controller's writer, so that a partition, an injected
// API error or a restart strikes them as it strikes GetClient's calls, and
// the trace names them), and writes the answer as the API server's JSON,
// errors as metav1.Status with their HTTP code. docs/design.md,
// "controller-runtime adapter", and README.md, "client-go over the model",
// say what is served.

// modelHost is the host of the model's rest.Config: it names no machine,
// and nothing dials it.
const modelHost = "https://converge-model.invalid"

// restTransport serves the model's API over HTTP semantics.
type restTransport struct {
	cl    *modelClient
	opts  *ManagerOptions
	kinds *resourceTable
}

var _ http.RoundTripper = (*restTransport)(nil)

// restConfig returns a rest.Config served by t. Every client-go path from
// a config to a transport uses it: rest.HTTPClientFor and the clientsets
// take Transport; remotecommand's executors, which build their own
// upgrading transport, still wrap it with WrapTransport, which puts t in
// front of it: t answers their requests, and passes an exec's upgrade on
// to the loopback exec server (exec.go). ContentType is JSON: the model's server speaks no protobuf,
// which controller-runtime's client would otherwise send for built-in
// kinds. QPS is negative, which turns client-go's client-side rate
// limiter off: it waits on the wall clock, and the model's own throttling
// is a fault (faults.ErrThrottle).
func restConfig(t *restTransport) *rest.Config {
	return &rest.Config{
		Host:          modelHost,
		QPS:           -1,
		ContentConfig: rest.ContentConfig{ContentType: "application/json"},
		Transport:     t,
		WrapTransport: func(rt http.RoundTripper) http.RoundTripper {
			if rt == t {
				return t
			}
			return &upgradeTransport{t: t, upgrade: rt}
		},
	}
}

// restRequest is one parsed request for a resource.
type restRequest struct {
	verb      string // the method
	gvk       schema.GroupVersionKind
	resource  string
	namespace string
	name      string
	sub       string
	query     map[string][]string
	body      []byte
	// contentType is the media type of the body, without parameters.
	contentType string
	// upgrade is the upgrading round tripper of a remotecommand executor
	// that sent req, or nil for a plain request.
	upgrade http.RoundTripper
	req     *http.Request
}

// RoundTrip answers req from the model.
func (t *restTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	return t.roundTrip(req, nil)
}

// roundTrip answers req from the model; upgrade is the upgrading round
// tripper of the executor that sent it, if one did.
func (t *restTransport) roundTrip(req *http.Request, upgrade http.RoundTripper) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		b, err := io.ReadAll(req.Body)
		_ = req.Body.Close()
		if err != nil {
			return nil, err
		}
		body = b
	}
	if ct := req.Header.Get("Content-Type"); len(body) > 0 && strings.Contains(ct, "protobuf") {
		return statusResponse(req, &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure,
			Code: http.StatusUnsupportedMediaType, Reason: metav1.StatusReasonUnsupportedMediaType,
			Message: "converge's model API server reads JSON bodies only, not " + ct + " (leave rest.Config.ContentType as GetConfig sets it)"}}), nil
	}
	path := strings.Trim(req.URL.Path, "/")
	if out, ok := t.discovery(path); ok {
		return jsonResponse(req, http.StatusOK, out), nil
	}
	if _, ok := t.cl.w.(unbound); ok {
		return statusResponse(req, apierrors.NewServiceUnavailable(fmt.Sprintf(
			"GetConfig: %s %s was sent inside the setup function, before any controller runs; the model has no API server to reach yet", req.Method, req.URL.Path))), nil
	}
	r, err := t.parse(req.Method, path)
	if err != nil {
		return statusResponse(req, err), nil
	}
	form, err := acceptedForm(req.Header.Get("Accept"))
	if err != nil {
		return statusResponse(req, err), nil
	}
	r.query, r.body, r.upgrade, r.req = req.URL.Query(), body, upgrade, req
	ct, _, _ := strings.Cut(req.Header.Get("Content-Type"), ";")
	r.contentType = strings.TrimSpace(ct)
	code, out, err := t.serve(req.Context(), r)
	if err == nil {
		out, err = form.transform(out)
	}
	if err != nil {
		return statusResponse(req, err), nil
	}
	switch out := out.(type) {
	case string:
		return textResponse(req, code, out), nil
	case *http.Response:
		return out, nil // an exec's upgrade, from the exec server
	}
	return jsonResponse(req, code, out), nil
}

// parse reads the group, version, resource, namespace, name and
// subresource of a resource path, as the API server's router does.
func (t *restTransport) parse(method, path string) (*restRequest, error) {
	seg := strings.Split(path, "/")
	var gv schema.GroupVersion
	switch {
	case len(seg) >= 3 && seg[0] == "api":
		gv, seg = schema.GroupVersion{Version: seg[1]}, seg[2:]
	case len(seg) >= 4 && seg[0] == "apis":
		gv, seg = schema.GroupVersion{Group: seg[1], Version: seg[2]}, seg[3:]
	default:
		return nil, apierrors.NewNotFound(schema.GroupResource{}, "/"+path)
	}
	r := &restRequest{verb: method}
	if len(seg) >= 3 && seg[0] == "namespaces" && seg[2] != "status" && seg[2] != "finalize" {
		r.namespace, seg = seg[1], seg[2:]
	}
	if len(seg) > 3 {
		return nil, apierrors.NewNotFound(schema.GroupResource{}, "/"+path)
	}
	r.resource = seg[0]
	if len(seg) > 1 {
		r.name = seg[1]
	}
	if len(seg) > 2 {
		r.sub = seg[2]
	}
	gvk, ok := t.kinds.kind(gv.WithResource(r.resource))
	if !ok {
		return nil, apierrors.NewNotFound(gv.WithResource(r.resource).GroupResource(), r.name)
	}
	r.gvk = gvk
	gr := gv.WithResource(r.resource).GroupResource()
	switch namespaced := t.cl.mapper.namespaced(gvk.Kind); {
	case namespaced && r.namespace == "" && !(r.name == "" && method == http.MethodGet):
		// Only a list reads a namespaced kind across every namespace.
		return nil, apierrors.NewNotFound(gr, r.name)
	case !namespaced && r.namespace != "":
		return nil, apierrors.NewNotFound(gr, r.name)
	}
	return r, nil
}

// serve makes the call r asks for and returns the HTTP code and the body
// of a success.
func (t *restTransport) serve(ctx context.Context, r *restRequest) (int, any, error) {
	if first(r.query, "watch") == "true" || first(r.query, "watch") == "1" {
		return 0, nil, watchRefused(r)
	}
	switch r.sub {
	case "":
	case "status":
		return t.serveStatus(ctx, r)
	case "scale":
		return t.serveScale(ctx, r)
	case "eviction", "log", "exec", "attach", "portforward":
		return t.servePod(ctx, r)
	default:
		return 0, nil, apierrors.NewNotFound(schema.GroupResource{Group: r.gvk.Group, Resource: r.resource + "/" + r.sub}, r.name)
	}
	if r.name == "" {
		switch r.verb {
		case http.MethodGet:
			return t.list(ctx, r)
		case http.MethodPost:
			return t.create(ctx, r)
		case http.MethodDelete:
			return t.deleteCollection(ctx, r)
		}
		return 0, nil, methodNotAllowed(r)
	}
	switch r.verb {
	case http.MethodGet:
		return t.get(ctx, r)
	case http.MethodPut:
		u, err := t.decode(r)
		if err != nil {
			return 0, nil, err
		}
		opts := []client.UpdateOption{client.FieldOwner(first(r.query, "fieldManager"))}
		if len(r.query["dryRun"]) > 0 {
			opts = append(opts, client.DryRunAll)
		}
		if err := t.cl.Update(ctx, u, opts...); err != nil {
			return 0, nil, err
		}
		return http.StatusOK, u, nil
	case http.MethodPatch:
		return t.patch(ctx, r, false)
	case http.MethodDelete:
		return t.delete(ctx, r)
	}
	return 0, nil, methodNotAllowed(r)
}

// get reads the object r names from the API server.
func (t *restTransport) get(ctx context.Context, r *restRequest) (int, any, error) {
	u := t.object(r)
	if err := t.cl.Get(ctx, client.ObjectKey{Namespace: r.namespace, Name: r.name}, u); err != nil {
		return 0, nil, err
	}
	return http.StatusOK, u, nil
}

// serveStatus serves the status subresource: get, update and patch.
func (t *restTransport) serveStatus(ctx context.Context, r *restRequest) (int, any, error) {
	if r.name == "" {
		return 0, nil, methodNotAllowed(r)
	}
	if err := t.cl.statusCheck(t.object(r)); err != nil {
		return 0, nil, err
	}
	switch r.verb {
	case http.MethodGet:
		return t.get(ctx, r)
	case http.MethodPut:
		u, err := t.decode(r)
		if err != nil {
			return 0, nil, err
		}
		opts := []client.SubResourceUpdateOption{client.FieldOwner(first(r.query, "fieldManager"))}
		if len(r.query["dryRun"]) > 0 {
			opts = append(opts, client.DryRunAll)
		}
		if err := t.cl.Status().Update(ctx, u, opts...); err != nil {
			return 0, nil, err
		}
		return http.StatusOK, u, nil
	case http.MethodPatch:
		return t.patch(ctx, r, true)
	}
	return 0, nil, methodNotAllowed(r)
}

// object returns an empty unstructured object of r's kind, named as r
// names it.
func (t *restTransport) object(r *restRequest) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(r.gvk)
	u.SetNamespace(r.namespace)
	u.SetName(r.name)
	return u
}

// decode reads r's body as an object of r's kind, in r's namespace; a
// body of another kind, namespace or name is a BadRequest, as the API
// server answers.
func (t *restTransport) decode(r *restRequest) (*unstructured.Unstructured, error) {
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(r.body); err != nil {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("the body of %s %s does not decode: %v", r.verb, r.resource, err))
	}
	if u.GroupVersionKind() != r.gvk {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("the body is a %s, not a %s as the path says", u.GroupVersionKind(), r.gvk))
	}
	if u.GetNamespace() == "" {
		u.SetNamespace(r.namespace)
	}
	if u.GetNamespace() != r.namespace {
		return nil, apierrors.NewBadRequest("the namespace of the provided object does not match the namespace sent on the request")
	}
	if r.name != "" && u.GetName() != r.name {
		return nil, apierrors.NewBadRequest("the name of the object (" + u.GetName() + ") does not match the name on the URL (" + r.name + ")")
	}
	return u, nil
}

// list serves a list: label and field selectors as the client's List
// takes them, and limit.
func (t *restTransport) list(ctx context.Context, r *restRequest) (int, any, error) {
	l := &unstructured.UnstructuredList{}
	l.SetGroupVersionKind(r.gvk.GroupVersion().WithKind(r.gvk.Kind + "List"))
	opts, err := listOptions(r)
	if err != nil {
		return 0, nil, err
	}
	if err := t.cl.List(ctx, l, opts); err != nil {
		return 0, nil, err
	}
	if l.Items == nil {
		l.Items = []unstructured.Unstructured{}
	}
	return http.StatusOK, l, nil
}

// listOptions reads the query of a list or a delete of a collection.
func listOptions(r *restRequest) (*client.ListOptions, error) {
	lo := &client.ListOptions{Namespace: r.namespace}
	if s := first(r.query, "labelSelector"); s != "" {
		sel, err := labels.Parse(s)
		if err != nil {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("labelSelector %q: %v", s, err))
		}
		lo.LabelSelector = sel
	}
	if s := first(r.query, "fieldSelector"); s != "" {
		sel, err := fields.ParseSelector(s)
		if err != nil {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("fieldSelector %q: %v", s, err))
		}
		lo.FieldSelector = sel
	}
	if s := first(r.query, "limit"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 0 {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("limit %q is not a count", s))
		}
		lo.Limit = n
	}
	if first(r.query, "continue") != "" {
		return nil, unsupported("continuing a list")
	}
	return lo, nil
}

// create serves a create in a collection.
func (t *restTransport) create(ctx context.Context, r *restRequest) (int, any, error) {
	u, err := t.decode(r)
	if err != nil {
		return 0, nil, err
	}
	opts := []client.CreateOption{client.FieldOwner(first(r.query, "fieldManager"))}
	if len(r.query["dryRun"]) > 0 {
		opts = append(opts, client.DryRunAll)
	}
	if err := t.cl.Create(ctx, u, opts...); err != nil {
		return 0, nil, err
	}
	return http.StatusCreated, u, nil
}

// patch serves a patch of the object or its status, of any type the
// client's Patch takes (merge, strategic merge, JSON patch, apply).
func (t *restTransport) patch(ctx context.Context, r *restRequest, status bool) (int, any, error) {
	u := t.object(r)
	p := client.RawPatch(types.PatchType(r.contentType), r.body)
	var opts []client.PatchOption
	if fm := first(r.query, "fieldManager"); fm != "" {
		opts = append(opts, client.FieldOwner(fm))
	}
	if first(r.query, "force") == "true" {
		opts = append(opts, client.ForceOwnership)
	}
	if len(r.query["dryRun"]) > 0 {
		opts = append(opts, client.DryRunAll)
	}
	var err error
	if status {
		sub := make([]client.SubResourcePatchOption, len(opts))
		for i, o := range opts {
			sub[i] = o.(client.SubResourcePatchOption)
		}
		err = t.cl.Status().Patch(ctx, u, p, sub...)
	} else {
		err = t.cl.Patch(ctx, u, p, opts...)
	}
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, u, nil
}

// delete serves a delete: the body's preconditions and propagation policy.
func (t *restTransport) delete(ctx context.Context, r *restRequest) (int, any, error) {
	do, err := deleteOptions(r)
	if err != nil {
		return 0, nil, err
	}
	if err := t.cl.Delete(ctx, t.object(r), do); err != nil {
		return 0, nil, err
	}
	return http.StatusOK, success(r), nil
}

// deleteCollection deletes the matching objects, one at a time.
func (t *restTransport) deleteCollection(ctx context.Context, r *restRequest) (int, any, error) {
	do, err := deleteOptions(r)
	if err != nil {
		return 0, nil, err
	}
	lo, err := listOptions(r)
	if err != nil {
		return 0, nil, err
	}
	if err := t.cl.DeleteAllOf(ctx, t.object(r), &client.DeleteAllOfOptions{ListOptions: *lo, DeleteOptions: *do}); err != nil {
		return 0, nil, err
	}
	return http.StatusOK, success(r), nil
}

// deleteOptions reads a delete's body (metav1.DeleteOptions) and query.
func deleteOptions(r *restRequest) (*client.DeleteOptions, error) {
	var mo metav1.DeleteOptions
	if len(bytes.TrimSpace(r.body)) > 0 {
		if err := json.Unmarshal(r.body, &mo); err != nil {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("the DeleteOptions of the request do not decode: %v", err))
		}
	}
	if p := first(r.query, "propagationPolicy"); p != "" && mo.PropagationPolicy == nil {
		pp := metav1.DeletionPropagation(p)
		mo.PropagationPolicy = &pp
	}
	if len(r.query["dryRun"]) > 0 {
		mo.DryRun = r.query["dryRun"]
	}
	return &client.DeleteOptions{
		GracePeriodSeconds: mo.GracePeriodSeconds, Preconditions: mo.Preconditions,
		PropagationPolicy: mo.PropagationPolicy, DryRun: mo.DryRun, Raw: &mo,
	}, nil
}

// first returns the first value of key in q, or "".
func first(q map[string][]string, key string) string {
	if v := q[key]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// success is the Status a delete answers with.
func success(r *restRequest) *metav1.Status {
	return &metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: metav1.StatusSuccess,
		Details: &metav1.StatusDetails{Name: r.name, Group: r.gvk.Group, Kind: r.resource}}
}

// methodNotAllowed is the API server's answer to a verb a path does not
// serve.
func methodNotAllowed(r *restRequest) error {
	return apierrors.NewMethodNotSupported(schema.GroupResource{Group: r.gvk.Group, Resource: strings.TrimSuffix(r.resource+"/"+r.sub, "/")}, r.verb)
}

// watchRefused is the answer to a watch: the model's controllers see
// changes through their informers, which the model drives step by step; a
// watch stream of its own would be a goroutine outside the model's
// schedule. README.md, "client-go over the model", says so.
func watchRefused(r *restRequest) error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: http.StatusMethodNotAllowed,
		Reason:  metav1.StatusReasonMethodNotAllowed,
		Details: &metav1.StatusDetails{Group: r.gvk.Group, Kind: r.resource},
		Message: fmt.Sprintf("watch of %s through mgr.GetConfig() is not served by converge's model API server: "+
			"watch the kind with For, Owns or Watches, whose informers the model drives, and read it with GetClient", r.resource)}}
}

// statusResponse writes err as the API server does: a metav1.Status with
// its code. An error that is not an API status is an internal error; a
// kind the server does not serve is NotFound.
func statusResponse(req *http.Request, err error) *http.Response {
	var st apierrors.APIStatus
	var status metav1.Status
	switch {
	case errors.As(err, &st):
		status = st.Status()
	case meta.IsNoMatchError(err):
		status = apierrors.NewNotFound(schema.GroupResource{}, "").Status()
		status.Message = err.Error()
	default:
		status = apierrors.NewInternalError(err).Status()
	}
	status.TypeMeta = metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}
	status.Status = metav1.StatusFailure
	if status.Code == 0 {
		status.Code = http.StatusInternalServerError
	}
	return jsonResponse(req, int(status.Code), &status)
}

// jsonResponse writes v as JSON with code.
func jsonResponse(req *http.Request, code int, v any) *http.Response {
	b, err := json.Marshal(v)
	if err != nil {
		return statusResponse(req, fmt.Errorf("the answer does not encode: %w", err))
	}
	return response(req, code, "application/json", b)
}

// textResponse writes s as plain text with code.
func textResponse(req *http.Request, code int, s string) *http.Response {
	return response(req, code, "text/plain", []byte(s))
}

func response(req *http.Request, code int, contentType string, b []byte) *http.Response {
	return &http.Response{
		Status: fmt.Sprintf("%d %s", code, http.StatusText(code)), StatusCode: code,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:        http.Header{"Content-Type": []string{contentType}},
		Body:          io.NopCloser(bytes.NewReader(b)),
		ContentLength: int64(len(b)),
		Request:       req,
	}
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
