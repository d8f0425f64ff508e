package dev.quartermaster.kubelet.kube;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesList;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplate;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The manifests users apply ({@code deploy/kubernetes}) are Kubernetes objects this driver matches:
 * the DeviceClasses select by the attributes {@link NodeSlices} publishes, the claim config is one
 * {@link ClaimConfig} accepts, and the RBAC grants what the plugin calls. (A real API server takes
 * them in {@code ./qm bench kubelet}.)
 */
class DeployManifestsTest {
  private static final Path DIR = Path.of("..", "deploy", "kubernetes");

  private static List<HasMetadata> read(String file) throws IOException {
    var parsed = new KubernetesSerialization().unmarshal(Files.readString(DIR.resolve(file)));
    return parsed instanceof KubernetesList list
        ? list.getItems()
        : parsed instanceof List<?> items
            ? items.stream().map(HasMetadata.class::cast).toList()
            : List.of((HasMetadata) parsed);
  }

  @Test
  void theGpuClassSelectsOnlyReadyGpusOfThisDriver() throws IOException {
    var classes =
        read("quartermaster-dra.yaml").stream()
            .filter(DeviceClass.class::isInstance)
            .map(DeviceClass.class::cast)
            .toList();
    assertThat(classes)
        .extracting(c -> c.getMetadata().getName())
        .containsExactly(
            "gpu.quartermaster.dev",
            "mig.quartermaster.dev",
            "mps.quartermaster.dev",
            "timeslice.quartermaster.dev",
            "channel.quartermaster.dev");
    for (var shared : classes.subList(1, 4)) {
      var type = shared.getMetadata().getName().replace(".quartermaster.dev", "");
      assertThat(shared.getSpec().getSelectors().getFirst().getCel().getExpression())
          .contains("['gpu.quartermaster.dev']." + KubeNames.TYPE + " == '" + type + "'")
          .contains("['gpu.quartermaster.dev']." + KubeNames.CONTROL_NODES_READY);
    }
    var gpu = classes.getFirst().getSpec().getSelectors().getFirst().getCel().getExpression();
    assertThat(gpu)
        .contains("device.driver == 'gpu.quartermaster.dev'")
        .contains("['gpu.quartermaster.dev']." + KubeNames.TYPE + " == 'gpu'")
        .contains("['gpu.quartermaster.dev']." + KubeNames.CONTROL_NODES_READY);
    var channel = classes.getLast().getSpec().getSelectors().getFirst().getCel().getExpression();
    assertThat(channel).contains("['gpu.quartermaster.dev']." + KubeNames.TYPE + " == 'channel'");
  }

  @Test
  void theRoleGrantsWhatThePluginCalls() throws IOException {
    var role =
        read("quartermaster-dra.yaml").stream()
            .filter(ClusterRole.class::isInstance)
            .map(ClusterRole.class::cast)
            .findFirst()
            .orElseThrow();
    assertThat(role.getRules())
        .anySatisfy(
            r -> {
              assertThat(r.getResources()).containsExactly("resourceclaims");
              assertThat(r.getVerbs()).contains("get");
            })
        .anySatisfy(
            r -> {
              assertThat(r.getResources()).containsExactly("resourceslices");
              assertThat(r.getVerbs()).contains("list", "create", "update", "delete");
            });
  }

  @Test
  void theDaemonSetKeepsTheLedgerAndMountsTheKubeletsDirectories() throws IOException {
    var ds =
        read("quartermaster-dra.yaml").stream()
            .filter(DaemonSet.class::isInstance)
            .map(DaemonSet.class::cast)
            .findFirst()
            .orElseThrow();
    var paths =
        ds.getSpec().getTemplate().getSpec().getVolumes().stream()
            .map(v -> v.getHostPath().getPath())
            .toList();
    assertThat(paths)
        .contains(
            "/var/lib/kubelet/plugins_registry",
            "/var/lib/kubelet/plugins/gpu.quartermaster.dev",
            "/var/run/cdi",
            "/var/lib/quartermaster",
            "/dev");
  }

  /**
   * The plugin reads the host's {@code /proc/*}{@code /fd} before it prepares a GPU (a process of
   * an earlier claim may still hold it), and records its helpers' pids: both need the host's pid
   * namespace.
   */
  @Test
  void theDaemonSetSeesTheHostsProcesses() throws IOException {
    var ds =
        read("quartermaster-dra.yaml").stream()
            .filter(DaemonSet.class::isInstance)
            .map(DaemonSet.class::cast)
            .findFirst()
            .orElseThrow();
    assertThat(ds.getSpec().getTemplate().getSpec().getHostPID()).isTrue();
  }

  @Test
  void theChannelExamplesConfigIsOneThePluginAccepts() throws Exception {
    var template =
        read("channel-pod.yaml").stream()
            .filter(ResourceClaimTemplate.class::isInstance)
            .map(ResourceClaimTemplate.class::cast)
            .findFirst()
            .orElseThrow();
    var opaque = template.getSpec().getSpec().getDevices().getConfig().getFirst().getOpaque();
    assertThat(opaque.getDriver()).isEqualTo("gpu.quartermaster.dev");
    @SuppressWarnings("unchecked")
    var parameters =
        (java.util.Map<String, Object>)
            new KubernetesSerialization().convertValue(opaque.getParameters(), java.util.Map.class);
    assertThat(ClaimConfig.parse(parameters).computeDomain()).contains("train-1");
  }
}
