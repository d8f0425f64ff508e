package dev.quartermaster.cli.commands;

import dev.quartermaster.csi.grpc.GrpcCsiPlugin;
import dev.quartermaster.csi.plugin.CsiPlugin;
import java.time.Duration;
import java.util.function.Function;

/** How an agent started from the command line reaches the CSI plugins on its node. */
final class CsiClients {
  /** Node calls (stage, publish) wait this long before failing DEADLINE_EXCEEDED. */
  static final Duration NODE_CALL_DEADLINE = Duration.ofSeconds(60);

  private CsiClients() {}

  static Function<String, CsiPlugin> grpc() {
    return endpoint -> GrpcCsiPlugin.open(endpoint, NODE_CALL_DEADLINE);
  }
}
