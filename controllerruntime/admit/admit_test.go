package admit_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/converge-sim/converge/controllerruntime/admit"
	"github.com/converge-sim/converge/controllerruntime/convert"
	"github.com/converge-sim/converge/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// converter returns a converter of client-go's scheme, built once.
var converter = sync.OnceValues(func() (*convert.Converter, error) {
	return convert.New(clientgoscheme.Scheme, convert.Options{})
})

func namespaced(kind string) bool { return kind != "Namespace" && kind != "Node" }

// check runs the admission on a create of obj, or, with old, an update
// from old to obj, and returns its error. It also checks that Builtin,
// which validates the converter's kept decodes themselves
// (FromModelShared), answers as BuiltinFresh does, and leaves what the
// converter keeps as it was: the validators only read.
func check(t *testing.T, old, obj client.Object) error {
	t.Helper()
	conv, err := converter()
	require.NoError(t, err)
	mo, err := conv.ToModel(obj)
	require.NoError(t, err)
	mo.UID = "uid-1"
	var mold *model.Object
	verb := model.VerbCreate
	if old != nil {
		mold, err = conv.ToModel(old)
		require.NoError(t, err)
		mold.UID = "uid-1"
		verb = model.VerbUpdate
	}
	decoded := func(mo *model.Object) client.Object {
		if mo == nil {
			return nil
		}
		typed, err := conv.New(mo.Kind)
		require.NoError(t, err)
		if conv.FromModel(mo, typed) != nil {
			return nil
		}
		return typed
	}
	before, beforeOld := decoded(mo), decoded(mold)
	fresh := admit.BuiltinFresh(conv, namespaced)("user", verb, mold, mo)
	got := admit.Builtin(conv, namespaced)("user", verb, mold, mo)
	assert.Equal(t, fresh, got, "Builtin and BuiltinFresh answer alike")
	assert.Equal(t, before, decoded(mo), "validation left the kept decode as it was")
	assert.Equal(t, beforeOld, decoded(mold), "validation left the old object's kept decode as it was")
	return got
}

var labels = map[string]string{"app": "web"}

func podSpec() corev1.PodSpec {
	return corev1.PodSpec{Containers: []corev1.Container{{
		Name: "app", Image: "app:v1",
		Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP}},
		Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")},
			Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")},
		},
	}}}
}

func meta(name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Namespace: "default", Name: name, Labels: map[string]string{"app": "web"}}
}

func deployment() *appsv1.Deployment {
	return &appsv1.Deployment{ObjectMeta: meta("web"), Spec: appsv1.DeploymentSpec{
		Selector: &metav1.LabelSelector{MatchLabels: labels},
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: podSpec()},
	}}
}

func statefulSet() *appsv1.StatefulSet {
	return &appsv1.StatefulSet{ObjectMeta: meta("db"), Spec: appsv1.StatefulSetSpec{
		Selector:             &metav1.LabelSelector{MatchLabels: labels},
		ServiceName:          "db",
		Template:             corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: podSpec()},
		VolumeClaimTemplates: []corev1.PersistentVolumeClaim{{ObjectMeta: metav1.ObjectMeta{Name: "data"}, Spec: claimSpec("1Gi")}},
	}}
}

func claimSpec(size string) corev1.PersistentVolumeClaimSpec {
	return corev1.PersistentVolumeClaimSpec{
		AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
		Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(size)}},
	}
}

func job() *batchv1.Job {
	spec := podSpec()
	spec.RestartPolicy = corev1.RestartPolicyNever
	return &batchv1.Job{ObjectMeta: meta("migrate"), Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: spec}}}
}

func service() *corev1.Service {
	return &corev1.Service{ObjectMeta: meta("web"), Spec: corev1.ServiceSpec{
		Selector: labels,
		Ports:    []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromString("http")}},
	}}
}

// edit returns a changed copy of obj.
func edit[T client.Object](obj T, change func(T)) T {
	c := obj.DeepCopyObject().(T)
	change(c)
	return c
}

