package builtin

import (
	"fmt"
	"hash/fnv"

	corev1 "k8s.io/api/core/v1"
)

// assignIPs gives a pod being created its address, as a real kubelet does
// once the pod's network sandbox is up (before its containers start), and
// the node's: operators that wait for status.podIPs before they call a pod
// ready (agent-sandbox) never would without one. The address is chosen in
// 10.244.0.0/16 by a hash of the pod's namespace and name, so that runs
// repeat; two pods may share one, which no harness reads.
func assignIPs(pod *corev1.Pod) {
	h := fnv.New32a()
	fmt.Fprintf(h, "%s/%s", pod.Namespace, pod.Name)
	sum := h.Sum32()
	ip := fmt.Sprintf("10.244.%d.%d", sum>>8&0xff, 1+sum%254)
	st := &pod.Status
	st.HostIP, st.HostIPs = "10.0.0.1", []corev1.HostIP{{IP: "10.0.0.1"}}
	st.PodIP, st.PodIPs = ip, []corev1.PodIP{{IP: ip}}
}
