package dev.quartermaster.kubelet.kube;

import dev.quartermaster.kubelet.claims.KubeClaim;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAllocationConfiguration;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAllocationConfigurationBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResultBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import java.util.List;
import java.util.Map;

/** ResourceClaims as the scheduler leaves them, for the tests. */
public final class Claims {
  public static final String DRIVER = "gpu.quartermaster.dev";

  private Claims() {}

  public static DeviceRequestAllocationResult result(
      String driver, String pool, String device, String request) {
    return new DeviceRequestAllocationResultBuilder()
        .withDriver(driver)
        .withPool(pool)
        .withDevice(device)
        .withRequest(request)
        .build();
  }

  public static DeviceAllocationConfiguration config(
      String driver, Map<String, Object> parameters, String... requests) {
    return new DeviceAllocationConfigurationBuilder()
        .withSource("FromClaim")
        .withRequests(List.of(requests))
        .withNewOpaque()
        .withDriver(driver)
        .withParameters(parameters)
        .endOpaque()
        .build();
  }

  static ResourceClaim allocated(
      KubeClaim claim,
      List<DeviceRequestAllocationResult> results,
      List<DeviceAllocationConfiguration> configs) {
    var stored = allocated(claim.namespace(), claim.name(), results, configs);
    stored.getMetadata().setUid(claim.uid());
    return stored;
  }

  /** As the scheduler leaves it, without a uid: the API server gives it one. */
  public static ResourceClaim allocated(
      String namespace,
      String name,
      List<DeviceRequestAllocationResult> results,
      List<DeviceAllocationConfiguration> configs) {
    return new ResourceClaimBuilder()
        .withNewMetadata()
        .withNamespace(namespace)
        .withName(name)
        .endMetadata()
        .withNewSpec()
        .endSpec()
        .withNewStatus()
        .withNewAllocation()
        .withNewDevices()
        .withResults(results)
        .withConfig(configs)
        .endDevices()
        .endAllocation()
        .endStatus()
        .build();
  }

  static ResourceClaim pending(KubeClaim claim) {
    return new ResourceClaimBuilder()
        .withNewMetadata()
        .withNamespace(claim.namespace())
        .withName(claim.name())
        .withUid(claim.uid())
        .endMetadata()
        .withNewSpec()
        .endSpec()
        .build();
  }
}
