package admit

import (
	"reflect"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
)

// defaultMode is the file mode of the files of secret, configMap,
// downwardAPI and projected volumes when none is given: 0644.
const defaultMode int32 = 0o644

// defaultPod is core/v1's SetDefaults_Pod with its spec's defaults: what
// a Pod gets beyond a pod template's (enableServiceLinks, requests from
// limits, host ports on the host network).
func defaultPod(p *corev1.Pod) {
	s := &p.Spec
	for _, cs := range [][]corev1.Container{s.Containers, s.InitContainers} {
		for i := range cs {
			r := &cs[i].Resources
			if r.Limits == nil {
				continue
			}
			if r.Requests == nil {
				r.Requests = corev1.ResourceList{}
			}
			for name, q := range r.Limits {
				if _, ok := r.Requests[name]; !ok {
					r.Requests[name] = q.DeepCopy()
				}
			}
		}
	}
	if s.EnableServiceLinks == nil {
		s.EnableServiceLinks = ptr.To(corev1.DefaultEnableServiceLinks)
	}
	if s.HostNetwork {
		for _, cs := range [][]corev1.Container{s.Containers, s.InitContainers} {
			for i := range cs {
				for j := range cs[i].Ports {
					if cs[i].Ports[j].HostPort == 0 {
						cs[i].Ports[j].HostPort = cs[i].Ports[j].ContainerPort
					}
				}
			}
		}
	}
	defaultPodSpec(s)
}

// defaultPodSpec is core/v1's SetDefaults_PodSpec and the defaults of
// what a pod spec holds: containers and init containers, their ports,
// environment, probes and lifecycle handlers, and volumes.
func defaultPodSpec(s *corev1.PodSpec) {
	if s.DNSPolicy == "" {
		s.DNSPolicy = corev1.DNSClusterFirst
	}
	if s.RestartPolicy == "" {
		s.RestartPolicy = corev1.RestartPolicyAlways
	}
	if s.SecurityContext == nil {
		s.SecurityContext = &corev1.PodSecurityContext{}
	}
	if s.TerminationGracePeriodSeconds == nil {
		s.TerminationGracePeriodSeconds = ptr.To[int64](corev1.DefaultTerminationGracePeriodSeconds)
	}
	if s.SchedulerName == "" {
		s.SchedulerName = corev1.DefaultSchedulerName
	}
	for i := range s.Containers {
		defaultContainer(&s.Containers[i])
	}
	for i := range s.InitContainers {
		defaultContainer(&s.InitContainers[i])
	}
	for i := range s.Volumes {
		defaultVolume(&s.Volumes[i])
	}
}

// defaultContainer is core/v1's SetDefaults_Container and the defaults of
// its ports, environment, probes and lifecycle handlers.
func defaultContainer(c *corev1.Container) {
	if c.ImagePullPolicy == "" {
		c.ImagePullPolicy = corev1.PullIfNotPresent
		if imageTag(c.Image) == "latest" {
			c.ImagePullPolicy = corev1.PullAlways
		}
	}
	if c.TerminationMessagePath == "" {
		c.TerminationMessagePath = corev1.TerminationMessagePathDefault
	}
	if c.TerminationMessagePolicy == "" {
		c.TerminationMessagePolicy = corev1.TerminationMessageReadFile
	}
	for i := range c.Ports {
		if c.Ports[i].Protocol == "" {
			c.Ports[i].Protocol = corev1.ProtocolTCP
		}
	}
	for i := range c.Env {
		if from := c.Env[i].ValueFrom; from != nil {
			defaultFieldRef(from.FieldRef)
		}
	}
	for _, p := range []*corev1.Probe{c.LivenessProbe, c.ReadinessProbe, c.StartupProbe} {
		defaultProbe(p)
	}
	if c.Lifecycle != nil {
		for _, h := range []*corev1.LifecycleHandler{c.Lifecycle.PostStart, c.Lifecycle.PreStop} {
			if h != nil {
				defaultHTTPGet(h.HTTPGet)
			}
		}
	}
}

// imageTag is the tag of an image reference as the API server's
// defaulting reads it: "latest" when the reference has neither a tag nor
// a digest, "" when it has only a digest or is empty. (The API server
// also reads "" from a reference its grammar rejects; that grammar is not
// checked here.)
func imageTag(image string) string {
	if image == "" {
		return ""
	}
	name, _, digested := strings.Cut(image, "@")
	last := name[strings.LastIndex(name, "/")+1:]
	if _, tag, ok := strings.Cut(last, ":"); ok {
		return tag
	}
	if digested {
		return ""
	}
	return "latest"
}

// defaultProbe is core/v1's SetDefaults_Probe and its handler's defaults.
func defaultProbe(p *corev1.Probe) {
	if p == nil {
		return
	}
	if p.TimeoutSeconds == 0 {
		p.TimeoutSeconds = 1
	}
	if p.PeriodSeconds == 0 {
		p.PeriodSeconds = 10
	}
	if p.SuccessThreshold == 0 {
		p.SuccessThreshold = 1
	}
	if p.FailureThreshold == 0 {
		p.FailureThreshold = 3
	}
	defaultHTTPGet(p.HTTPGet)
	if p.GRPC != nil && p.GRPC.Service == nil {
		p.GRPC.Service = ptr.To("")
	}
}

// defaultHTTPGet is core/v1's SetDefaults_HTTPGetAction.
func defaultHTTPGet(h *corev1.HTTPGetAction) {
	if h == nil {
		return
	}
	if h.Path == "" {
		h.Path = "/"
	}
	if h.Scheme == "" {
		h.Scheme = corev1.URISchemeHTTP
	}
}

// defaultFieldRef is core/v1's SetDefaults_ObjectFieldSelector.
func defaultFieldRef(f *corev1.ObjectFieldSelector) {
	if f != nil && f.APIVersion == "" {
		f.APIVersion = "v1"
	}
}

// defaultVolume is core/v1's SetDefaults_Volume (a volume with no source
// is an emptyDir) and the defaults of the sources operators write.
func defaultVolume(v *corev1.Volume) {
	if reflect.ValueOf(v.VolumeSource).IsZero() {
		v.EmptyDir = &corev1.EmptyDirVolumeSource{}
	}
	if s := v.Secret; s != nil && s.DefaultMode == nil {
		s.DefaultMode = ptr.To(defaultMode)
	}
	if s := v.ConfigMap; s != nil && s.DefaultMode == nil {
		s.DefaultMode = ptr.To(defaultMode)
	}
	if s := v.DownwardAPI; s != nil {
		if s.DefaultMode == nil {
			s.DefaultMode = ptr.To(defaultMode)
		}
		for i := range s.Items {
			defaultFieldRef(s.Items[i].FieldRef)
		}
	}
	if s := v.Projected; s != nil {
		if s.DefaultMode == nil {
			s.DefaultMode = ptr.To(defaultMode)
		}
		for _, p := range s.Sources {
			if p.DownwardAPI != nil {
				for i := range p.DownwardAPI.Items {
					defaultFieldRef(p.DownwardAPI.Items[i].FieldRef)
				}
			}
			if t := p.ServiceAccountToken; t != nil && t.ExpirationSeconds == nil {
				t.ExpirationSeconds = ptr.To[int64](3600)
			}
		}
	}
	if s := v.HostPath; s != nil && s.Type == nil {
		s.Type = ptr.To(corev1.HostPathUnset)
	}
	if s := v.Ephemeral; s != nil && s.VolumeClaimTemplate != nil {
		defaultClaimSpec(&s.VolumeClaimTemplate.Spec)
	}
}
