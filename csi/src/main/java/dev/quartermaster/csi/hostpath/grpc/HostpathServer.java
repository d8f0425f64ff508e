package dev.quartermaster.csi.hostpath.grpc;

import com.sun.net.httpserver.HttpServer;
import dev.quartermaster.core.env.OutsideEnv;
import dev.quartermaster.csi.grpc.CsiServer;
import dev.quartermaster.csi.hostpath.HostpathConfig;
import dev.quartermaster.csi.hostpath.HostpathPlugin;
import io.grpc.BindableService;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Optional;
import java.util.concurrent.Executors;

/**
 * A running hostpath plugin: its CSI services on a Unix socket (Identity always; Controller and
 * Node as configured) and, when asked, its overlap counters as Prometheus text at {@code /metrics}.
 */
@OutsideEnv("the hostpath plugin's gRPC server threads")
public final class HostpathServer implements AutoCloseable {
  private final HostpathPlugin plugin;
  private final CsiServer csi;
  private final Optional<HttpServer> metrics;

  private HostpathServer(HostpathPlugin plugin, CsiServer csi, Optional<HttpServer> metrics) {
    this.plugin = plugin;
    this.csi = csi;
    this.metrics = metrics;
  }

  /**
   * Opens the plugin on {@code config} and serves it at {@code endpoint}; with {@code
   * metricsAddress} (port 0 picks a free one) it also serves {@code /metrics}.
   */
  public static HostpathServer start(
      HostpathConfig config, String endpoint, Optional<InetSocketAddress> metricsAddress) {
    var plugin = HostpathPlugin.open(config);
    var services = new ArrayList<BindableService>();
    services.add(new HostpathIdentityService(plugin));
    if (config.controller()) {
      services.add(new HostpathControllerService(plugin));
    }
    if (config.node()) {
      services.add(new HostpathNodeService(plugin));
    }
    var csi = CsiServer.start(endpoint, services);
    try {
      return new HostpathServer(plugin, csi, metricsAddress.map(a -> metricsServer(plugin, a)));
    } catch (RuntimeException e) {
      csi.close();
      throw e;
    }
  }

  public HostpathPlugin plugin() {
    return plugin;
  }

  public String endpoint() {
    return csi.endpoint();
  }

  /** Where {@code /metrics} is served, if it is. */
  public Optional<InetSocketAddress> metricsAddress() {
    return metrics.map(HttpServer::getAddress);
  }

  /** The counters in Prometheus text exposition format. */
  public static String prometheusText(HostpathPlugin plugin) {
    var s = plugin.overlapStats();
    return """
        # HELP qm_csi_destructive_calls_total Destructive controller calls (Create/Delete/ControllerPublish/ControllerUnpublish) started.
        # TYPE qm_csi_destructive_calls_total counter
        qm_csi_destructive_calls_total %d
        # HELP qm_csi_overlapping_calls_total Destructive controller calls that started while another was in flight.
        # TYPE qm_csi_overlapping_calls_total counter
        qm_csi_overlapping_calls_total %d
        """
        .formatted(s.destructiveCalls(), s.overlaps());
  }

  @Override
  public void close() {
    metrics.ifPresent(m -> m.stop(0));
    csi.close();
  }

  private static HttpServer metricsServer(HostpathPlugin plugin, InetSocketAddress address) {
    try {
      var server = HttpServer.create(address, 0);
      server.createContext(
          "/metrics",
          exchange -> {
            var body = prometheusText(plugin).getBytes(StandardCharsets.UTF_8);
            exchange
                .getResponseHeaders()
                .set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
            exchange.sendResponseHeaders(200, body.length);
            try (var out = exchange.getResponseBody()) {
              out.write(body);
            }
          });
      server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
      server.start();
      return server;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot serve metrics on " + address, e);
    }
  }
}
