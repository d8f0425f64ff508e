/**
 * The plugin's Kubernetes side, over the fabric8 client: the ResourceClaims the kubelet names are
 * read from the API server ({@link dev.quartermaster.kubelet.kube.ApiClaimSource}), and the node's
 * devices are published as {@code resource.k8s.io/v1} ResourceSlices and kept current ({@link
 * dev.quartermaster.kubelet.kube.SlicePublisher}, from the pure {@link
 * dev.quartermaster.kubelet.kube.NodeSlices}).
 *
 * <p><b>A GPU whose control nodes are missing.</b> The node publishes such a GPU with the attribute
 * {@code controlNodesReady: false} and a {@code NoSchedule} device taint whose value names what is
 * missing. The attribute is what keeps pods off it: our DeviceClass selects only {@code
 * controlNodesReady} GPUs, a CEL selector every {@code resource.k8s.io/v1} scheduler evaluates,
 * whether or not the {@code DRADeviceTaints} feature (beta, and so not on everywhere) is enabled.
 * The taint is there to say why, next to the device, and to keep off claims that bypass our class
 * on clusters that have the feature. Leaving the GPU out of the slice would say nothing at all. And
 * should a claim get such a GPU anyway (a slice published a moment before the node broke), prepare
 * checks the control nodes again and refuses.
 */
package dev.quartermaster.kubelet.kube;
