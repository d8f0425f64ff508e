package dev.quartermaster.kubelet.kube;

import dev.quartermaster.kubelet.claims.AllocatedDevice;
import dev.quartermaster.kubelet.claims.ClaimAllocation;
import dev.quartermaster.kubelet.claims.ClaimSource;
import dev.quartermaster.kubelet.claims.ConsumedShare;
import dev.quartermaster.kubelet.claims.KubeClaim;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAllocationConfiguration;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Reads the ResourceClaim the kubelet names from the API server, at every prepare (the kubelet
 * calls with the claim's uid only after the scheduler has allocated it, so one GET suffices and no
 * cache can be stale):
 *
 * <ul>
 *   <li>not found, another uid (deleted and created again: the kubelet's claim is gone), or not
 *       allocated: Unavailable, and the kubelet retries;
 *   <li>otherwise the results of {@code status.allocation.devices.results} for this driver, and the
 *       compute domain of this driver's opaque configs ({@link ClaimConfig}) that apply to them.
 * </ul>
 */
public final class ApiClaimSource implements ClaimSource {
  private final KubernetesClient client;
  private final String driver;

  public ApiClaimSource(KubernetesClient client, String driver) {
    this.client = Objects.requireNonNull(client, "client");
    this.driver = Objects.requireNonNull(driver, "driver");
  }

  @Override
  public ClaimAllocation allocation(KubeClaim claim) {
    ResourceClaim found;
    try {
      found =
          client
              .resources(ResourceClaim.class)
              .inNamespace(claim.namespace())
              .withName(claim.name())
              .get();
    } catch (KubernetesClientException e) {
      return new ClaimAllocation.Unavailable(
          "reading resource claim " + claim + " from the API server: " + e.getMessage());
    }
    if (found == null) {
      return new ClaimAllocation.Unavailable("resource claim " + claim + " not found");
    }
    return allocationOf(claim, found);
  }

  /** What {@code found}, read for {@code claim}, allocates of this driver's devices. */
  ClaimAllocation allocationOf(KubeClaim claim, ResourceClaim found) {
    var uid = found.getMetadata().getUid();
    if (!claim.uid().equals(uid)) {
      return new ClaimAllocation.Unavailable(
          "resource claim "
              + claim.namespace()
              + "/"
              + claim.name()
              + " has uid "
              + uid
              + " now: the claim "
              + claim
              + " was deleted");
    }
    var status = found.getStatus();
    if (status == null
        || status.getAllocation() == null
        || status.getAllocation().getDevices() == null) {
      return new ClaimAllocation.Unavailable("resource claim " + claim + " is not allocated");
    }
    var allocated = status.getAllocation().getDevices();
    var devices = new ArrayList<AllocatedDevice>();
    var requests = new ArrayList<String>();
    for (var result : listOf(allocated.getResults())) {
      if (driver.equals(result.getDriver())) {
        devices.add(
            new AllocatedDevice(
                result.getPool(),
                result.getDevice(),
                List.of(result.getRequest()),
                shareOf(result)));
        requests.add(result.getRequest());
      }
    }
    Optional<String> domain = Optional.empty();
    for (var config : listOf(allocated.getConfig())) {
      if (!appliesTo(config, requests)) {
        continue;
      }
      ClaimConfig parsed;
      try {
        parsed = ClaimConfig.parse(parametersOf(config));
      } catch (ClaimConfig.Invalid e) {
        return new ClaimAllocation.Unavailable(
            "resource claim " + claim + ": the " + driver + " config: " + e.getMessage());
      }
      if (parsed.computeDomain().isPresent()) {
        if (domain.isPresent() && !domain.equals(parsed.computeDomain())) {
          return new ClaimAllocation.Unavailable(
              "resource claim "
                  + claim
                  + " asks for two compute domains, "
                  + domain.get()
                  + " and "
                  + parsed.computeDomain().get()
                  + ": a node joins one per claim");
        }
        domain = parsed.computeDomain();
      }
    }
    return new ClaimAllocation.Allocated(devices, domain);
  }

  /**
   * The share an allocation of a device allocated many times over consumes: its {@code shareID} and
   * what it consumes of {@link KubeNames#COMPUTE} and {@link KubeNames#MEMORY}; none for a device
   * allocated whole.
   */
  static Optional<ConsumedShare> shareOf(DeviceRequestAllocationResult result) {
    var consumed = result.getConsumedCapacity();
    if (result.getShareID() == null && (consumed == null || consumed.isEmpty())) {
      return Optional.empty();
    }
    return Optional.of(
        new ConsumedShare(
            amount(consumed, KubeNames.COMPUTE),
            amount(consumed, KubeNames.MEMORY),
            result.getShareID() == null ? "" : result.getShareID()));
  }

  private static long amount(Map<String, Quantity> consumed, String name) {
    var q = consumed == null ? null : consumed.get(name);
    if (q == null) {
      return -1;
    }
    try {
      return Quantity.getAmountInBytes(q).longValueExact();
    } catch (ArithmeticException | IllegalArgumentException e) {
      return -1;
    }
  }

  private boolean appliesTo(DeviceAllocationConfiguration config, List<String> requests) {
    if (config.getOpaque() == null || !driver.equals(config.getOpaque().getDriver())) {
      return false;
    }
    var only = listOf(config.getRequests());
    // A config naming a request applies to its subrequests too ("gpu" to "gpu/large").
    return only.isEmpty()
        || only.stream()
            .anyMatch(r -> requests.stream().anyMatch(q -> q.equals(r) || q.startsWith(r + "/")));
  }

  @SuppressWarnings("unchecked")
  private Map<String, Object> parametersOf(DeviceAllocationConfiguration config) {
    var parameters = config.getOpaque().getParameters();
    if (parameters == null) {
      return Map.of();
    }
    return client.getKubernetesSerialization().convertValue(parameters, Map.class);
  }

  private static <T> List<T> listOf(List<T> list) {
    return list == null ? List.of() : list;
  }
}
