package controllerruntime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"

	"github.com/converge-sim/converge/model"
	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
)

// An operator's admission webhooks, run by the model's API server
// (docs/design.md, "An operator's webhooks"). The setup registers them on
// mgr.GetWebhookServer(), by Register or through
// ctrl.NewWebhookManagedBy(mgr, obj)…Complete(), which ends in Register;
// Manager.Setup installs what its first run registered. On every create
// and update of a kind a webhook handles, the API server calls the
// mutating webhooks, then the validating ones, each with a real
// AdmissionReview through its http.Handler, in-process; the validating
// ones see deletes too. A mutating webhook's JSON patch changes the
// object's spec and status; a denial is the error a real API server
// returns for it.

// Webhook declares what a webhook registered at a path of the setup's
// choosing handles, for SetupOptions.Webhooks: a real cluster learns it
// from a MutatingWebhookConfiguration or ValidatingWebhookConfiguration.
// The paths ctrl.NewWebhookManagedBy generates (/mutate-<group>-<version>-
// <kind>, /validate-…) need no declaration.
type Webhook struct {
	// For lists the kinds the webhook is called for; at least one.
	For []client.Object
	// Mutating says the webhook may patch the object; it is called on
	// creates and updates, before every validating webhook. A validating
	// webhook is called on creates, updates and deletes.
	Mutating bool

	_ struct{}
}

// webhookServer is the webhook.Server a setup run registers on. It keeps
// what was registered, and a mux that serves it, so that the builder sees
// a path it registered before.
type webhookServer struct {
	mux      *http.ServeMux
	paths    []string
	handlers map[string]http.Handler
	errs     []error
}

var _ webhook.Server = (*webhookServer)(nil)

func newWebhookServer() *webhookServer {
	return &webhookServer{mux: http.NewServeMux(), handlers: map[string]http.Handler{}}
}

// NeedLeaderElection reports false, as the real server.
func (w *webhookServer) NeedLeaderElection() bool { return false }

// Register records hook at path. A path registered twice, which makes the
// real server panic, or one the mux refuses, is an error Setup returns.
func (w *webhookServer) Register(path string, hook http.Handler) {
	switch {
	case hook == nil:
		w.errs = append(w.errs, fmt.Errorf("GetWebhookServer().Register(%s): nil handler", path))
		return
	case !strings.HasPrefix(path, "/"):
		w.errs = append(w.errs, fmt.Errorf("GetWebhookServer().Register(%s): a path begins with /", path))
		return
	case w.handlers[path] != nil:
		w.errs = append(w.errs, fmt.Errorf("GetWebhookServer().Register(%s): the path is registered twice", path))
		return
	}
	if err := muxHandle(w.mux, path, hook); err != nil {
		w.errs = append(w.errs, fmt.Errorf("GetWebhookServer().Register(%s): %v", path, err))
		return
	}
	w.paths = append(w.paths, path)
	w.handlers[path] = hook
}

// muxHandle is mux.Handle, with the panic of a pattern it refuses turned
// into an error.
func muxHandle(mux *http.ServeMux, path string, hook http.Handler) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	mux.Handle(path, hook)
	return nil
}

// Start is an error: the model's API server calls the webhooks itself.
func (w *webhookServer) Start(context.Context) error {
	return errors.New("GetWebhookServer().Start: the model's API server calls the registered webhooks itself; hand the setup to Manager.Setup")
}

// StartedChecker reports healthy: the webhooks are served from the start.
func (w *webhookServer) StartedChecker() healthz.Checker {
	return func(*http.Request) error { return nil }
}

// WebhookMux returns the mux of the registered webhooks.
func (w *webhookServer) WebhookMux() *http.ServeMux { return w.mux }

// installedWebhook is one webhook the API server calls.
type installedWebhook struct {
	path     string
	handler  http.Handler
	kinds    map[string]bool
	mutating bool
}

// webhooks are a manager's installed webhooks, called by two admission
// steps of the model's API server: mutate after the built-in defaulting
// and before validation, validate last (installAPIServer).
type webhooks struct {
	e         *env
	mutating  []*installedWebhook
	validates []*installedWebhook
	paths     map[string]bool
	// seq numbers the requests, for their UIDs: the same run makes the
	// same requests.
	seq uint64
}

