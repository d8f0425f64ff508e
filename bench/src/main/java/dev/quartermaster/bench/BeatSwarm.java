package dev.quartermaster.bench;

import dev.quartermaster.api.client.http.HttpApiClient;
import dev.quartermaster.core.env.SystemEnv;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Nodes' heartbeats over HTTP from a process of their own, as agents' are: {@link StandInBeats}
 * through {@link #CLIENTS} HTTP clients, so what the server spends on a beat is the server's figure
 * and what the clients spend is not. Prints {@code beats B requests R} every half second; ends when
 * its standard input closes.
 */
final class BeatSwarm extends SideProcess {
  /** Connections shared by the nodes' beats (10,000 clients would be 10,000 selector threads). */
  private static final int CLIENTS = 32;

  private BeatSwarm(URI server, String token, int nodes, StandInBeats.Style style, Path log)
      throws IOException {
    super(
        BeatSwarm.class,
        List.of(),
        List.of(server.toString(), token, Integer.toString(nodes), style.name()),
        log);
  }

  static BeatSwarm start(URI server, String token, int nodes, StandInBeats.Style style, Path log)
      throws IOException {
    return new BeatSwarm(server, token, nodes, style, log);
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
