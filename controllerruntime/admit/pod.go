package admit

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// protocols are the port protocols the API server supports; an empty one
// is defaulted to TCP.
var protocols = []corev1.Protocol{corev1.ProtocolSCTP, corev1.ProtocolTCP, corev1.ProtocolUDP}

// validatePodSpec validates a pod's spec, or a pod template's (isPod
// false: a template may leave a container's image to be filled in later,
// as Kubernetes allows). restartPolicies, when set, are the only restart
// policies the owning kind allows (an empty policy is defaulted to
// Always first, as the API server does).
func validatePodSpec(spec *corev1.PodSpec, p *field.Path, isPod bool, restartPolicies []corev1.RestartPolicy) field.ErrorList {
	var errs field.ErrorList
	volumes := map[string]bool{}
	for i, v := range spec.Volumes {
		vp := p.Child("volumes").Index(i).Child("name")
		switch {
		case v.Name == "":
			errs = append(errs, field.Required(vp, ""))
		case volumes[v.Name]:
			errs = append(errs, field.Duplicate(vp, v.Name))
		default:
			errs = append(errs, dnsLabel(v.Name, vp)...)
		}
		volumes[v.Name] = true
	}
	if len(spec.Containers) == 0 {
		errs = append(errs, field.Required(p.Child("containers"), ""))
	}
	names := map[string]bool{}
	for i := range spec.InitContainers {
		errs = append(errs, validateContainer(&spec.InitContainers[i], p.Child("initContainers").Index(i), isPod, names, volumes)...)
	}
	for i := range spec.Containers {
		errs = append(errs, validateContainer(&spec.Containers[i], p.Child("containers").Index(i), isPod, names, volumes)...)
	}
	policy := spec.RestartPolicy
	if policy == "" {
		policy = corev1.RestartPolicyAlways
	}
	all := []corev1.RestartPolicy{corev1.RestartPolicyAlways, corev1.RestartPolicyOnFailure, corev1.RestartPolicyNever}
	if restartPolicies == nil {
		restartPolicies = all
	}
	if !slices.Contains(restartPolicies, policy) {
		errs = append(errs, field.NotSupported(p.Child("restartPolicy"), policy, restartPolicies))
	}
	if spec.TerminationGracePeriodSeconds != nil {
		errs = append(errs, apivalidation.ValidateNonnegativeField(*spec.TerminationGracePeriodSeconds, p.Child("terminationGracePeriodSeconds"))...)
	}
	if spec.ActiveDeadlineSeconds != nil && *spec.ActiveDeadlineSeconds <= 0 {
		errs = append(errs, field.Invalid(p.Child("activeDeadlineSeconds"), *spec.ActiveDeadlineSeconds, "must be greater than 0"))
	}
	errs = append(errs, metav1validation.ValidateLabels(spec.NodeSelector, p.Child("nodeSelector"))...)
	return errs
}

