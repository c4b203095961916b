package properties

import (
	"fmt"

	"github.com/converge-sim/converge/model"
)

// eventsAbout lists the Kubernetes Events (kind Event, as core/v1 Events
// are stored: involvedObject.kind and .name, type, reason, message) whose
// involved object is target, in store order: what `kubectl describe`
// shows an operator at the bottom of the page.
func eventsAbout(s model.State, target model.Ref) []string {
	var out []string
	for _, e := range s.List("Event", model.ListOptions{Namespace: target.Namespace}) {
		if e.Spec.Str("involvedObject.kind") != target.Kind || e.Spec.Str("involvedObject.name") != target.Name {
			continue
		}
		out = append(out, fmt.Sprintf("event on %s: %s %s: %s", target, e.Spec.Str("type"), e.Spec.Str("reason"), e.Spec.Str("message")))
	}
	return out
}
