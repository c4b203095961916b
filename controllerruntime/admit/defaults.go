package admit

import (
	"maps"
	"sync"

	"github.com/converge-sim/converge/controllerruntime/convert"
	"github.com/converge-sim/converge/model"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// defaulted are the built-in kinds Defaults fills fields of.
var defaulted = map[schema.GroupKind]bool{
	{Kind: "Pod"}: true, {Kind: "Service"}: true, {Kind: "PersistentVolumeClaim"}: true, {Kind: "Secret"}: true,
	{Group: "apps", Kind: "Deployment"}: true, {Group: "apps", Kind: "ReplicaSet"}: true,
	{Group: "apps", Kind: "StatefulSet"}: true, {Group: "apps", Kind: "DaemonSet"}: true,
	{Group: "batch", Kind: "Job"}: true, {Group: "batch", Kind: "CronJob"}: true,
}

// Defaults returns the admission step that fills, on create and update,
// the fields of built-in kinds the real API server's defaulting fills (the
// SetDefaults_* functions of k8s.io/kubernetes/pkg/apis/*/v1, which cannot
// be required as a module, rewritten from their behaviour): a Deployment
// stored without replicas reads back with 1, a container without an
// imagePullPolicy with the one its image's tag implies, and so on, as
// controllerruntime/README.md ("Defaults of built-in kinds") lists. An
// operator that compares a whole desired spec with the stored one then
// sees the difference a real cluster shows it (docs/design.md, "The API
// server defaults built-in kinds").
//
// It must run before validation, as the API server defaults a body when
// it decodes it. The object is decoded into its Go type, defaulted there,
// and only the fields the defaulting changed are written back into the
// model object, so that its other fields keep their exact form. Status
// writes, custom resources and kinds without defaults pass untouched.
func Defaults(conv *convert.Converter) model.Admission {
	return defaults(conv, memoOf(conv))
}

// DefaultsFresh is Defaults without its memo: every write is decoded and
// defaulted afresh. It is the reference the memo is tested against.
func DefaultsFresh(conv *convert.Converter) model.Admission {
	return defaults(conv, nil)
}

// defaults is Defaults, through memo when there is one.
func defaults(conv *convert.Converter, memo *defaultsMemo) model.Admission {
	return func(_ string, verb model.Verb, _, obj *model.Object) error {
		if verb != model.VerbCreate && verb != model.VerbUpdate {
			return nil
		}
		gvk, err := conv.GVK(obj.Kind)
		if err != nil || !defaulted[gvk.GroupKind()] || gvk.Version != "v1" {
			return nil
		}
		if e, ok := memo.lookup(obj); ok {
			e.applyTo(obj)
			return nil
		}
		typed, err := decode(conv, obj)
		if err != nil {
			return err
		}
		before, err := conv.ToModel(typed)
		if err != nil {
			return err
		}
		setDefaults(typed)
		after, err := conv.ToModel(typed)
		if err != nil {
			return err
		}
		e := defaultsEntry{kind: obj.Kind, spec: obj.Spec, status: obj.Status, labels: obj.Labels, labelsOut: after.Labels}
		if out := patched(obj.Spec, before.Spec, after.Spec); !out.Equal(obj.Spec) {
			e.specOut, e.specChanged = out, true
		}
		memo.keep(e)
		e.applyTo(obj)
		return nil
	}
}

// The defaults a write gets are a function of its kind, spec, status and
// labels (with annotations: model.Labels holds both): the object decoded
// from them alone fails or not, setDefaults reads its spec and, for a
// Job, its labels, and Defaults writes back the spec and, to an object
// without labels, the labels. Its name, owners and the rest of its
// metadata are read by nothing whose result Defaults keeps. So a memo of
// the last few results by that content, compared with Fields.Equal and
// Labels.Equal, gives what defaulting afresh gives: the pods of one
// template, a Job's re-creations and an unchanged workload's updates are
// decoded and encoded twice once, not at every write. Results that are
// errors are not kept.

// defaultsEntries is how many results of one kind a memo keeps, the most
// recently used first.
const defaultsEntries = 16

// defaultsEntry is one result of Defaults: the input it was computed
// from and what it writes back.
type defaultsEntry struct {
	kind         string
	spec, status model.Fields
	labels       model.Labels
	specOut      model.Fields
	specChanged  bool
	labelsOut    model.Labels
}

// applyTo writes the result back into obj, whose content is the entry's.
func (e *defaultsEntry) applyTo(obj *model.Object) {
	if e.specChanged {
		obj.Spec = e.specOut
	}
	if obj.Labels.Len() == 0 {
		obj.Labels = e.labelsOut
	}
}

// defaultsMemo keeps results of Defaults for one converter (a pinned
// converter is another one), by kind. It is safe for concurrent use: a
// scenario's converter is shared by fuzzrun's workers.
type defaultsMemo struct {
	mu   sync.Mutex
	kept map[string][]defaultsEntry
}

// memos holds the memo of each converter Defaults was given; more than
// maxMemos converters start them afresh.
var (
	memosMu sync.Mutex
	memos   = map[*convert.Converter]*defaultsMemo{}
)

const maxMemos = 64

func memoOf(conv *convert.Converter) *defaultsMemo {
	memosMu.Lock()
	defer memosMu.Unlock()
	if m, ok := memos[conv]; ok {
		return m
	}
	if len(memos) >= maxMemos {
		clear(memos)
	}
	m := &defaultsMemo{kept: map[string][]defaultsEntry{}}
	memos[conv] = m
	return m
}

// lookup returns the kept result for obj's content, moved to the front.
func (m *defaultsMemo) lookup(obj *model.Object) (defaultsEntry, bool) {
	if m == nil {
		return defaultsEntry{}, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	kept := m.kept[obj.Kind]
	for i, e := range kept {
		if e.spec.Equal(obj.Spec) && e.status.Equal(obj.Status) && e.labels.Equal(obj.Labels) {
			copy(kept[1:i+1], kept[:i])
			kept[0] = e
			return e, true
		}
	}
	return defaultsEntry{}, false
}

// keep puts e at the front of its kind's results.
func (m *defaultsMemo) keep(e defaultsEntry) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	kept := m.kept[e.kind]
	if len(kept) < defaultsEntries {
		kept = append(kept, defaultsEntry{})
	}
	copy(kept[1:], kept[:len(kept)-1])
	kept[0] = e
	m.kept[e.kind] = kept
}

// patched returns spec with the change from before to after: the paths
// after lost are removed (an empty object's marker, once it has fields),
// and those it added or changed are set. spec itself is returned when
// nothing changed.
func patched(spec, before, after model.Fields) model.Fields {
	var gone []string
	for p := range before.All() {
		if !after.Has(p) {
			gone = append(gone, p)
		}
	}
	set := model.Values{}
	for p, v := range after.All() {
		if w, ok := before.Get(p); !ok || w != v {
			set[p] = v
		}
	}
	if len(gone) == 0 && len(set) == 0 {
		return spec
	}
	vals := model.Values{}
	for p, v := range spec.All() {
		vals[p] = v
	}
	for _, p := range gone {
		delete(vals, p)
	}
	maps.Copy(vals, set)
	return model.NewFields(vals)
}

// setDefaults applies the defaulting of obj's kind to it.
func setDefaults(obj client.Object) {
	switch o := obj.(type) {
	case *corev1.Pod:
		defaultPod(o)
	case *corev1.Service:
		defaultService(o)
	case *corev1.PersistentVolumeClaim:
		defaultClaimSpec(&o.Spec)
	case *corev1.Secret:
		if o.Type == "" {
			o.Type = corev1.SecretTypeOpaque
		}
	case *appsv1.Deployment:
		defaultDeployment(o)
	case *appsv1.ReplicaSet:
		if o.Spec.Replicas == nil {
			o.Spec.Replicas = ptr.To[int32](1)
		}
		defaultPodSpec(&o.Spec.Template.Spec)
	case *appsv1.StatefulSet:
		defaultStatefulSet(o)
	case *appsv1.DaemonSet:
		defaultDaemonSet(o)
	case *batchv1.Job:
		defaultJob(o)
	case *batchv1.CronJob:
		defaultCronJob(o)
	}
}

// defaultRevisionHistoryLimit is the revisionHistoryLimit of apps/v1's
// Deployments, StatefulSets and DaemonSets.
const defaultRevisionHistoryLimit = 10

// defaultDeployment is apps/v1's SetDefaults_Deployment, with the pod
// template's defaults.
func defaultDeployment(d *appsv1.Deployment) {
	s := &d.Spec
	if s.Replicas == nil {
		s.Replicas = ptr.To[int32](1)
	}
	if s.Strategy.Type == "" {
		s.Strategy.Type = appsv1.RollingUpdateDeploymentStrategyType
	}
	if s.Strategy.Type == appsv1.RollingUpdateDeploymentStrategyType {
		if s.Strategy.RollingUpdate == nil {
			s.Strategy.RollingUpdate = &appsv1.RollingUpdateDeployment{}
		}
		quarter := intstr.FromString("25%")
		if s.Strategy.RollingUpdate.MaxUnavailable == nil {
			s.Strategy.RollingUpdate.MaxUnavailable = ptr.To(quarter)
		}
		if s.Strategy.RollingUpdate.MaxSurge == nil {
			s.Strategy.RollingUpdate.MaxSurge = ptr.To(quarter)
		}
	}
	if s.RevisionHistoryLimit == nil {
		s.RevisionHistoryLimit = ptr.To[int32](defaultRevisionHistoryLimit)
	}
	if s.ProgressDeadlineSeconds == nil {
		s.ProgressDeadlineSeconds = ptr.To[int32](600)
	}
	defaultPodSpec(&s.Template.Spec)
}

// defaultStatefulSet is apps/v1's SetDefaults_StatefulSet with the
// features on by default in v1.37 (StatefulSetAutoDeletePVC, GA;
// MaxUnavailableStatefulSet, beta), the pod template's defaults and the
// claim templates' (SetDefaults_PersistentVolumeClaim and its spec's).
func defaultStatefulSet(ss *appsv1.StatefulSet) {
	s := &ss.Spec
	if s.PodManagementPolicy == "" {
		s.PodManagementPolicy = appsv1.OrderedReadyPodManagement
	}
	u := &s.UpdateStrategy
	if u.Type == "" {
		u.Type = appsv1.RollingUpdateStatefulSetStrategyType
		if u.RollingUpdate == nil {
			u.RollingUpdate = &appsv1.RollingUpdateStatefulSetStrategy{}
		}
	}
	if u.Type == appsv1.RollingUpdateStatefulSetStrategyType && u.RollingUpdate != nil {
		if u.RollingUpdate.Partition == nil {
			u.RollingUpdate.Partition = ptr.To[int32](0)
		}
		if u.RollingUpdate.MaxUnavailable == nil {
			u.RollingUpdate.MaxUnavailable = ptr.To(intstr.FromInt32(1))
		}
	}
	if s.PersistentVolumeClaimRetentionPolicy == nil {
		s.PersistentVolumeClaimRetentionPolicy = &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{}
	}
	if s.PersistentVolumeClaimRetentionPolicy.WhenDeleted == "" {
		s.PersistentVolumeClaimRetentionPolicy.WhenDeleted = appsv1.RetainPersistentVolumeClaimRetentionPolicyType
	}
	if s.PersistentVolumeClaimRetentionPolicy.WhenScaled == "" {
		s.PersistentVolumeClaimRetentionPolicy.WhenScaled = appsv1.RetainPersistentVolumeClaimRetentionPolicyType
	}
	if s.Replicas == nil {
		s.Replicas = ptr.To[int32](1)
	}
	if s.RevisionHistoryLimit == nil {
		s.RevisionHistoryLimit = ptr.To[int32](defaultRevisionHistoryLimit)
	}
	defaultPodSpec(&s.Template.Spec)
	for i := range s.VolumeClaimTemplates {
		c := &s.VolumeClaimTemplates[i]
		if c.Status.Phase == "" {
			c.Status.Phase = corev1.ClaimPending
		}
		defaultClaimSpec(&c.Spec)
	}
}

// defaultDaemonSet is apps/v1's SetDefaults_DaemonSet, with the pod
// template's defaults.
func defaultDaemonSet(ds *appsv1.DaemonSet) {
	s := &ds.Spec
	u := &s.UpdateStrategy
	if u.Type == "" {
		u.Type = appsv1.RollingUpdateDaemonSetStrategyType
	}
	if u.Type == appsv1.RollingUpdateDaemonSetStrategyType {
		if u.RollingUpdate == nil {
			u.RollingUpdate = &appsv1.RollingUpdateDaemonSet{}
		}
		if u.RollingUpdate.MaxUnavailable == nil {
			u.RollingUpdate.MaxUnavailable = ptr.To(intstr.FromInt32(1))
		}
		if u.RollingUpdate.MaxSurge == nil {
			u.RollingUpdate.MaxSurge = ptr.To(intstr.FromInt32(0))
		}
	}
	if s.RevisionHistoryLimit == nil {
		s.RevisionHistoryLimit = ptr.To[int32](defaultRevisionHistoryLimit)
	}
	defaultPodSpec(&s.Template.Spec)
}

// defaultJob is batch/v1's SetDefaults_Job (the Job takes its template's
// labels when it has none; manualSelector is false), with the pod
// template's defaults. The selector and labels the Job strategy generates
// are not (README).
func defaultJob(j *batchv1.Job) {
	s := &j.Spec
	if s.Completions == nil && s.Parallelism == nil {
		s.Completions = ptr.To[int32](1)
	}
	if s.Parallelism == nil {
		s.Parallelism = ptr.To[int32](1)
	}
	if s.BackoffLimit == nil {
		if s.BackoffLimitPerIndex != nil {
			s.BackoffLimit = ptr.To[int32](2147483647)
		} else {
			s.BackoffLimit = ptr.To[int32](6)
		}
	}
	if len(j.Labels) == 0 && s.Template.Labels != nil {
		j.Labels = s.Template.Labels
	}
	if s.CompletionMode == nil {
		s.CompletionMode = ptr.To(batchv1.NonIndexedCompletion)
	}
	if s.Suspend == nil {
		s.Suspend = ptr.To(false)
	}
	if s.PodFailurePolicy != nil {
		for _, rule := range s.PodFailurePolicy.Rules {
			for i := range rule.OnPodConditions {
				if rule.OnPodConditions[i].Status == "" {
					rule.OnPodConditions[i].Status = corev1.ConditionTrue
				}
			}
		}
	}
	if s.PodReplacementPolicy == nil {
		if s.PodFailurePolicy != nil {
			s.PodReplacementPolicy = ptr.To(batchv1.Failed)
		} else {
			s.PodReplacementPolicy = ptr.To(batchv1.TerminatingOrFailed)
		}
	}
	if s.ManualSelector == nil {
		s.ManualSelector = ptr.To(false)
	}
	defaultPodSpec(&s.Template.Spec)
}

// defaultCronJob is batch/v1's SetDefaults_CronJob, with the job
// template's pod template's defaults (the job template's spec itself is
// not a Job's, and gets none).
func defaultCronJob(cj *batchv1.CronJob) {
	s := &cj.Spec
	if s.ConcurrencyPolicy == "" {
		s.ConcurrencyPolicy = batchv1.AllowConcurrent
	}
	if s.Suspend == nil {
		s.Suspend = ptr.To(false)
	}
	if s.SuccessfulJobsHistoryLimit == nil {
		s.SuccessfulJobsHistoryLimit = ptr.To[int32](3)
	}
	if s.FailedJobsHistoryLimit == nil {
		s.FailedJobsHistoryLimit = ptr.To[int32](1)
	}
	defaultPodSpec(&s.JobTemplate.Spec.Template.Spec)
}

// defaultService is core/v1's SetDefaults_Service, and the IP family
// fields the API server's Service registry sets, as on a single-stack IPv4
// cluster; it allocates no cluster IP or node port, as the model does not.
func defaultService(svc *corev1.Service) {
	s := &svc.Spec
	if s.SessionAffinity == "" {
		s.SessionAffinity = corev1.ServiceAffinityNone
	}
	if s.SessionAffinity == corev1.ServiceAffinityNone {
		s.SessionAffinityConfig = nil
	}
	if s.SessionAffinity == corev1.ServiceAffinityClientIP {
		if s.SessionAffinityConfig == nil {
			s.SessionAffinityConfig = &corev1.SessionAffinityConfig{}
		}
		if s.SessionAffinityConfig.ClientIP == nil {
			s.SessionAffinityConfig.ClientIP = &corev1.ClientIPConfig{}
		}
		if s.SessionAffinityConfig.ClientIP.TimeoutSeconds == nil {
			s.SessionAffinityConfig.ClientIP.TimeoutSeconds = ptr.To[int32](corev1.DefaultClientIPServiceAffinitySeconds)
		}
	}
	if s.Type == "" {
		s.Type = corev1.ServiceTypeClusterIP
	}
	for i := range s.Ports {
		p := &s.Ports[i]
		if p.Protocol == "" {
			p.Protocol = corev1.ProtocolTCP
		}
		if p.TargetPort == intstr.FromInt32(0) || p.TargetPort == intstr.FromString("") {
			p.TargetPort = intstr.FromInt32(p.Port)
		}
	}
	external := s.Type == corev1.ServiceTypeNodePort || s.Type == corev1.ServiceTypeLoadBalancer ||
		s.Type == corev1.ServiceTypeClusterIP && len(s.ExternalIPs) > 0
	if external && s.ExternalTrafficPolicy == "" {
		s.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyCluster
	}
	if s.InternalTrafficPolicy == nil && s.Type != corev1.ServiceTypeExternalName {
		s.InternalTrafficPolicy = ptr.To(corev1.ServiceInternalTrafficPolicyCluster)
	}
	if s.Type == corev1.ServiceTypeLoadBalancer && s.AllocateLoadBalancerNodePorts == nil {
		s.AllocateLoadBalancerNodePorts = ptr.To(true)
	}
	if s.Type == corev1.ServiceTypeExternalName {
		return
	}
	if s.IPFamilyPolicy == nil {
		policy := corev1.IPFamilyPolicySingleStack
		if s.ClusterIP == corev1.ClusterIPNone && len(s.Selector) == 0 {
			policy = corev1.IPFamilyPolicyRequireDualStack
		}
		s.IPFamilyPolicy = &policy
	}
	if len(s.IPFamilies) == 0 {
		s.IPFamilies = []corev1.IPFamily{corev1.IPv4Protocol}
	}
}

// defaultClaimSpec is core/v1's SetDefaults_PersistentVolumeClaimSpec.
func defaultClaimSpec(s *corev1.PersistentVolumeClaimSpec) {
	if s.VolumeMode == nil {
		s.VolumeMode = ptr.To(corev1.PersistentVolumeFilesystem)
	}
}
