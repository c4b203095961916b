package admit

import (
	"net"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// accessModes are the access modes a claim may ask for.
var accessModes = []corev1.PersistentVolumeAccessMode{corev1.ReadOnlyMany, corev1.ReadWriteMany, corev1.ReadWriteOnce, corev1.ReadWriteOncePod}

// validateClaimSpec validates a claim's spec, or a claim template's: at
// least one known access mode, and a positive storage request.
func validateClaimSpec(s *corev1.PersistentVolumeClaimSpec, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(s.AccessModes) == 0 {
		errs = append(errs, field.Required(p.Child("accessModes"), "at least 1 access mode is required"))
	}
	for _, m := range s.AccessModes {
		if !slices.Contains(accessModes, m) {
			errs = append(errs, field.NotSupported(p.Child("accessModes"), m, accessModes))
		}
	}
	sp := p.Child("resources").Key(string(corev1.ResourceStorage))
	if q, ok := s.Resources.Requests[corev1.ResourceStorage]; !ok {
		errs = append(errs, field.Required(sp, ""))
	} else {
		errs = append(errs, positiveQuantity(q, sp)...)
	}
	return errs
}

// claimForbidden is the API server's message for an update of a claim's
// fixed fields.
const claimForbidden = "spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims"

// claimUpdate forbids an update of a claim's spec beyond its storage
// request (while bound), its volume attributes class, and a volumeName
// set for the first time (by the binder).
func claimUpdate(now, was *corev1.PersistentVolumeClaim) field.ErrorList {
	a, b := now.Spec.DeepCopy(), was.Spec.DeepCopy()
	a.VolumeAttributesClassName = b.VolumeAttributesClassName
	if b.VolumeName == "" {
		a.VolumeName = ""
	}
	if was.Status.Phase == corev1.ClaimBound {
		a.Resources.Requests = b.Resources.Requests
	}
	if apiequality.Semantic.DeepEqual(a, b) {
		return nil
	}
	return field.ErrorList{field.Forbidden(field.NewPath("spec"), claimForbidden)}
}

// serviceTypes are the types a Service may have; empty is ClusterIP.
var serviceTypes = []corev1.ServiceType{corev1.ServiceTypeClusterIP, corev1.ServiceTypeExternalName, corev1.ServiceTypeLoadBalancer, corev1.ServiceTypeNodePort}

// validateService validates a Service: its type, cluster IP, selector
// and ports (named when more than one, as DNS labels and unique; port,
// targetPort and nodePort numbers in range; a named targetPort an
// IANA_SVC_NAME; each port and protocol once).
func validateService(s *corev1.Service) field.ErrorList {
	spec := field.NewPath("spec")
	var errs field.ErrorList
	if s.Spec.Type != "" && !slices.Contains(serviceTypes, s.Spec.Type) {
		errs = append(errs, field.NotSupported(spec.Child("type"), s.Spec.Type, serviceTypes))
	}
	if s.Spec.Type == corev1.ServiceTypeExternalName && s.Spec.ExternalName == "" {
		errs = append(errs, field.Required(spec.Child("externalName"), ""))
	}
	if ip := s.Spec.ClusterIP; ip != "" && ip != corev1.ClusterIPNone && net.ParseIP(ip) == nil {
		errs = append(errs, field.Invalid(spec.Child("clusterIP"), ip, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"))
	}
	if len(s.Spec.Ports) == 0 && s.Spec.ClusterIP != corev1.ClusterIPNone && s.Spec.Type != corev1.ServiceTypeExternalName {
		errs = append(errs, field.Required(spec.Child("ports"), ""))
	}
	errs = append(errs, metav1validation.ValidateLabels(s.Spec.Selector, spec.Child("selector"))...)
	names := map[string]bool{}
	type portKey struct {
		port  int32
		proto corev1.Protocol
	}
	seen := map[portKey]bool{}
	for i, port := range s.Spec.Ports {
		pp := spec.Child("ports").Index(i)
		switch {
		case port.Name == "" && len(s.Spec.Ports) > 1:
			errs = append(errs, field.Required(pp.Child("name"), ""))
		case port.Name == "":
		case names[port.Name]:
			errs = append(errs, field.Duplicate(pp.Child("name"), port.Name))
		default:
			errs = append(errs, dnsLabel(port.Name, pp.Child("name"))...)
		}
		names[port.Name] = true
		errs = append(errs, invalid(pp.Child("port"), port.Port, validation.IsValidPortNum(int(port.Port)))...)
		errs = append(errs, validateProtocol(port.Protocol, pp.Child("protocol"))...)
		switch tp := port.TargetPort; {
		case tp.Type == intstr.String:
			errs = append(errs, invalid(pp.Child("targetPort"), tp.StrVal, validation.IsValidPortName(tp.StrVal))...)
		case tp.IntVal != 0:
			errs = append(errs, invalid(pp.Child("targetPort"), tp.IntVal, validation.IsValidPortNum(int(tp.IntVal)))...)
		}
		if port.NodePort != 0 {
			errs = append(errs, invalid(pp.Child("nodePort"), port.NodePort, validation.IsValidPortNum(int(port.NodePort)))...)
		}
		proto := port.Protocol
		if proto == "" {
			proto = corev1.ProtocolTCP
		}
		k := portKey{port.Port, proto}
		if seen[k] {
			errs = append(errs, field.Duplicate(pp, port))
		}
		seen[k] = true
	}
	return errs
}

// serviceUpdate keeps a Service's cluster IP once set; an update that
// leaves it empty keeps the stored one.
func serviceUpdate(now, was *corev1.Service) field.ErrorList {
	if was.Spec.ClusterIP == "" || now.Spec.ClusterIP == "" {
		return nil
	}
	return immutable(now.Spec.ClusterIP, was.Spec.ClusterIP, field.NewPath("spec", "clusterIP"))
}

// maxDataSize is the most a ConfigMap's or Secret's data may hold.
const maxDataSize = 1 << 20

// validateConfigMap checks a ConfigMap's keys (IsConfigMapKey, each in
// data or binaryData, not both) and its size.
func validateConfigMap(c *corev1.ConfigMap) field.ErrorList {
	var errs field.ErrorList
	size := 0
	for _, k := range sortedKeys(c.Data) {
		errs = append(errs, invalid(field.NewPath("data").Key(k), k, validation.IsConfigMapKey(k))...)
		size += len(c.Data[k])
	}
	for _, k := range sortedKeys(c.BinaryData) {
		p := field.NewPath("binaryData").Key(k)
		errs = append(errs, invalid(p, k, validation.IsConfigMapKey(k))...)
		if _, dup := c.Data[k]; dup {
			errs = append(errs, field.Invalid(p, k, "duplicate of key present in data"))
		}
		size += len(c.BinaryData[k])
	}
	if size > maxDataSize {
		errs = append(errs, field.TooLong(field.NewPath(""), "", maxDataSize))
	}
	return errs
}

// validateSecret checks a Secret's keys and size, and the keys its type
// requires (kubernetes.io/tls, kubernetes.io/dockerconfigjson).
func validateSecret(s *corev1.Secret) field.ErrorList {
	data := field.NewPath("data")
	var errs field.ErrorList
	size := 0
	for _, k := range sortedKeys(s.Data) {
		errs = append(errs, invalid(data.Key(k), k, validation.IsConfigMapKey(k))...)
		size += len(s.Data[k])
	}
	if size > maxDataSize {
		errs = append(errs, field.TooLong(data, "", maxDataSize))
	}
	var required []string
	switch s.Type {
	case corev1.SecretTypeTLS:
		required = []string{corev1.TLSCertKey, corev1.TLSPrivateKeyKey}
	case corev1.SecretTypeDockerConfigJson:
		required = []string{corev1.DockerConfigJsonKey}
	}
	for _, k := range required {
		if _, ok := s.Data[k]; !ok {
			errs = append(errs, field.Required(data.Key(k), ""))
		}
	}
	return errs
}

// dataField is a data field of a ConfigMap or Secret: its name, its new
// value and its stored one.
type dataField struct {
	name     string
	now, was any
}

// immutableData forbids, once a ConfigMap or Secret is immutable,
// unsetting immutable and changing its data.
func immutableData(now, was *bool, data ...dataField) field.ErrorList {
	if was == nil || !*was {
		return nil
	}
	const msg = "field is immutable when `immutable` is set"
	var errs field.ErrorList
	if now == nil || !*now {
		errs = append(errs, field.Forbidden(field.NewPath("immutable"), msg))
	}
	for _, d := range data {
		if !apiequality.Semantic.DeepEqual(d.now, d.was) {
			errs = append(errs, field.Forbidden(field.NewPath(d.name), msg))
		}
	}
	return errs
}

// sortedKeys returns a map's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
