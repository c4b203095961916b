package controllerruntime

import (
	"fmt"
	"hash/fnv"

	"github.com/converge-sim/converge/controllerruntime/convert"
	"github.com/converge-sim/converge/model"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/recorder"
)

// eventSink writes the events of one controller's recorders as core/v1
// Event objects, through the controller's own writer: a partitioned or
// crashed controller's events are lost, and a failed write is dropped, as
// a real event broadcaster drops after its retries. An event identical to
// one already recorded (same object, type, reason, action, message and
// reporter) is not written again: the real recorder would patch its count,
// and a count is no reason for the cluster to be busy. The probe run of a
// setup has no writer and records nothing.
type eventSink struct {
	w    writer
	conv *convert.Converter
	now  func() model.Time
}

func (s *eventSink) record(component string, regarding, related runtime.Object, annotations map[string]string, eventtype, reason, action, message string) {
	if s.w == nil {
		return
	}
	obj, ok := regarding.(client.Object)
	if !ok {
		return
	}
	kind, err := s.conv.Kind(obj)
	if err != nil {
		return
	}
	gvk, _ := s.conv.GVK(kind)
	ns := obj.GetNamespace()
	if ns == "" {
		ns = metav1.NamespaceDefault
	}
	h := fnv.New64a()
	for _, part := range []string{kind, obj.GetNamespace(), obj.GetName(), string(obj.GetUID()), eventtype, reason, action, message, component} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	at := s.conv.Time(s.now())
	ev := &corev1.Event{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("%s.%016x", obj.GetName(), h.Sum64()), Annotations: annotations},
		InvolvedObject: corev1.ObjectReference{
			Kind: gvk.Kind, APIVersion: gvk.GroupVersion().String(), Namespace: obj.GetNamespace(), Name: obj.GetName(),
			UID: obj.GetUID(), ResourceVersion: obj.GetResourceVersion(),
		},
		Reason: reason, Message: message, Type: eventtype, Action: action,
		Source:         corev1.EventSource{Component: component},
		FirstTimestamp: at, LastTimestamp: at, Count: 1,
		ReportingController: component,
	}
	if rel, ok := related.(client.Object); ok && rel != nil {
		if rk, err := s.conv.Kind(rel); err == nil {
			rgvk, _ := s.conv.GVK(rk)
			ev.Related = &corev1.ObjectReference{Kind: rgvk.Kind, APIVersion: rgvk.GroupVersion().String(), Namespace: rel.GetNamespace(), Name: rel.GetName(), UID: rel.GetUID()}
		}
	}
	mo, err := s.conv.ToModel(ev)
	if err != nil {
		return
	}
	_ = s.w.Create(mo) // dropped on failure, AlreadyExists for a repeat
}

// legacyRecorder is record.EventRecorder (GetEventRecorderFor).
type legacyRecorder struct {
	sink      *eventSink
	component string
}

var _ record.EventRecorder = (*legacyRecorder)(nil)

func (r *legacyRecorder) Event(obj runtime.Object, eventtype, reason, message string) {
	r.sink.record(r.component, obj, nil, nil, eventtype, reason, "", message)
}

func (r *legacyRecorder) Eventf(obj runtime.Object, eventtype, reason, format string, args ...any) {
	r.sink.record(r.component, obj, nil, nil, eventtype, reason, "", fmt.Sprintf(format, args...))
}

func (r *legacyRecorder) AnnotatedEventf(obj runtime.Object, annotations map[string]string, eventtype, reason, format string, args ...any) {
	r.sink.record(r.component, obj, nil, annotations, eventtype, reason, "", fmt.Sprintf(format, args...))
}

// eventsRecorder is the events API's recorder (GetEventRecorder); its
// events are stored as core/v1 Events too, with action and related set.
type eventsRecorder struct {
	sink      *eventSink
	component string
}

var _ recorder.EventRecorder = (*eventsRecorder)(nil)

func (r *eventsRecorder) Eventf(regarding, related runtime.Object, eventtype, reason, action, note string, args ...any) {
	r.sink.record(r.component, regarding, related, nil, eventtype, reason, action, fmt.Sprintf(note, args...))
}

func (r *eventsRecorder) AnnotatedEventf(regarding, related runtime.Object, annotations map[string]string, eventtype, reason, action, note string, args ...any) {
	r.sink.record(r.component, regarding, related, annotations, eventtype, reason, action, fmt.Sprintf(note, args...))
}
