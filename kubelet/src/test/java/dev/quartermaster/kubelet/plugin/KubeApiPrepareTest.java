package dev.quartermaster.kubelet.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.kubelet.claims.KubeClaim;
import dev.quartermaster.kubelet.kube.ApiClaimSource;
import dev.quartermaster.kubelet.kube.ClaimConfig;
import dev.quartermaster.kubelet.kube.Claims;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The plugin with its real claim source on an API server (fabric8's in-memory one): a claim for an
 * IMEX channel whose opaque config names a compute domain is prepared with the domain's helper
 * running and the domain published, and unpreparing it stops the helper.
 */
@Timeout(120)
@EnableKubernetesMockClient(crud = true)
class KubeApiPrepareTest {
  static KubernetesClient client;

  private static KubeClaim store(String name, String device, String domain) {
    var claim =
        Claims.allocated(
            "default",
            name,
            List.of(Claims.result(Claims.DRIVER, PluginFixture.NODE, device, "channel")),
            List.of(
                Claims.config(
                    Claims.DRIVER,
                    Map.of(
                        "apiVersion",
                        ClaimConfig.API_VERSION,
                        "kind",
                        ClaimConfig.KIND,
                        ClaimConfig.COMPUTE_DOMAIN,
                        domain))));
    var created = client.resource(claim).create();
    return new KubeClaim("default", name, created.getMetadata().getUid());
  }

  @Test
  void aChannelClaimRunsItsDomainsHelperWhilePrepared() throws Exception {
    try (var node =
        new PluginFixture(new ApiClaimSource(client, KubeletPluginConfig.DEFAULT_DRIVER))) {
      var claim = store("train-0", "channel-0", "train-1");
      var kubelet = node.kubelet(KubeletClient.Version.V1);

      var answer = kubelet.prepare(claim);
      assertThat(answer.error()).isEmpty();
      assertThat(answer.devices())
          .singleElement()
          .satisfies(d -> assertThat(d.device()).isEqualTo("channel-0"));
      assertThat(Files.readAllLines(node.config().domainFile())).containsExactly("train-1");
      assertThat(Files.exists(node.config().helperDir().resolve("train-1.pid"))).isTrue();

      // The replacement's claim for the same channel waits while the first holds it.
      var next = store("train-0b", "channel-0", "train-1");
      assertThat(kubelet.prepare(next).error()).contains("channel-0").contains(claim.uid());

      assertThat(kubelet.unprepare(claim)).isEmpty();
      assertThat(Files.readAllLines(node.config().domainFile())).isEmpty();
      assertThat(kubelet.prepare(next).error()).isEmpty();
      assertThat(Files.readAllLines(node.config().domainFile())).containsExactly("train-1");
      assertThat(kubelet.unprepare(next)).isEmpty();
      assertThat(node.specsOnDisk()).isEqualTo(java.util.Set.of());
    }
  }
}