// TestBuiltinValidation: a table of valid and invalid objects per kind,
// created or updated; an invalid one is rejected as Invalid with the
// field causes the API server gives, a valid one passes.
func TestBuiltinValidation(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: meta("web-0"), Spec: podSpec()}
	for _, tc := range []struct {
		name     string
		old, obj client.Object
		// causes are "<field>: <type>" of each cause, sorted; none for a
		// valid object.
		causes []string
	}{
		{name: "a valid pod", obj: pod},
		{name: "containerPort 0", obj: edit(pod, func(p *corev1.Pod) { p.Spec.Containers[0].Ports[0].ContainerPort = 0 }),
			causes: []string{"spec.containers[0].ports[0].containerPort: FieldValueRequired"}},
		{name: "containerPort 70000", obj: edit(pod, func(p *corev1.Pod) { p.Spec.Containers[0].Ports[0].ContainerPort = 70000 }),
			causes: []string{"spec.containers[0].ports[0].containerPort: FieldValueInvalid"}},
		{name: "a port name too long and a bad protocol", obj: edit(pod, func(p *corev1.Pod) {
			p.Spec.Containers[0].Ports[0].Name = "a-very-long-port-name"
			p.Spec.Containers[0].Ports[0].Protocol = "HTTP"
		}), causes: []string{"spec.containers[0].ports[0].name: FieldValueInvalid", "spec.containers[0].ports[0].protocol: FieldValueNotSupported"}},
		{name: "no containers", obj: edit(pod, func(p *corev1.Pod) { p.Spec.Containers = nil }),
			causes: []string{"spec.containers: FieldValueRequired"}},
		{name: "a container without a name or an image", obj: edit(pod, func(p *corev1.Pod) { p.Spec.Containers[0].Name, p.Spec.Containers[0].Image = "", "" }),
			causes: []string{"spec.containers[0].image: FieldValueRequired", "spec.containers[0].name: FieldValueRequired"}},
		{name: "two containers of one name", obj: edit(pod, func(p *corev1.Pod) { p.Spec.Containers = append(p.Spec.Containers, p.Spec.Containers[0]) }),
			causes: []string{"spec.containers[1].name: FieldValueDuplicate"}},
		{name: "a request above its limit", obj: edit(pod, func(p *corev1.Pod) {
			p.Spec.Containers[0].Resources.Requests[corev1.ResourceCPU] = resource.MustParse("2")
		}),
			causes: []string{"spec.containers[0].resources.requests[cpu]: FieldValueInvalid"}},
		{name: "a negative limit", obj: edit(pod, func(p *corev1.Pod) {
			p.Spec.Containers[0].Resources.Limits[corev1.ResourceMemory] = resource.MustParse("-1Gi")
		}),
			causes: []string{"spec.containers[0].resources.limits[memory]: FieldValueInvalid"}},
		{name: "a mount of no volume", obj: edit(pod, func(p *corev1.Pod) {
			p.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "data", MountPath: "/data"}}
		}), causes: []string{"spec.containers[0].volumeMounts[0].name: FieldValueNotFound"}},
		{name: "a name that is no DNS subdomain", obj: edit(pod, func(p *corev1.Pod) { p.Name = "Web_0" }),
			causes: []string{"metadata.name: FieldValueInvalid"}},
		{name: "a bad label key and value", obj: edit(pod, func(p *corev1.Pod) { p.Labels = map[string]string{"a b": "ok", "ok": strings.Repeat("x", 64)} }),
			causes: []string{"metadata.labels: FieldValueInvalid", "metadata.labels: FieldValueInvalid"}},
		{name: "annotations over 256 KiB", obj: edit(pod, func(p *corev1.Pod) { p.Annotations = map[string]string{"big": strings.Repeat("x", 256*1024)} }),
			causes: []string{"metadata.annotations: FieldValueTooLong"}},

		{name: "a valid deployment", obj: deployment()},
		{name: "a deployment with containerPort 0", obj: edit(deployment(), func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers[0].Ports[0].ContainerPort = 0 }),
			causes: []string{"spec.template.spec.containers[0].ports[0].containerPort: FieldValueRequired"}},
		{name: "a deployment template may leave the image out", obj: edit(deployment(), func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers[0].Image = "" })},
		{name: "a deployment without a selector", obj: edit(deployment(), func(d *appsv1.Deployment) { d.Spec.Selector = nil }),
			causes: []string{"spec.selector: FieldValueRequired"}},
		{name: "a selector that does not match the template", obj: edit(deployment(), func(d *appsv1.Deployment) { d.Spec.Template.Labels = map[string]string{"app": "other"} }),
			causes: []string{"spec.template.metadata.labels: FieldValueInvalid"}},
		{name: "a deployment template that restarts Never", obj: edit(deployment(), func(d *appsv1.Deployment) { d.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyNever }),
			causes: []string{"spec.template.spec.restartPolicy: FieldValueNotSupported"}},
		{name: "negative replicas", obj: edit(deployment(), func(d *appsv1.Deployment) { d.Spec.Replicas = new(int32(-1)) }),
			causes: []string{"spec.replicas: FieldValueInvalid"}},
		{name: "maxSurge and maxUnavailable both 0", obj: edit(deployment(), func(d *appsv1.Deployment) {
			zero := intstr.FromInt32(0)
			d.Spec.Strategy.RollingUpdate = &appsv1.RollingUpdateDeployment{MaxSurge: &zero, MaxUnavailable: &zero}
		}), causes: []string{"spec.strategy.rollingUpdate.maxUnavailable: FieldValueInvalid"}},
		{name: "a deployment's selector changed", old: deployment(), obj: edit(deployment(), func(d *appsv1.Deployment) {
			d.Spec.Selector.MatchLabels = map[string]string{"app": "web", "tier": "front"}
			d.Spec.Template.Labels = d.Spec.Selector.MatchLabels
		}), causes: []string{"spec.selector: FieldValueInvalid"}},

		{name: "a valid statefulset", obj: statefulSet()},
		{name: "a statefulset update with updateStrategy {}", old: statefulSet(), obj: edit(statefulSet(), func(s *appsv1.StatefulSet) {
			s.Spec.UpdateStrategy = appsv1.StatefulSetUpdateStrategy{}
			s.Spec.Replicas = new(int32(3))
		})},
		{name: "a statefulset update that spells out the default podManagementPolicy", old: statefulSet(), obj: edit(statefulSet(), func(s *appsv1.StatefulSet) {
			s.Spec.PodManagementPolicy = appsv1.OrderedReadyPodManagement
		})},
		{name: "a statefulset's selector changed", old: statefulSet(), obj: edit(statefulSet(), func(s *appsv1.StatefulSet) {
			s.Spec.Selector.MatchLabels = map[string]string{"app": "web", "tier": "db"}
			s.Spec.Template.Labels = s.Spec.Selector.MatchLabels
		}), causes: []string{"spec: FieldValueForbidden"}},
		{name: "a statefulset's serviceName changed", old: statefulSet(), obj: edit(statefulSet(), func(s *appsv1.StatefulSet) { s.Spec.ServiceName = "other" }),
			causes: []string{"spec: FieldValueForbidden"}},
		{name: "a statefulset's claim template grown", old: statefulSet(), obj: edit(statefulSet(), func(s *appsv1.StatefulSet) {
			s.Spec.VolumeClaimTemplates[0].Spec = claimSpec("2Gi")
		}), causes: []string{"spec: FieldValueForbidden"}},
		{name: "a claim template without an access mode", obj: edit(statefulSet(), func(s *appsv1.StatefulSet) { s.Spec.VolumeClaimTemplates[0].Spec.AccessModes = nil }),
			causes: []string{"spec.volumeClaimTemplates[0].spec.accessModes: FieldValueRequired"}},
		{name: "an unknown podManagementPolicy", obj: edit(statefulSet(), func(s *appsv1.StatefulSet) { s.Spec.PodManagementPolicy = "Random" }),
			causes: []string{"spec.podManagementPolicy: FieldValueNotSupported"}},

		{name: "a valid job", obj: job()},
		{name: "a job that restarts Always", obj: edit(job(), func(j *batchv1.Job) { j.Spec.Template.Spec.RestartPolicy = "" }),
			causes: []string{"spec.template.spec.restartPolicy: FieldValueNotSupported"}},
		{name: "a job's template changed", old: job(), obj: edit(job(), func(j *batchv1.Job) { j.Spec.Template.Spec.Containers[0].Image = "app:v2" }),
			causes: []string{"spec.template: FieldValueInvalid"}},
		{name: "a job's parallelism changed", old: job(), obj: edit(job(), func(j *batchv1.Job) { j.Spec.Parallelism = new(int32(2)) })},

		{name: "a valid claim", obj: &corev1.PersistentVolumeClaim{ObjectMeta: meta("data"), Spec: claimSpec("1Gi")}},
		{name: "a claim of 0 bytes", obj: &corev1.PersistentVolumeClaim{ObjectMeta: meta("data"), Spec: claimSpec("0")},
			causes: []string{"spec.resources[storage]: FieldValueInvalid"}},
		{name: "a bound claim grown", old: &corev1.PersistentVolumeClaim{ObjectMeta: meta("data"), Spec: claimSpec("1Gi"), Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound}},
			obj: &corev1.PersistentVolumeClaim{ObjectMeta: meta("data"), Spec: claimSpec("2Gi")}},
		{name: "a claim's access modes changed", old: &corev1.PersistentVolumeClaim{ObjectMeta: meta("data"), Spec: claimSpec("1Gi")},
			obj: edit(&corev1.PersistentVolumeClaim{ObjectMeta: meta("data"), Spec: claimSpec("1Gi")}, func(c *corev1.PersistentVolumeClaim) {
				c.Spec.AccessModes = []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany}
			}), causes: []string{"spec: FieldValueForbidden"}},

		{name: "a valid service", obj: service()},
		{name: "a service named as no DNS-1035 label", obj: edit(service(), func(s *corev1.Service) { s.Name = "1web" }),
			causes: []string{"metadata.name: FieldValueInvalid"}},
		{name: "a service port 0, unnamed beside another", obj: edit(service(), func(s *corev1.Service) {
			s.Spec.Ports = append(s.Spec.Ports, corev1.ServicePort{Port: 0})
		}), causes: []string{"spec.ports[1].name: FieldValueRequired", "spec.ports[1].port: FieldValueInvalid"}},
		{name: "a service targetPort name too long", obj: edit(service(), func(s *corev1.Service) { s.Spec.Ports[0].TargetPort = intstr.FromString("sixteen-letters-x") }),
			causes: []string{"spec.ports[0].targetPort: FieldValueInvalid"}},
		{name: "a service's clusterIP changed", old: edit(service(), func(s *corev1.Service) { s.Spec.ClusterIP = "10.0.0.1" }),
			obj: edit(service(), func(s *corev1.Service) { s.Spec.ClusterIP = "10.0.0.2" }), causes: []string{"spec.clusterIP: FieldValueInvalid"}},
		{name: "a service update that leaves clusterIP empty", old: edit(service(), func(s *corev1.Service) { s.Spec.ClusterIP = "10.0.0.1" }), obj: service()},

		{name: "a role named as a path segment", obj: &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "system:reader"}}},
		{name: "a role whose name has a slash", obj: &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "a/b"}},
			causes: []string{"metadata.name: FieldValueInvalid"}},
		{name: "a configmap key with a slash", obj: &corev1.ConfigMap{ObjectMeta: meta("cfg"), Data: map[string]string{"a/b": "x"}},
			causes: []string{"data[a/b]: FieldValueInvalid"}},
		{name: "an immutable configmap changed", old: &corev1.ConfigMap{ObjectMeta: meta("cfg"), Immutable: new(true), Data: map[string]string{"a": "1"}},
			obj: &corev1.ConfigMap{ObjectMeta: meta("cfg"), Immutable: new(true), Data: map[string]string{"a": "2"}}, causes: []string{"data: FieldValueForbidden"}},
		{name: "a TLS secret without a key", obj: &corev1.Secret{ObjectMeta: meta("tls"), Type: corev1.SecretTypeTLS, Data: map[string][]byte{"tls.crt": []byte("x")}},
			causes: []string{"data[tls.key]: FieldValueRequired"}},
		{name: "a secret's type changed from the default", old: &corev1.Secret{ObjectMeta: meta("s")},
			obj: &corev1.Secret{ObjectMeta: meta("s"), Type: corev1.SecretTypeBasicAuth}, causes: []string{"type: FieldValueInvalid"}},
		{name: "a secret's type spelled out as the default", old: &corev1.Secret{ObjectMeta: meta("s")},
			obj: &corev1.Secret{ObjectMeta: meta("s"), Type: corev1.SecretTypeOpaque}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := check(t, tc.old, tc.obj)
			if tc.causes == nil {
				require.NoError(t, err)
				return
			}
			require.True(t, model.IsInvalid(err), "want Invalid, got %v", err)
			var se *model.StatusError
			require.ErrorAs(t, err, &se)
			var got []string
			for _, c := range se.Causes {
				got = append(got, c.Field+": "+c.Type)
			}
			assert.Equal(t, tc.causes, got, se.Message)
		})
	}
}

