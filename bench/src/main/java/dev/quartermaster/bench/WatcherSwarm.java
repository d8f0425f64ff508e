package dev.quartermaster.bench;

import dev.quartermaster.api.client.WatchEvent;
import dev.quartermaster.api.client.WatchHandle;
import dev.quartermaster.api.client.WatchHandler;
import dev.quartermaster.api.client.WatchScope;
import dev.quartermaster.api.client.http.HttpApiClient;
import dev.quartermaster.api.meta.Kinds;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A bench's HTTP watchers in a process of their own, as users' watches are: what a server spends on
 * them is the server's figure, what they spend decoding is not. Started by {@link #start}; watcher
 * {@code i} watches tasks in node {@code node-i}'s scope, as that node's agent does, from the
 * revision given; ends when its standard input closes, printing how many events it received.
 */
final class WatcherSwarm extends SideProcess {
  private WatcherSwarm(URI server, String token, int count, long revision, Path log)
      throws IOException {
    super(
        WatcherSwarm.class,
        List.of("-XX:+UseSerialGC"),
        List.of(server.toString(), token, Integer.toString(count), Long.toString(revision)),
        log);
  }

  /** Waits until every watch is open (the swarm says so in its log). */
  void awaitWatching(java.time.Duration bound) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + bound.toNanos();
    while (!java.nio.file.Files.readString(log).contains("watching: ")) {
      if (!isAlive() || System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "the watchers did not start within "
                + bound
                + ": "
                + java.nio.file.Files.readString(log));
      }
      Thread.sleep(100);
    }
  }

  /** {@code count} agents' watches of tasks on {@code server}, from {@code revision}. */
  static WatcherSwarm start(URI server, String token, int count, long revision, Path log)
      throws IOException {
    return new WatcherSwarm(server, token, count, revision, log);
  }

  public static void main(String[] args) throws Exception {
    var server = URI.create(args[0]);
    var token = args[1];
    int count = Integer.parseInt(args[2]);
    long revision = Long.parseLong(args[3]);
    var events = new AtomicLong();
    var clients = new ArrayList<HttpApiClient>();
    var watches = new ArrayList<WatchHandle>();
    for (int i = 0; i < count; i++) {
      var client = new HttpApiClient(server, token);
      clients.add(client);
      watches.add(
          client.watch(
              Kinds.TASK,
              revision,
              WatchScope.node("node-" + i),
              new WatchHandler<>() {
                @Override
                public void onEvent(WatchEvent<dev.quartermaster.api.workload.Task> event) {
                  events.incrementAndGet();
                }

                @Override
                public void onGone(long compactedRevision) {}
              }));
    }
    System.out.println("watching: " + count);
    System.out.flush();
    System.in.readAllBytes(); // until the bench closes it
    watches.forEach(WatchHandle::close);
    clients.forEach(HttpApiClient::close);
    System.out.println("events received: " + events.get());
    Runtime.getRuntime().halt(0);
  }
}
