package dev.quartermaster.kubelet.kube;

import static dev.quartermaster.kubelet.kube.Claims.DRIVER;
import static dev.quartermaster.kubelet.kube.Claims.allocated;
import static dev.quartermaster.kubelet.kube.Claims.config;
import static dev.quartermaster.kubelet.kube.Claims.result;
import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.kubelet.claims.AllocatedDevice;
import dev.quartermaster.kubelet.claims.ClaimAllocation;
import dev.quartermaster.kubelet.claims.KubeClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Reading a claim's allocation from an API server (fabric8's in-memory one, in CRUD mode). */
@EnableKubernetesMockClient(crud = true)
class ApiClaimSourceTest {
  static KubernetesClient client;

  private static final KubeClaim CLAIM =
      new KubeClaim("default", "train", "0a0a0a0a-0000-4000-8000-00000000000a");

  @BeforeEach
  void empty() {
    client.resources(ResourceClaim.class).inAnyNamespace().delete();
  }

  /** Stores {@code stored}; the kubelet then asks for it by the uid the server gave it. */
  private ClaimAllocation read(ResourceClaim stored) {
    var created = client.resource(stored).create();
    return new ApiClaimSource(client, DRIVER)
        .allocation(new KubeClaim(CLAIM.namespace(), CLAIM.name(), created.getMetadata().getUid()));
  }

  @Test
  void theDevicesOfThisDriverWithTheirRequests() {
    var answer =
        read(
            allocated(
                CLAIM,
                List.of(
                    result(DRIVER, "node-1", "gpu-0", "gpu"),
                    result("other.example.com", "node-1", "nic-0", "nic"),
                    result(DRIVER, "node-1", "channel-0", "channel")),
                List.of()));
    assertThat(answer)
        .isEqualTo(
            new ClaimAllocation.Allocated(
                List.of(
                    new AllocatedDevice("node-1", "gpu-0", List.of("gpu")),
                    new AllocatedDevice("node-1", "channel-0", List.of("channel"))),
                Optional.empty()));
  }

  @Test
  void aShareOfADeviceAllocatedManyTimesCarriesItsIdAndWhatItConsumes() {
    var share =
        new io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResultBuilder(
                result(DRIVER, "node-1", "gpu-1-mps", "share"))
            .withShareID("5a7e0000-0000-4000-8000-000000000001")
            .withConsumedCapacity(
                Map.of(
                    KubeNames.COMPUTE, new io.fabric8.kubernetes.api.model.Quantity("50"),
                    KubeNames.MEMORY, new io.fabric8.kubernetes.api.model.Quantity("20Gi"),
                    KubeNames.CLIENTS, new io.fabric8.kubernetes.api.model.Quantity("1")))
            .build();
    var answer = read(allocated(CLAIM, List.of(share), List.of()));
    assertThat(answer)
        .isEqualTo(
            new ClaimAllocation.Allocated(
                List.of(
                    new AllocatedDevice(
                        "node-1",
                        "gpu-1-mps",
                        List.of("share"),
                        Optional.of(
                            new dev.quartermaster.kubelet.claims.ConsumedShare(
                                50, 20L << 30, "5a7e0000-0000-4000-8000-000000000001")))),
                Optional.empty()));
  }

  @Test
  void theComputeDomainOfThisDriversConfig() {
    var answer =
        read(
            allocated(
                CLAIM,
                List.of(result(DRIVER, "node-1", "channel-0", "channel")),
                List.of(
                    config("other.example.com", Map.of("anything", 1)),
                    config(
                        DRIVER,
                        Map.of(
                            "apiVersion", ClaimConfig.API_VERSION,
                            "kind", ClaimConfig.KIND,
                            "computeDomain", "train-1"),
                        "channel"))));
    assertThat(answer)
        .isInstanceOfSatisfying(
            ClaimAllocation.Allocated.class,
            a -> assertThat(a.computeDomain()).contains("train-1"));
  }

  @Test
  void aConfigWithAnUnknownFieldRefusesNamingIt() {
    var answer =
        read(
            allocated(
                CLAIM,
                List.of(result(DRIVER, "node-1", "channel-0", "channel")),
                List.of(
                    config(
                        DRIVER,
                        Map.of(
                            "apiVersion", ClaimConfig.API_VERSION,
                            "kind", ClaimConfig.KIND,
                            "computeDomian", "train-1")))));
    assertThat(answer)
        .isInstanceOfSatisfying(
            ClaimAllocation.Unavailable.class,
            u -> assertThat(u.reason()).contains("unknown field 'computeDomian'"));
  }

  @Test
  void aClaimCreatedAgainUnderTheSameNameIsNotTheKubeletsClaim() {
    var now =
        client
            .resource(
                allocated(CLAIM, List.of(result(DRIVER, "node-1", "gpu-0", "gpu")), List.of()))
            .create();
    var gone =
        new KubeClaim(CLAIM.namespace(), CLAIM.name(), "0b0b0b0b-0000-4000-8000-00000000000b");
    assertThat(new ApiClaimSource(client, DRIVER).allocation(gone))
        .isInstanceOfSatisfying(
            ClaimAllocation.Unavailable.class,
            u ->
                assertThat(u.reason())
                    .contains("has uid " + now.getMetadata().getUid() + " now")
                    .contains(gone.uid() + ") was deleted"));
  }

  @Test
  void notAllocatedOrNotFoundIsUnavailable() {
    assertThat(new ApiClaimSource(client, DRIVER).allocation(CLAIM))
        .isInstanceOfSatisfying(
            ClaimAllocation.Unavailable.class, u -> assertThat(u.reason()).contains("not found"));
    assertThat(read(Claims.pending(CLAIM)))
        .isInstanceOfSatisfying(
            ClaimAllocation.Unavailable.class,
            u -> assertThat(u.reason()).contains("is not allocated"));
  }

  @Test
  void anUnreachableApiServerIsUnavailableNotAThrow() {
    try (var down =
        new KubernetesClientBuilder()
            .withConfig(
                new io.fabric8.kubernetes.client.ConfigBuilder()
                    .withMasterUrl("http://127.0.0.1:1")
                    .withRequestRetryBackoffLimit(0)
                    .build())
            .build()) {
      assertThat(new ApiClaimSource(down, DRIVER).allocation(CLAIM))
          .isInstanceOfSatisfying(
              ClaimAllocation.Unavailable.class,
              u -> assertThat(u.reason()).contains("reading resource claim " + CLAIM));
    }
  }
}