// TestInvalidIsSortedAndWorded: the causes are sorted by field, whatever
// order the checks met them in, and the message is the API server's.
func TestInvalidIsSortedAndWorded(t *testing.T) {
	err := check(t, nil, edit(deployment(), func(d *appsv1.Deployment) {
		d.Name = "Web"
		d.Spec.Template.Spec.Containers[0].Ports[0].ContainerPort = 0
		d.Spec.Replicas = new(int32(-1))
	}))
	var se *model.StatusError
	require.ErrorAs(t, err, &se)
	var fields []string
	for _, c := range se.Causes {
		fields = append(fields, c.Field)
	}
	assert.Equal(t, []string{"metadata.name", "spec.replicas", "spec.template.spec.containers[0].ports[0].containerPort"}, fields)
	assert.True(t, strings.HasPrefix(se.Message, `Deployment.apps "Web" is invalid: [metadata.name: Invalid value: "Web": a lowercase RFC 1123 subdomain`), se.Message)
}

// TestStatusUpdatesAndCustomKindsPass: a status update and an object of
// a kind client-go does not know are not the built-in validation's.
func TestStatusUpdatesAndCustomKindsPass(t *testing.T) {
	conv, err := converter()
	require.NoError(t, err)
	bad := edit(&corev1.Pod{ObjectMeta: meta("web-0"), Spec: podSpec()}, func(p *corev1.Pod) { p.Spec.Containers = nil })
	mo, err := conv.ToModel(bad)
	require.NoError(t, err)
	fn := admit.Builtin(conv, namespaced)
	assert.NoError(t, fn("kubelet", model.VerbUpdateStatus, mo, mo))
	assert.NoError(t, fn("user", model.VerbCreate, nil, &model.Object{Kind: "Widget", Namespace: "default", Name: "Bad_Name"}))
}

// TestAQuantityThatDoesNotParseIsInvalid: a model object whose quantity
// is no Kubernetes quantity (an unstructured write can hold one) is
// Invalid, as the API server refuses a body it cannot decode.
func TestAQuantityThatDoesNotParseIsInvalid(t *testing.T) {
	conv, err := converter()
	require.NoError(t, err)
	mo, err := conv.ToModel(&corev1.Pod{ObjectMeta: meta("web-0"), Spec: podSpec()})
	require.NoError(t, err)
	mo.Spec.Set("containers[0].resources.limits.cpu", "lots")
	err = admit.Builtin(conv, namespaced)("user", model.VerbCreate, nil, mo)
	require.True(t, model.IsInvalid(err), "%v", err)
	assert.ErrorContains(t, err, "quantities must match the regular expression")
}
