package dev.quartermaster.csi.hostpath;

import static dev.quartermaster.csi.grpc.Calls.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.volume.VolumeSpec.AccessMode;
import dev.quartermaster.csi.grpc.Calls;
import dev.quartermaster.csi.grpc.GrpcCsiPlugin;
import dev.quartermaster.csi.hostpath.grpc.HostpathServer;
import dev.quartermaster.csi.plugin.CsiCall;
import dev.quartermaster.csi.plugin.CsiCode;
import dev.quartermaster.csi.plugin.CsiException;
import dev.quartermaster.csi.plugin.CsiPlugin;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code --detect-overlap}: destructive controller calls that overlap are refused with ABORTED and
 * counted. The artificial latency keeps each call in flight long enough that calls sent together
 * overlap; the test waits for the calls themselves (bounded), never for time.
 */
@Timeout(120)
class OverlapDetectionTest {
  private static final int CALLS = 8;

  private final Path dir = Calls.shortTempDir();
  private final List<AutoCloseable> closing = new ArrayList<>();
  private HostpathServer server;
  private CsiPlugin client;

  @AfterEach
  void tearDown() throws Exception {
    for (var c : closing.reversed()) {
      c.close();
    }
    Calls.deleteTree(dir);
  }

  private void start(boolean detect) {
    var config =
        HostpathConfig.of("n1", dir.resolve("state"))
            .withOverlapDetection(detect, Duration.ofMillis(400));
    server =
        HostpathServer.start(
            config,
            dir.resolve("csi.sock").toString(),
            Optional.of(new InetSocketAddress("127.0.0.1", 0)));
    closing.add(server);
    client = GrpcCsiPlugin.open(server.endpoint(), Duration.ofSeconds(30));
    closing.add(client);
  }

  /**
   * Sends {@link #CALLS} destructive calls at once and waits for them all; returns the codes of
   * those that failed.
   */
  private List<CsiCode> concurrentDestructiveCalls() {
    var calls = new ArrayList<CompletableFuture<?>>();
    for (int i = 0; i < CALLS; i++) {
      CompletionStage<?> call =
          i % 2 == 0
              ? client.createVolume("v" + i, 1 << 20, AccessMode.SingleNodeWriter, Map.of())
              : client.deleteVolume("gone" + i);
      calls.add(call.toCompletableFuture());
    }
    var codes = new ArrayList<CsiCode>();
    for (var c : calls) {
      try {
        c.get(60, TimeUnit.SECONDS);
      } catch (Exception e) {
        var error = CsiException.of(CsiCall.CreateVolume, e);
        assertThat(error.getMessage()).contains("overlapping controller call");
        codes.add(error.code());
      }
    }
    return codes;
  }

  @Test
  void overlappingDestructiveCallsAreAbortedAndCounted() throws Exception {
    start(true);

    var failures = concurrentDestructiveCalls();

    var stats = server.plugin().overlapStats();
    assertThat(stats.destructiveCalls()).isEqualTo(CALLS);
    assertThat(stats.overlaps()).isPositive().isEqualTo(failures.size());
    assertThat(failures).containsOnly(CsiCode.ABORTED);
    assertThat(failures.size()).isLessThan(CALLS); // the first in flight always goes through

    var metrics = scrape();
    assertThat(metrics)
        .contains("qm_csi_destructive_calls_total " + CALLS)
        .contains("qm_csi_overlapping_calls_total " + stats.overlaps())
        .contains("# TYPE qm_csi_overlapping_calls_total counter");
  }

  @Test
  void withoutDetectionOverlapsAreCountedButServed() {
    start(false);

    var failures = concurrentDestructiveCalls();

    assertThat(failures).isEmpty();
    assertThat(server.plugin().overlapStats().overlaps()).isPositive();
  }

  @Test
  void callsMadeOneAtATimeNeverOverlapAndReadsDoNotCount() {
    start(true);

    for (int i = 0; i < 3; i++) {
      // A read alongside each destructive call: reads are not serialized.
      var read = client.capacity();
      await(client.createVolume("s" + i, 1 << 20, AccessMode.SingleNodeWriter, Map.of()));
      await(read);
      await(client.controllerPublish("s" + i, "n1", AccessMode.SingleNodeWriter, false));
    }

    assertThat(server.plugin().overlapStats()).isEqualTo(new OverlapStats(6, 0));
  }

  private String scrape() throws Exception {
    var address = server.metricsAddress().orElseThrow();
    try (var http = HttpClient.newHttpClient()) {
      var response =
          http.send(
              HttpRequest.newBuilder(
                      URI.create("http://127.0.0.1:" + address.getPort() + "/metrics"))
                  .timeout(Duration.ofSeconds(10))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(response.statusCode()).isEqualTo(200);
      return response.body();
    }
  }
}
