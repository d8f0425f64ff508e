package dev.quartermaster.agent;

import dev.quartermaster.agent.checkpoint.BootId;
import dev.quartermaster.agent.devices.DeviceRoot;
import dev.quartermaster.agent.effects.OsHelperProcesses;
import dev.quartermaster.agent.ledger.ClaimLedger;
import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.validation.Names;
import dev.quartermaster.core.env.Env;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * How a {@link NodeAgent} runs.
 *
 * @param api the cluster (HTTP client, or an in-process registry)
 * @param nodeName this node's name (a DNS label)
 * @param stateDir where the ledger checkpoint, the lock and helper pid files live
 * @param deviceRoot where devices are found
 * @param cdiDir where per-claim CDI specs are written
 * @param bootId the kernel boot id (from /proc, or injected by tests)
 * @param heartbeat how often the Node's heartbeat is written
 * @param tombstoneTtl how long an unprepared claim's late prepare is refused
 * @param helperCommand the per-domain helper command; {@code {domain}} is replaced
 * @param workers claims reconciled at once
 */
public record NodeAgentConfig(
    ApiClient api,
    String nodeName,
    Path stateDir,
    DeviceRoot deviceRoot,
    Path cdiDir,
    Env env,
    String bootId,
    Duration heartbeat,
    Duration tombstoneTtl,
    List<String> helperCommand,
    int workers) {

  public NodeAgentConfig {
    Objects.requireNonNull(api, "api");
    Objects.requireNonNull(stateDir, "stateDir");
    Objects.requireNonNull(deviceRoot, "deviceRoot");
    Objects.requireNonNull(cdiDir, "cdiDir");
    Objects.requireNonNull(env, "env");
    Objects.requireNonNull(bootId, "bootId");
    if (nodeName == null || !Names.isDnsLabel(nodeName)) {
      throw new IllegalArgumentException("node name '" + nodeName + "': " + Names.DNS_LABEL_RULE);
    }
    helperCommand = List.copyOf(helperCommand);
    if (workers < 1) {
      throw new IllegalArgumentException("workers must be >= 1: " + workers);
    }
  }

  /** A config with defaults: boot id from /proc, 10 s heartbeat, 90 s tombstones, {@code sleep infinity} helpers. */
  public static NodeAgentConfig of(ApiClient api, String nodeName, Path stateDir, DeviceRoot deviceRoot, Path cdiDir,
      Env env) throws IOException {
    return new NodeAgentConfig(api, nodeName, stateDir, deviceRoot, cdiDir, env, BootId.current(),
        Duration.ofSeconds(10), ClaimLedger.DEFAULT_TOMBSTONE_TTL, OsHelperProcesses.DEFAULT_COMMAND, 4);
  }

  public NodeAgentConfig withBootId(String id) {
    return new NodeAgentConfig(api, nodeName, stateDir, deviceRoot, cdiDir, env, id, heartbeat, tombstoneTtl,
        helperCommand, workers);
  }

  public NodeAgentConfig withHeartbeat(Duration every) {
    return new NodeAgentConfig(api, nodeName, stateDir, deviceRoot, cdiDir, env, bootId, every, tombstoneTtl,
        helperCommand, workers);
  }

  public NodeAgentConfig withHelperCommand(List<String> command) {
    return new NodeAgentConfig(api, nodeName, stateDir, deviceRoot, cdiDir, env, bootId, heartbeat, tombstoneTtl,
        command, workers);
  }
}