// validateContainer validates one container: its name (a DNS label,
// unique among the pod's containers, names holding those seen), image,
// ports, environment, volume mounts (of volumes the pod has) and
// resources.
func validateContainer(c *corev1.Container, p *field.Path, isPod bool, names, volumes map[string]bool) field.ErrorList {
	var errs field.ErrorList
	switch np := p.Child("name"); {
	case c.Name == "":
		errs = append(errs, field.Required(np, ""))
	case names[c.Name]:
		errs = append(errs, field.Duplicate(np, c.Name))
	default:
		errs = append(errs, dnsLabel(c.Name, np)...)
	}
	names[c.Name] = true
	if isPod && c.Image == "" {
		errs = append(errs, field.Required(p.Child("image"), ""))
	}
	portNames := map[string]bool{}
	for i, port := range c.Ports {
		pp := p.Child("ports").Index(i)
		if port.Name != "" {
			if msgs := validation.IsValidPortName(port.Name); len(msgs) > 0 {
				errs = append(errs, invalid(pp.Child("name"), port.Name, msgs)...)
			} else if portNames[port.Name] {
				errs = append(errs, field.Duplicate(pp.Child("name"), port.Name))
			}
			portNames[port.Name] = true
		}
		if port.ContainerPort == 0 {
			errs = append(errs, field.Required(pp.Child("containerPort"), ""))
		} else {
			errs = append(errs, invalid(pp.Child("containerPort"), port.ContainerPort, validation.IsValidPortNum(int(port.ContainerPort)))...)
		}
		if port.HostPort != 0 {
			errs = append(errs, invalid(pp.Child("hostPort"), port.HostPort, validation.IsValidPortNum(int(port.HostPort)))...)
		}
		errs = append(errs, validateProtocol(port.Protocol, pp.Child("protocol"))...)
	}
	for i, e := range c.Env {
		ep := p.Child("env").Index(i).Child("name")
		if e.Name == "" {
			errs = append(errs, field.Required(ep, ""))
		} else {
			errs = append(errs, invalid(ep, e.Name, validation.IsRelaxedEnvVarName(e.Name))...)
		}
	}
	for i, m := range c.VolumeMounts {
		mp := p.Child("volumeMounts").Index(i)
		if m.Name == "" {
			errs = append(errs, field.Required(mp.Child("name"), ""))
		} else if !volumes[m.Name] {
			errs = append(errs, field.NotFound(mp.Child("name"), m.Name))
		}
		if m.MountPath == "" {
			errs = append(errs, field.Required(mp.Child("mountPath"), ""))
		}
	}
	return append(errs, validateResources(&c.Resources, p.Child("resources"))...)
}

// validateResources checks that every quantity is non-negative and that
// no request exceeds its limit.
func validateResources(r *corev1.ResourceRequirements, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, part := range []struct {
		name string
		list corev1.ResourceList
	}{{"limits", r.Limits}, {"requests", r.Requests}} {
		for _, name := range sortedNames(part.list) {
			if q := part.list[name]; q.Sign() < 0 {
				errs = append(errs, field.Invalid(p.Child(part.name).Key(string(name)), q.String(), "must be greater than or equal to 0"))
			}
		}
	}
	for _, name := range sortedNames(r.Requests) {
		req := r.Requests[name]
		if limit, ok := r.Limits[name]; ok && req.Cmp(limit) > 0 {
			errs = append(errs, field.Invalid(p.Child("requests").Key(string(name)), req.String(),
				fmt.Sprintf("must be less than or equal to %s limit of %s", name, limit.String())))
		}
	}
	return errs
}

// sortedNames returns the resource names of a list in order.
func sortedNames(l corev1.ResourceList) []corev1.ResourceName {
	out := make([]corev1.ResourceName, 0, len(l))
	for n := range l {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// validateProtocol checks a port protocol; empty is defaulted to TCP.
func validateProtocol(proto corev1.Protocol, p *field.Path) field.ErrorList {
	if proto == "" || slices.Contains(protocols, proto) {
		return nil
	}
	return field.ErrorList{field.NotSupported(p, proto, protocols)}
}

// invalid turns the messages of a validation.Is* check into errors.
func invalid(p *field.Path, value any, msgs []string) field.ErrorList {
	var errs field.ErrorList
	for _, m := range msgs {
		errs = append(errs, field.Invalid(p, value, m))
	}
	return errs
}

// dnsLabel checks a name that must be a DNS-1123 label.
func dnsLabel(name string, p *field.Path) field.ErrorList {
	return invalid(p, name, validation.IsDNS1123Label(name))
}

// positiveQuantity reports a quantity that is not above zero.
func positiveQuantity(q resource.Quantity, p *field.Path) field.ErrorList {
	if q.Sign() > 0 {
		return nil
	}
	return field.ErrorList{field.Invalid(p, q.String(), "must be greater than zero")}
}
