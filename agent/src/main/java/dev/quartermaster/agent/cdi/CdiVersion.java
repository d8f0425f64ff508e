package dev.quartermaster.agent.cdi;

import java.util.List;

/**
 * The minimum {@code cdiVersion} a spec needs, from the features it uses (the CDI project's rule,
 * and what older runtimes accept: Debian's podman 4.3.1 resolves 0.5.0 and refuses 0.6.0 and later,
 * see reference/cdi-schema/README.md). We only use features up to 0.5.0.
 */
public final class CdiVersion {
  public static final String BASE = "0.3.0";

  /** {@code hostPath} on device nodes, and device names starting with a digit. */
  public static final String HOST_PATH = "0.5.0";

  private CdiVersion() {}

  public static String minimumFor(List<String> deviceNames, List<CdiDeviceNode> nodes) {
    boolean needs050 =
        nodes.stream().anyMatch(CdiDeviceNode::hasHostPath)
            || deviceNames.stream().anyMatch(n -> !n.isEmpty() && Character.isDigit(n.charAt(0)));
    return needs050 ? HOST_PATH : BASE;
  }
}
