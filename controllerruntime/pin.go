package controllerruntime

import (
	"github.com/converge-sim/converge/controllerruntime/convert"
	"github.com/converge-sim/converge/model"
	"k8s.io/apimachinery/pkg/runtime"
)

// pin makes the Kind of each typed object stand for the object's own
// group, where the scheme has that Kind in several groups and the
// converter chose none (convert.Converter.Pin): a project's
// For(&CronJob{}) names the group of its CronJob by its Go type, though
// client-go's scheme holds batch/v1's too. The manager and every client
// built after it use the pinned converter; the API server's generation
// rule follows the pinned group. Setup (For, Owns, Watches, Reads), the
// package's Builder, Apply and ClusterScoped pin.
func (m *Manager) pin(objs ...runtime.Object) (*convert.Converter, error) {
	conv, err := m.conv.Pin(objs...)
	if err != nil || conv == m.conv {
		return conv, err
	}
	m.env.conv, m.mapper.conv, m.clock.conv = conv, conv, conv
	for _, obj := range objs {
		if kind, err := conv.Kind(obj); err == nil && !HasGeneration(conv, kind) {
			m.cluster.Server().SetGenerationRule(kind, model.GenerationNone)
		}
	}
	return conv, nil
}