// install installs the webhooks a setup run registered: each path either
// one ctrl.NewWebhookManagedBy generates for a kind of the converter, or
// one declared in decl. /convert, the conversion webhook, is left out:
// the model stores one version of each kind.
func (wh *webhooks) install(srv *webhookServer, decl map[string]Webhook) error {
	if err := errors.Join(srv.errs...); err != nil {
		return err
	}
	for _, path := range slices.Sorted(maps.Keys(decl)) {
		if srv.handlers[path] == nil {
			return fmt.Errorf("SetupOptions.Webhooks declares %s, which the setup does not register", path)
		}
	}
	for _, path := range srv.paths {
		if path == "/convert" {
			continue
		}
		if wh.paths[path] {
			return fmt.Errorf("GetWebhookServer().Register(%s): the path is registered by an earlier Setup", path)
		}
		iw, err := wh.resolve(path, srv.handlers[path], decl)
		if err != nil {
			return err
		}
		if wh.paths == nil {
			wh.paths = map[string]bool{}
		}
		wh.paths[path] = true
		if iw.mutating {
			wh.mutating = append(wh.mutating, iw)
		} else {
			wh.validates = append(wh.validates, iw)
		}
	}
	return nil
}

// resolve says what the webhook at path handles: its declaration, or the
// kind and type of a path the builder generates.
func (wh *webhooks) resolve(path string, h http.Handler, decl map[string]Webhook) (*installedWebhook, error) {
	conv := wh.e.conv
	iw := &installedWebhook{path: path, handler: h, kinds: map[string]bool{}}
	if d, ok := decl[path]; ok {
		if len(d.For) == 0 {
			return nil, fmt.Errorf("SetupOptions.Webhooks[%s]: For lists no kind", path)
		}
		for _, obj := range d.For {
			kind, err := conv.Kind(obj)
			if err != nil {
				return nil, fmt.Errorf("SetupOptions.Webhooks[%s]: %w", path, err)
			}
			iw.kinds[kind] = true
		}
		iw.mutating = d.Mutating
		return iw, nil
	}
	for _, gvk := range conv.GVKs() {
		group := strings.ReplaceAll(gvk.Group, ".", "-")
		suffix := "-" + group + "-" + gvk.Version + "-" + strings.ToLower(gvk.Kind)
		switch path {
		case "/mutate" + suffix:
			iw.mutating = true
		case "/validate" + suffix:
		default:
			continue
		}
		iw.kinds[gvk.Kind] = true
		return iw, nil
	}
	return nil, fmt.Errorf("GetWebhookServer().Register(%s): the model does not know which kinds this webhook handles; "+
		"declare it in SetupOptions.Webhooks (paths ctrl.NewWebhookManagedBy generates for a kind of the scheme need no declaration)", path)
}

// mutate is the admission step of the mutating webhooks.
func (wh *webhooks) mutate(caller string, verb model.Verb, old, obj *model.Object) error {
	if len(wh.mutating) == 0 || (verb != model.VerbCreate && verb != model.VerbUpdate) {
		return nil
	}
	for _, iw := range wh.mutating {
		if !iw.kinds[obj.Kind] {
			continue
		}
		if err := wh.call(iw, caller, verb, old, obj); err != nil {
			return err
		}
	}
	return nil
}

// validate is the admission step of the validating webhooks.
func (wh *webhooks) validate(caller string, verb model.Verb, old, obj *model.Object) error {
	if len(wh.validates) == 0 || (verb != model.VerbCreate && verb != model.VerbUpdate && verb != model.VerbDelete) {
		return nil
	}
	kind := old
	if obj != nil {
		kind = obj
	}
	for _, iw := range wh.validates {
		if !iw.kinds[kind.Kind] {
			continue
		}
		if err := wh.call(iw, caller, verb, old, obj); err != nil {
			return err
		}
	}
	return nil
}

