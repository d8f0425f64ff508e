package dev.quartermaster.cli.commands;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quartermaster.cli.TestEnvironments;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code qm kubelet-plugin}'s flags, as parsed (no plugin is started). */
class KubeletPluginCommandTest {
  @TempDir Path dir;

  private KubeletPluginCommand parsed(String... args) {
    var env = TestEnvironments.of(Map.of(), dir, dir.resolve("home"));
    var line = new CommandLine(new KubeletPluginCommand(env));
    line.parseArgs(args);
    return line.getCommand();
  }

  @Test
  void theKubeletsOwnDirectoriesByDefault() {
    var config = parsed("--node", "n1").config("boot-1");
    assertThat(config.nodeName()).isEqualTo("n1");
    assertThat(config.driverName()).isEqualTo("gpu.quartermaster.dev");
    assertThat(config.registrationSocket())
        .isEqualTo(Path.of("/var/lib/kubelet/plugins_registry/gpu.quartermaster.dev-reg.sock"));
    assertThat(config.draSocket())
        .isEqualTo(Path.of("/var/lib/kubelet/plugins/gpu.quartermaster.dev/dra.sock"));
    assertThat(config.stateDir()).isEqualTo(Path.of("/var/lib/quartermaster"));
    assertThat(config.cdiDir()).isEqualTo(Path.of("/var/run/cdi"));
  }

  @Test
  void flagsMoveThemRelativeToTheWorkingDirectory() {
    var config =
        parsed(
                "--node",
                "n1",
                "--state",
                "st",
                "--registration-dir",
                "reg",
                "--plugin-dir",
                "pl",
                "--cdi-dir",
                "cdi")
            .config("boot-1");
    assertThat(config.registrationSocket())
        .isEqualTo(dir.resolve("reg/gpu.quartermaster.dev-reg.sock"));
    assertThat(config.draSocket()).isEqualTo(dir.resolve("pl/dra.sock"));
    assertThat(config.stateDir()).isEqualTo(dir.resolve("st"));
    assertThat(config.cdiDir()).isEqualTo(dir.resolve("cdi"));
  }

  @Test
  void shareFlagsSayEachGpusModeAndABadOneIsNamedWithTheRule() {
    var config =
        parsed("--node", "n1", "--share", "gpu-0=mig", "--share", "gpu-1=mps:8").config("boot-1");
    assertThat(config.sharing().mig()).containsOnlyKeys("gpu-0");
    assertThat(config.sharing().shared().get("gpu-1"))
        .isEqualTo(dev.quartermaster.api.node.GpuSharing.mps(8));
    assertThat(parsed("--node", "n1").config("boot-1").sharing())
        .isEqualTo(dev.quartermaster.kubelet.plugin.PluginSharing.NONE);
    assertThatThrownBy(() -> parsed("--node", "n1", "--share", "gpu-0=mps:100").config("b"))
        .isInstanceOf(dev.quartermaster.cli.CliException.class)
        .hasMessageContaining("--share 'gpu-0=mps:100'")
        .hasMessageContaining("2 to 48");
  }

  @Test
  void theNodeIsRequired() {
    assertThatThrownBy(() -> parsed("--state", "st"))
        .isInstanceOf(CommandLine.MissingParameterException.class)
        .hasMessageContaining("--node");
  }

  @Test
  void theNodeIsANodeNameNeverAPathOrALineBreak() {
    for (var bad : new String[] {"../x", "a/b", "n1\nINFO forged line", "", ".", "N1", "a..b"}) {
      assertThatThrownBy(() -> parsed("--node", bad).config("boot-1"))
          .as(bad)
          .isInstanceOf(dev.quartermaster.cli.CliException.class)
          .hasMessageStartingWith("--node '")
          .hasMessageContaining("must be a DNS subdomain")
          .hasMessageNotContaining("\n");
    }
    assertThatThrownBy(() -> parsed("--node", "a\nb").config("boot-1"))
        .hasMessageStartingWith("--node 'a\\nb': must be a DNS subdomain");
    // Kubernetes' node names have dots, as a cloud's often do.
    assertThat(parsed("--node", "ip-10-0-1-2.ec2.internal").config("boot-1").nodeName())
        .isEqualTo("ip-10-0-1-2.ec2.internal");
  }

  @Test
  void theDaemonSetsArgumentsAreFlagsThisCommandTakes() throws Exception {
    var manifest =
        Path.of("..")
            .toAbsolutePath()
            .normalize()
            .resolve("deploy/kubernetes/quartermaster-dra.yaml");
    var parsed =
        new io.fabric8.kubernetes.client.utils.KubernetesSerialization()
            .unmarshal(java.nio.file.Files.readString(manifest));
    var items =
        parsed instanceof io.fabric8.kubernetes.api.model.KubernetesList list
            ? list.getItems()
            : ((java.util.List<?>) parsed)
                .stream().map(io.fabric8.kubernetes.api.model.HasMetadata.class::cast).toList();
    var ds =
        items.stream()
            .filter(io.fabric8.kubernetes.api.model.apps.DaemonSet.class::isInstance)
            .map(io.fabric8.kubernetes.api.model.apps.DaemonSet.class::cast)
            .findFirst()
            .orElseThrow();
    var args = ds.getSpec().getTemplate().getSpec().getContainers().getFirst().getArgs();
    assertThat(args.getFirst()).isEqualTo("kubelet-plugin");
    var flags =
        args.subList(1, args.size()).stream()
            .map(a -> a.replace("$(NODE_NAME)", "gpu-node-7"))
            .toArray(String[]::new);
    var config = parsed(flags).config("boot-1");
    assertThat(config.nodeName()).isEqualTo("gpu-node-7");
    assertThat(config.registrationSocket())
        .isEqualTo(Path.of("/var/lib/kubelet/plugins_registry/gpu.quartermaster.dev-reg.sock"));
    assertThat(config.stateDir()).isEqualTo(Path.of("/var/lib/quartermaster"));
  }

  @Test
  void aMissingOrDamagedKubeconfigIsNamed() throws Exception {
    assertThatThrownBy(() -> parsed("--node", "n1", "--kubeconfig", "nope.yaml").client())
        .isInstanceOf(dev.quartermaster.cli.CliException.class)
        .hasMessage("--kubeconfig " + dir.resolve("nope.yaml") + ": no such file");
    java.nio.file.Files.writeString(dir.resolve("bad.yaml"), "clusters: [");
    assertThatThrownBy(() -> parsed("--node", "n1", "--kubeconfig", "bad.yaml").client())
        .isInstanceOf(dev.quartermaster.cli.CliException.class)
        .hasMessageStartingWith("--kubeconfig " + dir.resolve("bad.yaml") + ": not a kubeconfig");
  }
}
