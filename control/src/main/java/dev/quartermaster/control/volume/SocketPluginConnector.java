package dev.quartermaster.control.volume;

import dev.quartermaster.api.node.PluginInstance;
import dev.quartermaster.csi.grpc.GrpcCsiPlugin;
import dev.quartermaster.csi.plugin.CsiPlugin;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The production {@link PluginConnector}: the gRPC client on the instance's Unix socket, one
 * connection per endpoint, kept. Every call carries {@link #CALL_DEADLINE}; a plugin that hangs
 * past it fails the call with DEADLINE_EXCEEDED (retried with backoff, as the call may have gone
 * through).
 */
public final class SocketPluginConnector implements PluginConnector, AutoCloseable {
  public static final Duration CALL_DEADLINE = Duration.ofSeconds(30);

  private final Map<String, CsiPlugin> clients = new ConcurrentHashMap<>();

  @Override
  public CsiPlugin connect(String node, PluginInstance instance) {
    return clients.computeIfAbsent(instance.endpoint(), e -> GrpcCsiPlugin.open(e, CALL_DEADLINE));
  }

  @Override
  public void close() {
    clients.values().forEach(CsiPlugin::close);
    clients.clear();
  }
}
