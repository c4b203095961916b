package admit_test

import (
	"testing"

	"github.com/converge-sim/converge/controllerruntime/admit"
	"github.com/converge-sim/converge/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// defaulted runs Defaults on a create of obj and returns what it stores,
// as a typed object of obj's type.
func defaulted[T client.Object](t *testing.T, obj T) T {
	t.Helper()
	conv, err := converter()
	require.NoError(t, err)
	mo, err := conv.ToModel(obj)
	require.NoError(t, err)
	require.NoError(t, admit.Defaults(conv)("user", model.VerbCreate, nil, mo))
	out := obj.DeepCopyObject().(T)
	require.NoError(t, conv.FromModel(mo, out))
	return out
}

// wantPodSpec is spec as a pod template's defaults leave it.
func wantPodSpec(spec corev1.PodSpec) corev1.PodSpec {
	if spec.RestartPolicy == "" {
		spec.RestartPolicy = corev1.RestartPolicyAlways
	}
	spec.DNSPolicy = corev1.DNSClusterFirst
	spec.SchedulerName = "default-scheduler"
	spec.TerminationGracePeriodSeconds = ptr.To[int64](30)
	spec.SecurityContext = &corev1.PodSecurityContext{}
	c := &spec.Containers[0]
	c.ImagePullPolicy = corev1.PullIfNotPresent
	c.TerminationMessagePath = "/dev/termination-log"
	c.TerminationMessagePolicy = corev1.TerminationMessageReadFile
	return spec
}

// TestDefaultsPerKind: each kind created without its defaulted fields
// reads back with the values a v1.37 API server gives them.
func TestDefaultsPerKind(t *testing.T) {
	t.Run("Deployment", func(t *testing.T) {
		got := defaulted(t, deployment())
		quarter := intstr.FromString("25%")
		assert.Equal(t, appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](1),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: wantPodSpec(podSpec())},
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDeployment{MaxUnavailable: &quarter, MaxSurge: &quarter}},
			RevisionHistoryLimit:    ptr.To[int32](10),
			ProgressDeadlineSeconds: ptr.To[int32](600),
		}, got.Spec)
	})
	t.Run("ReplicaSet", func(t *testing.T) {
		rs := &appsv1.ReplicaSet{ObjectMeta: meta("web"), Spec: appsv1.ReplicaSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: podSpec()},
		}}
		got := defaulted(t, rs)
		assert.Equal(t, ptr.To[int32](1), got.Spec.Replicas)
		assert.Equal(t, wantPodSpec(podSpec()), got.Spec.Template.Spec)
	})
	t.Run("StatefulSet", func(t *testing.T) {
		got := defaulted(t, statefulSet())
		want := statefulSet().Spec
		want.Replicas = ptr.To[int32](1)
		want.PodManagementPolicy = appsv1.OrderedReadyPodManagement
		want.UpdateStrategy = appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType,
			RollingUpdate: &appsv1.RollingUpdateStatefulSetStrategy{Partition: ptr.To[int32](0), MaxUnavailable: ptr.To(intstr.FromInt32(1))}}
		want.RevisionHistoryLimit = ptr.To[int32](10)
		want.PersistentVolumeClaimRetentionPolicy = &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{
			WhenDeleted: appsv1.RetainPersistentVolumeClaimRetentionPolicyType, WhenScaled: appsv1.RetainPersistentVolumeClaimRetentionPolicyType}
		want.Template.Spec = wantPodSpec(want.Template.Spec)
		want.VolumeClaimTemplates[0].Spec.VolumeMode = ptr.To(corev1.PersistentVolumeFilesystem)
		want.VolumeClaimTemplates[0].Status.Phase = corev1.ClaimPending
		assert.Equal(t, want, got.Spec)
	})
	t.Run("StatefulSet OnDelete keeps no rolling update", func(t *testing.T) {
		ss := statefulSet()
		ss.Spec.UpdateStrategy.Type = appsv1.OnDeleteStatefulSetStrategyType
		assert.Nil(t, defaulted(t, ss).Spec.UpdateStrategy.RollingUpdate)
	})
	t.Run("DaemonSet", func(t *testing.T) {
		ds := &appsv1.DaemonSet{ObjectMeta: meta("agent"), Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: podSpec()},
		}}
		got := defaulted(t, ds)
		assert.Equal(t, appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType,
			RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: ptr.To(intstr.FromInt32(1)), MaxSurge: ptr.To(intstr.FromInt32(0))}},
			got.Spec.UpdateStrategy)
		assert.Equal(t, ptr.To[int32](10), got.Spec.RevisionHistoryLimit)
		assert.Equal(t, wantPodSpec(podSpec()), got.Spec.Template.Spec)
	})
	t.Run("Job", func(t *testing.T) {
		j := job()
		j.Labels = nil
		j.Spec.Template.Labels = map[string]string{"task": "migrate"}
		got := defaulted(t, j)
		want := job().Spec
		want.Template.Labels = map[string]string{"task": "migrate"}
		want.Completions, want.Parallelism, want.BackoffLimit = ptr.To[int32](1), ptr.To[int32](1), ptr.To[int32](6)
		want.CompletionMode = ptr.To(batchv1.NonIndexedCompletion)
		want.Suspend = ptr.To(false)
		want.PodReplacementPolicy = ptr.To(batchv1.TerminatingOrFailed)
		want.ManualSelector = ptr.To(false)
		want.Template.Spec = wantPodSpec(want.Template.Spec)
		assert.Equal(t, want, got.Spec)
		assert.Equal(t, map[string]string{"task": "migrate"}, got.Labels, "a Job without labels takes its template's")
	})
	t.Run("Job parallel and with a failure policy", func(t *testing.T) {
		j := job()
		j.Spec.Parallelism = ptr.To[int32](3)
		j.Spec.PodFailurePolicy = &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{{
			Action: batchv1.PodFailurePolicyActionIgnore, OnPodConditions: []batchv1.PodFailurePolicyOnPodConditionsPattern{{Type: corev1.DisruptionTarget}},
		}}}
		got := defaulted(t, j)
		assert.Nil(t, got.Spec.Completions, "a parallel Job's completions stay unset")
		assert.Equal(t, ptr.To(batchv1.Failed), got.Spec.PodReplacementPolicy)
		assert.Equal(t, corev1.ConditionTrue, got.Spec.PodFailurePolicy.Rules[0].OnPodConditions[0].Status)
		assert.Equal(t, meta("migrate").Labels, got.Labels, "a Job's own labels stay")
	})
	t.Run("CronJob", func(t *testing.T) {
		cj := &batchv1.CronJob{ObjectMeta: meta("nightly"), Spec: batchv1.CronJobSpec{Schedule: "0 0 * * *",
			JobTemplate: batchv1.JobTemplateSpec{Spec: job().Spec}}}
		got := defaulted(t, cj)
		want := cj.Spec
		want.ConcurrencyPolicy = batchv1.AllowConcurrent
		want.Suspend = ptr.To(false)
		want.SuccessfulJobsHistoryLimit, want.FailedJobsHistoryLimit = ptr.To[int32](3), ptr.To[int32](1)
		want.JobTemplate.Spec.Template.Spec = wantPodSpec(want.JobTemplate.Spec.Template.Spec)
		assert.Equal(t, want, got.Spec, "the job template's own spec gets no Job defaults")
	})
	t.Run("Service", func(t *testing.T) {
		got := defaulted(t, service())
		assert.Equal(t, corev1.ServiceSpec{
			Selector:              labels,
			Ports:                 []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromString("http"), Protocol: corev1.ProtocolTCP}},
			Type:                  corev1.ServiceTypeClusterIP,
			SessionAffinity:       corev1.ServiceAffinityNone,
			InternalTrafficPolicy: ptr.To(corev1.ServiceInternalTrafficPolicyCluster),
			IPFamilyPolicy:        ptr.To(corev1.IPFamilyPolicySingleStack),
			IPFamilies:            []corev1.IPFamily{corev1.IPv4Protocol},
		}, got.Spec)
	})
	t.Run("Service LoadBalancer with client IP affinity", func(t *testing.T) {
		svc := service()
		svc.Spec.Type = corev1.ServiceTypeLoadBalancer
		svc.Spec.SessionAffinity = corev1.ServiceAffinityClientIP
		got := defaulted(t, svc)
		assert.Equal(t, corev1.ServiceExternalTrafficPolicyCluster, got.Spec.ExternalTrafficPolicy)
		assert.Equal(t, ptr.To(true), got.Spec.AllocateLoadBalancerNodePorts)
		assert.Equal(t, ptr.To[int32](10800), got.Spec.SessionAffinityConfig.ClientIP.TimeoutSeconds)
	})
	t.Run("Service headless without selector", func(t *testing.T) {
		svc := service()
		svc.Spec.Selector = nil
		svc.Spec.ClusterIP = corev1.ClusterIPNone
		assert.Equal(t, ptr.To(corev1.IPFamilyPolicyRequireDualStack), defaulted(t, svc).Spec.IPFamilyPolicy)
	})
	t.Run("Service ExternalName", func(t *testing.T) {
		svc := &corev1.Service{ObjectMeta: meta("ext"), Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "db.example"}}
		got := defaulted(t, svc)
		assert.Nil(t, got.Spec.IPFamilyPolicy)
		assert.Nil(t, got.Spec.InternalTrafficPolicy)
		assert.Empty(t, got.Spec.IPFamilies)
	})
	t.Run("PersistentVolumeClaim", func(t *testing.T) {
		pvc := &corev1.PersistentVolumeClaim{ObjectMeta: meta("data"), Spec: claimSpec("1Gi")}
		assert.Equal(t, ptr.To(corev1.PersistentVolumeFilesystem), defaulted(t, pvc).Spec.VolumeMode)
	})
	t.Run("Secret", func(t *testing.T) {
		s := &corev1.Secret{ObjectMeta: meta("creds"), StringData: map[string]string{"k": "v"}}
		assert.Equal(t, corev1.SecretTypeOpaque, defaulted(t, s).Type)
	})
	t.Run("Pod", func(t *testing.T) {
		spec := podSpec()
		spec.Containers[0].Resources.Requests = nil
		spec.HostNetwork = true
		pod := &corev1.Pod{ObjectMeta: meta("web-0"), Spec: spec}
		got := defaulted(t, pod)
		want := wantPodSpec(spec)
		want.EnableServiceLinks = ptr.To(true)
		want.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}
		want.Containers[0].Ports[0].HostPort = 8080
		assert.Equal(t, want, got.Spec)
	})
}

