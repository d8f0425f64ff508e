package dev.quartermaster.bench;

import dev.quartermaster.api.client.http.HttpApiClient;
import dev.quartermaster.core.env.SystemEnv;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Nodes' heartbeats over HTTP from a process of their own, as agents' are: {@link StandInBeats}
 * through {@link #CLIENTS} HTTP clients, so what the server spends on a beat is the server's figure
 * and what the clients spend is not. Prints {@code beats B requests R} every half second; ends when
 * its standard input closes.
 */
final class BeatSwarm implements AutoCloseable {
  /** Connections shared by the nodes' beats (10,000 clients would be 10,000 selector threads). */
  private static final int CLIENTS = 32;

  private final Process process;
  private final Path log;

  private BeatSwarm(Process process, Path log) {
    this.process = process;
    this.log = log;
  }

  static BeatSwarm start(URI server, String token, int nodes, StandInBeats.Style style, Path log)
      throws IOException {
    var java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    var process =
        new ProcessBuilder(
                java,
                "-cp",
                System.getProperty("java.class.path"),
                BeatSwarm.class.getName(),
                server.toString(),
                token,
                Integer.toString(nodes),
                style.name())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    return new BeatSwarm(process, log);
  }

  /** Beats and requests so far, as the swarm last printed them; zeros before it did. */
  long[] counts() throws IOException {
    var lines = Files.readAllLines(log);
    for (int i = lines.size() - 1; i >= 0; i--) {
      var f = lines.get(i).split(" ");
      if (f.length == 4 && f[0].equals("beats") && f[2].equals("requests")) {
        return new long[] {Long.parseLong(f[1]), Long.parseLong(f[3])};
      }
    }
    return new long[] {0, 0};
  }

  /** Its CPU so far, in nanoseconds. */
  long cpuNanos() {
    return process.toHandle().info().totalCpuDuration().map(d -> d.toNanos()).orElse(0L);
  }

  @Override
  public void close() throws InterruptedException {
    try {
      process.getOutputStream().close();
    } catch (IOException e) {
      // it is gone already
    }
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      process.destroyForcibly();
    }
  }

  public static void main(String[] args) throws Exception {
    var server = URI.create(args[0]);
    var token = args[1];
    int nodes = Integer.parseInt(args[2]);
    var style = StandInBeats.Style.valueOf(args[3]);
    List<HttpApiClient> clients = new ArrayList<>();
    for (int i = 0; i < CLIENTS; i++) {
      clients.add(new HttpApiClient(server, token));
    }
    try (var beats =
        StandInBeats.start(i -> clients.get(i % CLIENTS), new SystemEnv(), nodes, style)) {
      var printer =
          Thread.ofPlatform()
              .daemon()
              .start(
                  () -> {
                    while (true) {
                      System.out.println(
                          "beats " + beats.written() + " requests " + beats.requests());
                      System.out.flush();
                      try {
                        Thread.sleep(500);
                      } catch (InterruptedException e) {
                        return;
                      }
                    }
                  });
      System.in.readAllBytes(); // until the bench closes it
      printer.interrupt();
    }
    clients.forEach(HttpApiClient::close);
    Runtime.getRuntime().halt(0);
  }
}
