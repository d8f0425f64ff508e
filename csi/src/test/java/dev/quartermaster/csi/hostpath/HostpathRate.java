package dev.quartermaster.csi.hostpath;

import dev.quartermaster.api.volume.VolumeSpec.AccessMode;
import dev.quartermaster.csi.grpc.Calls;
import dev.quartermaster.csi.grpc.GrpcCsiPlugin;
import dev.quartermaster.csi.hostpath.grpc.HostpathServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;

/**
 * Raw call rates of the hostpath plugin over a Unix socket, for a bench to call ({@link #measure})
 * or to run by hand ({@link #main}, arguments: calls, concurrency). Not a test: it asserts nothing
 * and its numbers depend on the machine.
 */
public final class HostpathRate {

  /**
   * Calls per second: Probe one at a time and {@code concurrency} at once, and full volume cycles
   * one at a time.
   */
  public record Rates(
      double probeSequential,
      double probeConcurrent,
      double volumeCyclesSequential,
      int calls,
      int concurrency) {
    @Override
    public String toString() {
      return "probe sequential %.0f/s, probe x%d concurrent %.0f/s, create+publish+unpublish+delete cycles %.0f/s (%d calls each)"
          .formatted(probeSequential, concurrency, probeConcurrent, volumeCyclesSequential, calls);
    }
  }

  private HostpathRate() {}

  public static Rates measure(Path dir, int calls, int concurrency) {
    var config = HostpathConfig.of("n1", dir.resolve("state")).withCapacity(Long.MAX_VALUE / 4);
    try (var server =
            HostpathServer.start(config, dir.resolve("csi.sock").toString(), Optional.empty());
        var client = GrpcCsiPlugin.open(server.endpoint(), Duration.ofSeconds(30))) {
      // Warm up the connection and the JIT.
      for (int i = 0; i < 500; i++) {
        Calls.await(client.probe());
      }
      long t0 = System.nanoTime();
      for (int i = 0; i < calls; i++) {
        Calls.await(client.probe());
      }
      double sequential = calls / seconds(t0);

      t0 = System.nanoTime();
      var workers = new ArrayList<CompletableFuture<Void>>();
      int each = Math.max(1, calls / concurrency);
      for (int w = 0; w < concurrency; w++) {
        workers.add(
            CompletableFuture.runAsync(
                () -> {
                  for (int i = 0; i < each; i++) {
                    Calls.await(client.probe());
                  }
                },
                Executors.newVirtualThreadPerTaskExecutor()));
      }
      workers.forEach(CompletableFuture::join);
      double concurrent = (double) each * concurrency / seconds(t0);

      int cycles = Math.max(1, calls / 10);
      var mode = AccessMode.SingleNodeWriter;
      t0 = System.nanoTime();
      for (int i = 0; i < cycles; i++) {
        var id = "rate" + i;
        Calls.await(client.createVolume(id, 1 << 20, mode, Map.of()));
        Calls.await(client.controllerPublish(id, "n1", mode, false));
        Calls.await(client.controllerUnpublish(id, "n1"));
        Calls.await(client.deleteVolume(id));
      }
      double volumeCycles = cycles / seconds(t0);
      return new Rates(sequential, concurrent, volumeCycles, calls, concurrency);
    }
  }

  public static void main(String[] args) {
    int calls = args.length > 0 ? Integer.parseInt(args[0]) : 5000;
    int concurrency = args.length > 1 ? Integer.parseInt(args[1]) : 16;
    var dir = Calls.shortTempDir();
    try {
      System.out.println(measure(dir, calls, concurrency));
    } finally {
      Calls.deleteTree(dir);
    }
  }

  private static double seconds(long since) {
    return (System.nanoTime() - since) / 1e9;
  }
}