// TestPodSpecDefaultsOfNestedFields: container ports, environment,
// probes, lifecycle handlers and volumes get their defaults inside a
// template; set values stay.
func TestPodSpecDefaultsOfNestedFields(t *testing.T) {
	d := deployment()
	s := &d.Spec.Template.Spec
	c := &s.Containers[0]
	c.Ports = append(c.Ports, corev1.ContainerPort{Name: "dns", ContainerPort: 53})
	c.Env = []corev1.EnvVar{{Name: "POD", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}}}
	c.LivenessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Port: intstr.FromInt32(8080)}}}
	c.ReadinessProbe = &corev1.Probe{PeriodSeconds: 5, ProbeHandler: corev1.ProbeHandler{GRPC: &corev1.GRPCAction{Port: 9090}}}
	c.Lifecycle = &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/stop", Port: intstr.FromInt32(8080)}}}
	s.Volumes = []corev1.Volume{
		{Name: "cfg", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "cfg"}}}},
		{Name: "tls", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "tls", DefaultMode: ptr.To[int32](0o400)}}},
		{Name: "scratch"},
		{Name: "host", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/var/log"}}},
	}
	got := defaulted(t, d).Spec.Template.Spec
	gc := got.Containers[0]
	assert.Equal(t, corev1.ProtocolTCP, gc.Ports[0].Protocol)
	assert.Equal(t, corev1.ProtocolTCP, gc.Ports[1].Protocol)
	assert.Zero(t, gc.Ports[0].HostPort, "a template's host ports are not defaulted")
	assert.Equal(t, "v1", gc.Env[0].ValueFrom.FieldRef.APIVersion)
	assert.Equal(t, &corev1.Probe{TimeoutSeconds: 1, PeriodSeconds: 10, SuccessThreshold: 1, FailureThreshold: 3,
		ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/", Scheme: corev1.URISchemeHTTP, Port: intstr.FromInt32(8080)}}}, gc.LivenessProbe)
	assert.Equal(t, int32(5), gc.ReadinessProbe.PeriodSeconds)
	assert.Equal(t, ptr.To(""), gc.ReadinessProbe.GRPC.Service)
	assert.Equal(t, &corev1.HTTPGetAction{Path: "/stop", Scheme: corev1.URISchemeHTTP, Port: intstr.FromInt32(8080)}, gc.Lifecycle.PreStop.HTTPGet)
	assert.Equal(t, ptr.To[int32](0o644), got.Volumes[0].ConfigMap.DefaultMode)
	assert.Equal(t, ptr.To[int32](0o400), got.Volumes[1].Secret.DefaultMode)
	assert.Equal(t, &corev1.EmptyDirVolumeSource{}, got.Volumes[2].EmptyDir, "a volume with no source is an emptyDir")
	assert.Equal(t, ptr.To(corev1.HostPathUnset), got.Volumes[3].HostPath.Type)
	assert.Nil(t, got.EnableServiceLinks, "only a Pod gets enableServiceLinks")
}

// TestImagePullPolicyFollowsTheTag: Always for :latest or no tag,
// IfNotPresent for any other tag or a digest alone; a set policy stays.
func TestImagePullPolicyFollowsTheTag(t *testing.T) {
	for image, want := range map[string]corev1.PullPolicy{
		"nginx": corev1.PullAlways, "nginx:latest": corev1.PullAlways, "registry:5000/team/app": corev1.PullAlways,
		"nginx:1.27": corev1.PullIfNotPresent, "registry:5000/team/app:v2": corev1.PullIfNotPresent,
		"nginx@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef":        corev1.PullIfNotPresent,
		"nginx:latest@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef": corev1.PullAlways,
	} {
		d := deployment()
		d.Spec.Template.Spec.Containers[0].Image = image
		assert.Equal(t, want, defaulted(t, d).Spec.Template.Spec.Containers[0].ImagePullPolicy, image)
	}
	d := deployment()
	d.Spec.Template.Spec.Containers[0].ImagePullPolicy = corev1.PullNever
	assert.Equal(t, corev1.PullNever, defaulted(t, d).Spec.Template.Spec.Containers[0].ImagePullPolicy)
}

// TestServiceTargetPortsDefaultAsTheAPIServer: an unset, zero or empty
// targetPort becomes the port; a set one stays.
func TestServiceTargetPortsDefaultAsTheAPIServer(t *testing.T) {
	svc := service()
	svc.Spec.Ports = []corev1.ServicePort{
		{Port: 80, TargetPort: intstr.FromInt32(0)}, {Port: 81}, {Port: 82, TargetPort: intstr.FromString("")},
		{Port: 83, TargetPort: intstr.FromString("http")},
	}
	var got []intstr.IntOrString
	for _, p := range defaulted(t, svc).Spec.Ports {
		got = append(got, p.TargetPort)
	}
	assert.Equal(t, []intstr.IntOrString{intstr.FromInt32(80), intstr.FromInt32(81), intstr.FromInt32(82), intstr.FromString("http")}, got)
}

// TestDefaultsTouchOnlyWhatTheyFill: a defaulted object is left as it is
// (defaulting is idempotent), fields the Go type does not know stay, a
// status write, a delete and a kind without defaults are untouched.
func TestDefaultsTouchOnlyWhatTheyFill(t *testing.T) {
	conv, err := converter()
	require.NoError(t, err)
	defaults := admit.Defaults(conv)
	mo, err := conv.ToModel(deployment())
	require.NoError(t, err)
	mo.Spec.Set("template.spec.containers[0].custom", "kept")
	require.NoError(t, defaults("user", model.VerbCreate, nil, mo))
	assert.Equal(t, "kept", mo.Spec.Value("template.spec.containers[0].custom"))
	assert.Equal(t, int64(1), mo.Spec.Value("replicas"))
	assert.True(t, mo.Spec.Has("template.spec.securityContext{}"), "an empty securityContext is stored as one")
	once := mo.Spec
	require.NoError(t, defaults("user", model.VerbUpdate, mo, mo))
	assert.True(t, once.Equal(mo.Spec), "defaulting twice changes nothing")

	for _, verb := range []model.Verb{model.VerbUpdateStatus, model.VerbDelete} {
		mo, err := conv.ToModel(deployment())
		require.NoError(t, err)
		require.NoError(t, defaults("user", verb, nil, mo))
		assert.False(t, mo.Spec.Has("replicas"), verb)
	}
	cm, err := conv.ToModel(&corev1.ConfigMap{ObjectMeta: meta("cfg"), Data: map[string]string{"k": "v"}})
	require.NoError(t, err)
	was := cm.Spec
	require.NoError(t, defaults("user", model.VerbCreate, nil, cm))
	assert.True(t, was.Equal(cm.Spec))
}

// BenchmarkDefaults compares the cost of defaulting a Deployment create
// with that of validating it, the step the API server runs next.
func BenchmarkDefaults(b *testing.B) {
	conv, err := converter()
	require.NoError(b, err)
	mo, err := conv.ToModel(deployment())
	require.NoError(b, err)
	for name, step := range map[string]model.Admission{"defaults": admit.Defaults(conv), "validate": admit.Builtin(conv, namespaced)} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				obj := *mo
				if err := step("user", model.VerbCreate, nil, &obj); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestTheDefaultsMemoGivesWhatDefaultingAfreshGives: Defaults, which keeps
// its last results by kind, spec, status and labels, stores what
// DefaultsFresh stores, on the first write of a content and on every write
// after; objects that differ only in what the key leaves out (name) share
// a result, and those that differ in labels do not (a Job without labels
// takes its template's).
func TestTheDefaultsMemoGivesWhatDefaultingAfreshGives(t *testing.T) {
	conv, err := converter()
	require.NoError(t, err)
	template := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: podSpec()}
	job := func(name string, jobLabels map[string]string) *batchv1.Job {
		m := meta(name)
		m.Labels = jobLabels
		return &batchv1.Job{ObjectMeta: m, Spec: batchv1.JobSpec{Template: template}}
	}
	objs := []client.Object{
		deployment(), deployment(),
		&corev1.Pod{ObjectMeta: meta("a"), Spec: podSpec()}, &corev1.Pod{ObjectMeta: meta("b"), Spec: podSpec()},
		job("with-labels", map[string]string{"own": "yes"}), job("without", nil), job("with-labels-2", map[string]string{"own": "yes"}), job("without-2", nil),
		&corev1.Service{ObjectMeta: meta("svc"), Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}}},
		&corev1.Secret{ObjectMeta: meta("s")},
	}
	for round := range 2 {
		for _, obj := range objs {
			memo, err := conv.ToModel(obj)
			require.NoError(t, err)
			fresh := memo.DeepCopy()
			require.NoError(t, admit.Defaults(conv)("user", model.VerbCreate, nil, memo))
			require.NoError(t, admit.DefaultsFresh(conv)("user", model.VerbCreate, nil, fresh))
			assert.Equal(t, fresh, memo, "round %d, %s %s", round, memo.Kind, memo.Name)
		}
	}
}