// call sends one AdmissionReview to the webhook and applies its answer:
// a mutating webhook's patch to obj's spec and status, a denial as the
// API server's error.
func (wh *webhooks) call(iw *installedWebhook, caller string, verb model.Verb, old, obj *model.Object) error {
	conv := wh.e.conv
	ref := old
	if obj != nil {
		ref = obj
	}
	gvk, err := conv.GVK(ref.Kind)
	if err != nil {
		return wh.failed(iw, err)
	}
	gr, _ := wh.e.mapper.resource(gvk)
	wh.seq++
	req := admissionv1.AdmissionRequest{
		UID:             types.UID("converge-admission-" + strconv.FormatUint(wh.seq, 10)),
		Kind:            metav1.GroupVersionKind{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind},
		Resource:        metav1.GroupVersionResource{Group: gr.Group, Version: gr.Version, Resource: gr.Resource},
		RequestKind:     &metav1.GroupVersionKind{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind},
		RequestResource: &metav1.GroupVersionResource{Group: gr.Group, Version: gr.Version, Resource: gr.Resource},
		Name:            ref.Name,
		Namespace:       ref.Namespace,
		UserInfo:        authenticationv1.UserInfo{Username: caller},
		DryRun:          new(bool),
	}
	switch verb {
	case model.VerbCreate:
		req.Operation = admissionv1.Create
	case model.VerbUpdate:
		req.Operation = admissionv1.Update
	case model.VerbDelete:
		req.Operation = admissionv1.Delete
	}
	var doc []byte
	if obj != nil {
		if doc, err = wh.encode(obj); err != nil {
			return wh.failed(iw, err)
		}
		req.Object = runtime.RawExtension{Raw: doc}
	}
	if old != nil {
		raw, err := wh.encode(old)
		if err != nil {
			return wh.failed(iw, err)
		}
		req.OldObject = runtime.RawExtension{Raw: raw}
	}
	resp, err := serveReview(iw, req)
	if err != nil {
		return wh.failed(iw, err)
	}
	if !resp.Allowed {
		return denied(iw, resp.Result)
	}
	if !iw.mutating || len(resp.Patch) == 0 || obj == nil {
		return nil
	}
	if resp.PatchType != nil && *resp.PatchType != admissionv1.PatchTypeJSONPatch {
		return wh.failed(iw, fmt.Errorf("unsupported patch type %q", *resp.PatchType))
	}
	return wh.applyPatch(iw, obj, doc, resp.Patch)
}

// encode returns obj as the JSON of its typed object, with apiVersion and
// kind, as the API server sends it.
func (wh *webhooks) encode(obj *model.Object) ([]byte, error) {
	typed, err := wh.e.conv.New(obj.Kind)
	if err != nil {
		return nil, err
	}
	if err := wh.e.conv.FromModel(obj, typed); err != nil {
		return nil, err
	}
	return json.Marshal(typed)
}

// decode returns the model object of a typed object's JSON.
func (wh *webhooks) decode(kind string, doc []byte) (*model.Object, error) {
	typed, err := wh.e.conv.New(kind)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(doc, typed); err != nil {
		return nil, err
	}
	return wh.e.conv.ToModel(typed)
}

// applyPatch applies a mutating webhook's JSON patch to doc, obj's JSON,
// and writes into obj the spec and status fields it changed. Fields the
// patch left alone keep their exact form; changes to metadata are not
// taken (model.Admission).
func (wh *webhooks) applyPatch(iw *installedWebhook, obj *model.Object, doc, patch []byte) error {
	p, err := jsonpatch.DecodePatch(patch)
	if err != nil {
		return wh.failed(iw, fmt.Errorf("decoding the patch: %w", err))
	}
	out, err := p.Apply(doc)
	if err != nil {
		return wh.failed(iw, fmt.Errorf("applying the patch: %w", err))
	}
	before, err := wh.decode(obj.Kind, doc)
	if err != nil {
		return wh.failed(iw, err)
	}
	after, err := wh.decode(obj.Kind, out)
	if err != nil {
		return &model.StatusError{Reason: model.ReasonInvalid, Message: fmt.Sprintf("%s: the object patched by admission webhook %q does not decode: %v", obj.Ref(), webhookName(iw), err)}
	}
	obj.Spec = changed(obj.Spec, before.Spec, after.Spec)
	obj.Status = changed(obj.Status, before.Status, after.Status)
	return nil
}

