package dev.quartermaster.kubelet.real;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplate;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplateBuilder;
import java.util.List;
import java.util.Map;

/** The harness's pods and claim templates. */
final class Pods {
  static final String NAMESPACE = "default";

  /**
   * Fails (exit 42, naming the node) unless every node a CUDA container needs is there, then holds
   * the GPU open (fd 3, as a CUDA process does; its {@code sleep}s do not inherit it, so one
   * process per pod holds it) and runs until killed, ignoring SIGTERM: so the kubelet takes its
   * time to stop it, as a real trainer's checkpointing does, and the replacement's prepare can
   * overtake the unprepare. Who holds the GPU is what {@link ContainerOverlaps} and the plugin's
   * own check see.
   */
  static final String CHECK_AND_HOLD =
      "for d in /dev/nvidia0 /dev/nvidiactl /dev/nvidia-uvm /dev/nvidia-uvm-tools; do"
          + " [ -c $d ] || { echo \"missing $d\"; exit 42; }; done; echo all device nodes there;"
          + " exec 3</dev/nvidia0 || exit 43;"
          + " trap '' TERM; while true; do sleep 1 3<&-; done";

  private Pods() {}

  /** A pod on {@code node} with one claim from {@code template}. */
  static Pod pod(String name, String node, String image, String template) {
    return pod(name, node, image, template, CHECK_AND_HOLD);
  }

  /** As above, its container running {@code script} with {@code sh -c}. */
  static Pod pod(String name, String node, String image, String template, String script) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace(NAMESPACE)
        .withLabels(Map.of("app", "qm-harness"))
        .endMetadata()
        .withNewSpec()
        .withNodeSelector(Map.of("kubernetes.io/hostname", node))
        .withRestartPolicy("Never")
        .withHostNetwork(true)
        .withAutomountServiceAccountToken(false)
        .withTerminationGracePeriodSeconds(30L)
        .addNewToleration()
        .withOperator("Exists")
        .endToleration()
        .addNewContainer()
        .withName("main")
        .withImage(image)
        .withImagePullPolicy("Never")
        .withCommand("sh", "-c", script)
        .withNewResources()
        .addNewClaim()
        .withName("devices")
        .endClaim()
        .endResources()
        .endContainer()
        .addNewResourceClaim()
        .withName("devices")
        .withResourceClaimTemplateName(template)
        .endResourceClaim()
        .endSpec()
        .build();
  }

  /**
   * A GPU and an IMEX channel of compute domain {@code domain}: the device the replacement pod
   * races for, and the domain whose helper must stay up under the running pod.
   */
  /**
   * One request of {@code deviceClass} with CEL {@code selector} (none if empty) and, if {@code
   * capacity} is not empty, those capacity requests (an MPS share).
   */
  static ResourceClaimTemplate oneRequest(
      String name, String deviceClass, String selector, Map<String, String> capacity) {
    var exactly =
        new io.fabric8.kubernetes.api.model.resource.v1.ExactDeviceRequestBuilder()
            .withDeviceClassName(deviceClass);
    if (!selector.isEmpty()) {
      exactly.addNewSelector().withNewCel().withExpression(selector).endCel().endSelector();
    }
    if (!capacity.isEmpty()) {
      var requests =
          new java.util.LinkedHashMap<String, io.fabric8.kubernetes.api.model.Quantity>();
      capacity.forEach((k, v) -> requests.put(k, new io.fabric8.kubernetes.api.model.Quantity(v)));
      exactly.withNewCapacity().withRequests(requests).endCapacity();
    }
    return new ResourceClaimTemplateBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace(NAMESPACE)
        .endMetadata()
        .withNewSpec()
        .withNewSpec()
        .withNewDevices()
        .addNewRequest()
        .withName("device")
        .withExactly(exactly.build())
        .endRequest()
        .endDevices()
        .endSpec()
        .endSpec()
        .build();
  }

  static ResourceClaimTemplate gpuAndChannel(String name, String domain) {
    return new ResourceClaimTemplateBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace(NAMESPACE)
        .endMetadata()
        .withNewSpec()
        .withNewSpec()
        .withNewDevices()
        .addNewRequest()
        .withName("gpu")
        .withNewExactly()
        .withDeviceClassName("gpu.quartermaster.dev")
        .endExactly()
        .endRequest()
        .addNewRequest()
        .withName("channel")
        .withNewExactly()
        .withDeviceClassName("channel.quartermaster.dev")
        .endExactly()
        .endRequest()
        .addNewConfig()
        .withRequests(List.of("channel"))
        .withNewOpaque()
        .withDriver("gpu.quartermaster.dev")
        .withParameters(
            Map.of(
                "apiVersion", "gpu.quartermaster.dev/v1",
                "kind", "ChannelConfig",
                "computeDomain", domain))
        .endOpaque()
        .endConfig()
        .endDevices()
        .endSpec()
        .endSpec()
        .build();
  }
}
