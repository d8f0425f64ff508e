package dev.quartermaster.kubelet.plugin;

import dev.quartermaster.agent.devices.DeviceRoot;
import dev.quartermaster.agent.nvml.NvmlLoad;
import dev.quartermaster.api.validation.Names;
import dev.quartermaster.core.env.Env;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * How a kubelet plugin runs on its node.
 *
 * @param driverName the DRA driver's name, as DeviceClasses and ResourceSlices name it
 * @param nodeName this node: the pool its devices are published in
 * @param stateDir the ledger and its journal (locked: one plugin, or one agent, per directory)
 * @param registrationDir where the kubelet looks for plugins ({@code <driver>-reg.sock} goes there)
 * @param pluginDir this driver's directory ({@code dra.sock} goes there)
 * @param cdiDir where prepared claims' CDI specs are written (one the container runtime reads)
 * @param deviceRoot where the GPUs are discovered ({@code /}, or a simulated root)
 * @param nvml loads NVML (used only when the device root is {@code /})
 * @param bootId the kernel's boot id: a ledger from another boot is discarded
 * @param tombstoneTtl how long an unprepared claim's late prepare is refused
 * @param helperCommand the compute-domain helper: started for each domain a prepared claim asks
 *     for, stopped when none does ({@code {domain}} and {@code {socket}} are replaced, as for the
 *     agent)
 * @param sharing the GPUs in MIG mode or shared by MPS or time-slicing ({@code --share})
 */
public record KubeletPluginConfig(
    String driverName,
    String nodeName,
    Path stateDir,
    Path registrationDir,
    Path pluginDir,
    Path cdiDir,
    DeviceRoot deviceRoot,
    Supplier<NvmlLoad> nvml,
    String bootId,
    Env env,
    Duration tombstoneTtl,
    List<String> helperCommand,
    PluginSharing sharing) {

  public static final String DEFAULT_DRIVER = "gpu.quartermaster.dev";

  /** Where the kubelet looks for plugin registration sockets. */
  public static final String DEFAULT_REGISTRATION_DIR = "/var/lib/kubelet/plugins_registry";

  /** The default driver's directory among the kubelet's plugins. */
  public static final String DEFAULT_PLUGIN_DIR = "/var/lib/kubelet/plugins/" + DEFAULT_DRIVER;

  /**
   * What a node's name must be: a Kubernetes node name, a DNS subdomain (the kubelet's, with its
   * dots: {@code ip-10-0-1-2.ec2.internal}); so never a path ({@code ../x}, {@code a/b}) or a line
   * break, since it names the node's slices, its label values and its log lines.
   */
  public static final String NODE_NAME_RULE =
      Names.DNS_SUBDOMAIN_RULE + " (a Kubernetes node name)";

  public static boolean isNodeName(String name) {
    return Names.isDnsSubdomain(name);
  }

  /** A name as typed, with what cannot be shown (a line break, a control character) escaped. */
  public static String printable(String name) {
    var out = new StringBuilder();
    name.codePoints()
        .forEach(
            c -> {
              if (c == '\n') {
                out.append("\\n");
              } else if (c < 0x20 || c == 0x7f) {
                out.append("\\u%04x".formatted(c));
              } else {
                out.appendCodePoint(c);
              }
            });
    return out.toString();
  }

  public KubeletPluginConfig {
    Objects.requireNonNull(driverName, "driverName");
    if (!Names.isDnsSubdomain(driverName)) {
      throw new IllegalArgumentException(
          "driver name '" + driverName + "' must be a DNS subdomain");
    }
    Objects.requireNonNull(nodeName, "nodeName");
    if (!isNodeName(nodeName)) {
      throw new IllegalArgumentException(
          "node name '" + printable(nodeName) + "' " + NODE_NAME_RULE);
    }
    stateDir = stateDir.toAbsolutePath().normalize();
    registrationDir = registrationDir.toAbsolutePath().normalize();
    pluginDir = pluginDir.toAbsolutePath().normalize();
    cdiDir = cdiDir.toAbsolutePath().normalize();
    Objects.requireNonNull(deviceRoot, "deviceRoot");
    Objects.requireNonNull(nvml, "nvml");
    Objects.requireNonNull(bootId, "bootId");
    Objects.requireNonNull(env, "env");
    Objects.requireNonNull(tombstoneTtl, "tombstoneTtl");
    helperCommand = List.copyOf(helperCommand);
    if (helperCommand.isEmpty()) {
      throw new IllegalArgumentException("the helper command must not be empty");
    }
    Objects.requireNonNull(sharing, "sharing");
  }

  /** {@code <registrationDir>/<driver>-reg.sock}: the kubelet watches the directory for it. */
  public Path registrationSocket() {
    return registrationDir.resolve(driverName + "-reg.sock");
  }

  /** {@code <pluginDir>/dra.sock}: where the DRA services listen. */
  public Path draSocket() {
    return pluginDir.resolve("dra.sock");
  }

  /** Where the helpers' pid files and logs are kept (they outlive a plugin restart). */
  public Path helperDir() {
    return stateDir.resolve("helpers");
  }

  /** The compute domains the node is a member of, one per line. */
  public Path domainFile() {
    return stateDir.resolve("compute-domains");
  }

  /** Where the MPS control daemons' pipes, logs and pid files are kept. */
  public Path mpsDir() {
    return stateDir.resolve("mps");
  }

  /** The ledger's snapshot file (its journal lies next to it), as the agent names it. */
  public Path ledgerFile() {
    return stateDir.resolve("ledger.json");
  }
}