// changed returns f with the changes from before to after: paths set or
// changed in after are set, paths gone from it deleted.
func changed(f, before, after model.Fields) model.Fields {
	if before.Equal(after) {
		return f
	}
	vals := model.Values{}
	for p, v := range f.All() {
		vals[p] = v
	}
	for p := range before.All() {
		if !after.Has(p) {
			delete(vals, p)
		}
	}
	for p, v := range after.All() {
		if w, ok := before.Get(p); !ok || w != v {
			vals[p] = v
		}
	}
	return model.NewFields(vals)
}

// serveReview sends req to the webhook's handler as the API server does,
// an AdmissionReview posted as JSON, in-process, and returns its response.
func serveReview(iw *installedWebhook, req admissionv1.AdmissionRequest) (*admissionv1.AdmissionResponse, error) {
	review := admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: admissionv1.SchemeGroupVersion.String(), Kind: "AdmissionReview"},
		Request:  &req,
	}
	body, err := json.Marshal(review)
	if err != nil {
		return nil, err
	}
	hr, err := http.NewRequestWithContext(context.Background(), http.MethodPost, iw.path, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	hr.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	iw.handler.ServeHTTP(rec, hr)
	if rec.Code != http.StatusOK {
		return nil, fmt.Errorf("the server responded with status %d: %s", rec.Code, strings.TrimSpace(rec.Body.String()))
	}
	var out admissionv1.AdmissionReview
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
		return nil, fmt.Errorf("decoding the AdmissionReview response: %w", err)
	}
	if out.Response == nil {
		return nil, errors.New("the AdmissionReview response has no response")
	}
	if out.Response.UID != req.UID {
		return nil, fmt.Errorf("the response's uid %q is not the request's %q", out.Response.UID, req.UID)
	}
	return out.Response, nil
}

// webhookName is the name the API server's errors give the webhook: the
// path without its slash (a real cluster takes the name of the webhook
// configuration's entry, which the model does not have).
func webhookName(iw *installedWebhook) string { return strings.TrimPrefix(iw.path, "/") }

// failed is the error of a webhook that could not be called or answered
// nonsense: with failurePolicy Fail, the default, the write fails with an
// internal error.
func (wh *webhooks) failed(iw *installedWebhook, err error) error {
	return &model.StatusError{Reason: model.ReasonInternal, Message: fmt.Sprintf("Internal error occurred: failed calling webhook %q: %v", webhookName(iw), err)}
}

// denied is the API server's error for a webhook's denial, as Kubernetes
// builds it (webhookerrors.ToStatusErr): the webhook's status, its
// message prefixed with the webhook's name. An Invalid status (422) keeps
// its causes; a server error (5xx) is an internal error; any other
// denial is Forbidden, as controller-runtime's admission.Denied is.
func denied(iw *installedWebhook, result *metav1.Status) error {
	prefix := fmt.Sprintf("admission webhook %q denied the request", webhookName(iw))
	if result == nil {
		result = &metav1.Status{}
	}
	msg := prefix + " without explanation"
	switch {
	case result.Message != "":
		msg = prefix + ": " + result.Message
	case result.Reason != "":
		msg = prefix + ": " + string(result.Reason)
	}
	se := &model.StatusError{Reason: model.ReasonForbidden, Message: msg}
	switch {
	case result.Reason == metav1.StatusReasonInvalid || result.Code == http.StatusUnprocessableEntity:
		se.Reason = model.ReasonInvalid
		if result.Details != nil {
			for _, c := range result.Details.Causes {
				se.Causes = append(se.Causes, model.Cause{Type: string(c.Type), Field: c.Field, Message: c.Message})
			}
		}
		if len(se.Causes) == 0 {
			se.Causes = []model.Cause{{Type: "FieldValueInvalid", Field: "metadata", Message: msg}}
		}
	case result.Code >= http.StatusInternalServerError:
		se.Reason = model.ReasonInternal
	}
	return se
}
