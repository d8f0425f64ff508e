package dev.quartermaster.cli.failover;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.client.WatchHandle;
import dev.quartermaster.api.client.http.HttpApiClient;
import dev.quartermaster.api.client.http.TrustedCa;
import dev.quartermaster.api.codec.ObjectCodec;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.workload.TaskPhase;
import dev.quartermaster.cli.WatchedChange;
import dev.quartermaster.core.env.SystemEnv;
import dev.quartermaster.core.net.LoopbackPorts;
import dev.quartermaster.store.etcd.EtcdProcesses;
import dev.quartermaster.store.etcd.EtcdStore;
import dev.quartermaster.store.registry.ObjectRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Issue 12's failover test, with real processes: 3 etcd members, 3 {@code qm server} replicas on
 * them (TLS, one CA), a {@code qm agent} per simulated node given all three servers, and an
 * operator's storm of scaling and claims ({@link Storm}). During the storm, separately: the leading
 * server is paused ({@code kill -STOP}) past its renew deadline and resumed, the leading server is
 * killed ({@code kill -9}), an etcd member that does not lead is killed, and the etcd leader is
 * killed. After each, the cluster must converge (L1); over the whole history, read back from etcd,
 * no device is allocated to two claims (I1) and no group is over its replicas (I4); and every write
 * the cluster acknowledged is there. Without etcd the test skips saying how to get it; under {@code
 * CI=true} it fails.
 */
class ReplicaFailoverTest {
  private static final Duration LEASE = Duration.ofSeconds(6);
  private static final Duration STORM = Duration.ofSeconds(8);

  /** Past the renew deadline (2/3 of the lease), within the lease. */
  private static final Duration PAUSE = Duration.ofSeconds(5);

  private static final int NODES = 3;
  private static final int GPUS = 4;

  @Test
  void theClusterSurvivesLosingItsLeaderAnEtcdMemberAndTheEtcdLeader() throws Exception {
    var binary = EtcdProcesses.binary();
    if (binary.isEmpty() && "true".equals(System.getenv("CI"))) {
      throw new AssertionError("CI=true and no etcd: .ci/run must install it");
    }
    assumeTrue(binary.isPresent(), EtcdProcesses.HOW_TO_INSTALL);
    var dir = Files.createTempDirectory(Path.of("/tmp"), "qm-failover");
    var children = new ArrayList<QmChild>();
    var report = new ArrayList<String>();
    boolean passed = false;
    try (var etcd = EtcdProcesses.start(binary.get(), dir.resolve("etcd"), 3)) {
      var servers = new ArrayList<QmChild>();
      var uris = new ArrayList<URI>();
      for (int i = 0; i < 3; i++) {
        int port = freePort();
        var server =
            QmChild.start(
                dir,
                "server-" + i,
                "is running.",
                List.of(
                    "server",
                    "--data",
                    dir.resolve("s" + i).toString(),
                    "--listen",
                    "127.0.0.1:" + port,
                    "--tls",
                    "--store",
                    etcd.storeUri(),
                    "--leader-lease",
                    LEASE.toSeconds() + "s"));
        servers.add(server);
        children.add(server);
        uris.add(URI.create("https://127.0.0.1:" + port));
      }
      var ca = dir.resolve("s0/tls/ca.crt");
      for (int i = 1; i < 3; i++) {
        assertThat(Files.readString(dir.resolve("s" + i + "/tls/ca.crt")))
            .as("one CA for every replica")
            .isEqualTo(Files.readString(ca));
        assertThat(Files.readString(dir.resolve("s" + i + "/admin.token")))
            .isEqualTo(Files.readString(dir.resolve("s0/admin.token")));
      }
      var tls = TrustedCa.sslContext(ca);
      var api =
          HttpApiClient.of(
              uris, Files.readString(dir.resolve("s0/admin.token")).strip(), Optional.of(tls));
      api.create(
          ObjectCodec.fromJson(
              """
          {"kind": "DeviceClass", "metadata": {"name": "gpu"}, "spec": {"class": "gpu"}}"""
                  .getBytes(StandardCharsets.UTF_8),
              Kinds.DEVICE_CLASS));
      var servers3 = String.join(",", uris.stream().map(URI::toString).toList());
      for (int n = 1; n <= NODES; n++) {
        var answer =
            ObjectCodec.json()
                .readTree(
                    api.exchange(
                        "POST",
                        "tokens",
                        Optional.of(
                            ("{\"node\": \"n" + n + "\"}").getBytes(StandardCharsets.UTF_8))));
        var tokenFile = dir.resolve("n" + n + ".token");
        Files.writeString(tokenFile, answer.get("token").asText() + "\n");
        children.add(
            QmChild.start(
                dir,
                "agent-n" + n,
                "is running.",
                List.of(
                    "agent",
                    "--server",
                    servers3,
                    "--ca-file",
                    ca.toString(),
                    "--token-file",
                    tokenFile.toString(),
                    "--node",
                    "n" + n,
                    "--state",
                    dir.resolve("n" + n).toString(),
                    "--cdi-dir",
                    dir.resolve("n" + n + "-cdi").toString(),
                    "--simulated-gpus",
                    "" + GPUS)));
      }
      await(
          "3 nodes registered",
          Duration.ofSeconds(60),
          () -> api.list(Kinds.NODE).items().size() == NODES);
      api.create(
          ObjectCodec.fromJson(
              """
          {"kind": "Workload", "metadata": {"name": "storm"}, "spec": {"groups": [{"name": "workers", "replicas": 2,
           "template": {"command": ["sleep", "3600"]},
           "claimTemplates": [{"name": "gpu", "spec": {"requests": [{"name": "gpu", "deviceClassName": "gpu", "count": 1}]}}]}]}}
          """
                  .getBytes(StandardCharsets.UTF_8),
              Kinds.WORKLOAD));
      // 0. kill -STOP of the leading server past its renew deadline, within its lease, mid-storm:
      // it resumes holding a lease nobody took and must lead under a new term (issue 43, item 1).
      var storm0 = new Storm(api, "storm", 2, 6);
      var pausedThread = Thread.ofPlatform().name("storm").start(storm0);
      pause(STORM);
      int paused = leader(uris, tls);
      long pausedAt = System.nanoTime();
      servers.get(paused).signal("STOP");
      pause(PAUSE);
      servers.get(paused).signal("CONT");
      pause(STORM);
      storm0.stop();
      pausedThread.join();
      await(
          "converged after the leading server was paused",
          Duration.ofSeconds(120),
          () -> converged(api, storm0));
      var lastReadyz = new ArrayList<String>();
      await(
          () -> "every server ready (/readyz 200); last answers: " + lastReadyz,
          Duration.ofSeconds(30),
          () -> {
            lastReadyz.clear();
            IntStream.range(0, 3).forEach(i -> lastReadyz.add(readyz(uris.get(i), tls)));
            return lastReadyz.stream().allMatch(r -> r.startsWith("200"));
          });
      report.add(
          String.format(
              "leading server s%d paused %d s: converged %.1f s after the pause began; then server"
                  + " s%d led; /readyz of each: %s",
              paused,
              PAUSE.toSeconds(),
              seconds(System.nanoTime() - pausedAt),
              leadingServer(uris, tls).orElse(-1),
              IntStream.range(0, 3).mapToObj(i -> readyz(uris.get(i), tls)).toList()));

      // 1. kill -9 of the leading server, mid-storm.
      var storm1 = storm0.next(12);
      var stormThread = Thread.ofPlatform().name("storm").start(storm1);
      pause(STORM);
      int leader = leader(uris, tls);
      long killedAt = System.nanoTime();
      servers.get(leader).kill();
      var survivors = IntStream.range(0, 3).filter(i -> i != leader).mapToObj(uris::get).toList();
      await(
          "another server leads",
          Duration.ofSeconds(60),
          () -> leadingServer(survivors, tls).isPresent());
      double toLeader = seconds(System.nanoTime() - killedAt);
      pause(STORM);
      storm1.stop();
      stormThread.join();
      long stoppedAt = System.nanoTime();
      await(
          "converged after the leading server died",
          Duration.ofSeconds(120),
          () -> converged(api, storm1));
      report.add(
          String.format(
              "leading server killed: new leader after %.1f s; converged %.1f s after the kill (%.1f s"
                  + " after the storm's last write); longest acknowledged write %.1f s",
              toLeader,
              seconds(System.nanoTime() - killedAt),
              seconds(System.nanoTime() - stoppedAt),
              storm1.longestWriteSeconds()));

      // 2. kill -9 of an etcd member that does not lead.
      var storm2 = storm1.next(34);
      stormThread = Thread.ofPlatform().name("storm").start(storm2);
      pause(STORM);
      int etcdLeader = etcd.leader().orElseThrow();
      int follower = (etcdLeader + 1) % 3;
      long followerKilledAt = System.nanoTime();
      etcd.kill(follower);
      pause(STORM);
      storm2.stop();
      stormThread.join();
      stoppedAt = System.nanoTime();
      await(
          "converged with an etcd member down",
          Duration.ofSeconds(120),
          () -> converged(api, storm2));
      report.add(
          String.format(
              "etcd member m%d (follower) killed: converged %.1f s after the kill (%.1f s after the storm's"
                  + " last write); longest acknowledged write %.1f s",
              follower,
              seconds(System.nanoTime() - followerKilledAt),
              seconds(System.nanoTime() - stoppedAt),
              storm2.longestWriteSeconds()));
      etcd.restart(follower);
      etcd.awaitHealthy(Duration.ofSeconds(60));

      // 3. kill -9 of the etcd leader.
      var last = storm2.next(56);
      stormThread = Thread.ofPlatform().name("storm").start(last);
      pause(STORM);
      etcdLeader = etcd.leader().orElseThrow();
      long etcdKilledAt = System.nanoTime();
      etcd.kill(etcdLeader);
      etcd.awaitHealthy(Duration.ofSeconds(60));
      double toEtcdLeader = seconds(System.nanoTime() - etcdKilledAt);
      pause(STORM);
      last.stop();
      stormThread.join();
      stoppedAt = System.nanoTime();
      await(
          "converged after the etcd leader died",
          Duration.ofSeconds(120),
          () -> converged(api, last));
      report.add(
          String.format(
              "etcd leader m%d killed: etcd led again after %.1f s; converged %.1f s after the kill (%.1f s"
                  + " after the storm's last write); longest acknowledged write %.1f s",
              etcdLeader,
              toEtcdLeader,
              seconds(System.nanoTime() - etcdKilledAt),
              seconds(System.nanoTime() - stoppedAt),
              last.longestWriteSeconds()));

      // Acknowledged writes are all there: the last replicas, every claim created and not deleted.
      var workload = api.get(Kinds.WORKLOAD, "storm").orElseThrow();
      assertThat(workload.spec().groups().getFirst().replicas()).isEqualTo(last.replicas());

      // The whole history, from etcd itself, judged in revision order.
      var judge = new FailoverJudge();
      try (var store = new EtcdStore(etcd.endpoints(), "/qm")) {
        var history = new ObjectRegistry(store, new SystemEnv());
        long until = store.currentRevision();
        var changes = new ArrayList<WatchedChange>();
        // Each kind's watch replays on its own and one may lag another (the workloads' behind the
        // tasks', under load): the history is read back when every one says its replay reached
        // `until`, not when the newest change of any kind has arrived (which once judged tasks
        // against a workload whose scale-up had not been read yet: false I4 violations).
        var caughtUp = List.of(new AtomicLong(-1), new AtomicLong(-1), new AtomicLong(-1));
        var watches =
            List.of(
                WatchedChange.record(history, Kinds.RESOURCE_CLAIM, 0, changes, caughtUp.get(0)),
                WatchedChange.record(history, Kinds.TASK, 0, changes, caughtUp.get(1)),
                WatchedChange.record(history, Kinds.WORKLOAD, 0, changes, caughtUp.get(2)));
        await(
            "the history read back",
            Duration.ofSeconds(60),
            () -> caughtUp.stream().allMatch(c -> c.get() >= until));
        watches.forEach(WatchHandle::close);
        synchronized (changes) {
          changes.sort(Comparator.comparingLong(WatchedChange::revision));
          changes.forEach(c -> judge.changed(c.revision(), c.object(), c.deleted()));
        }
      }
      report.add(
          "judged "
              + judge.changes()
              + " changes of claims, tasks and workloads: "
              + judge.violations().size()
              + " violations");
      report.add(
          last.writes()
              + " acknowledged writes, "
              + (storm1.retries().size() + storm2.retries().size() + last.retries().size())
              + " retried");
      System.out.println("failover: " + String.join("; ", report));
      assertThat(judge.violations()).as("I1 and I4 over the whole history").isEmpty();
      assertThat(judge.changes()).isGreaterThan(100);
      passed = true;
    } finally {
      for (var c : children) {
        c.close();
      }
      if (!passed) {
        children.forEach(c -> System.out.println(c.tail()));
        System.out.println("failover directory kept: " + dir + "; " + report);
      } else {
        deleteTree(dir);
      }
    }
  }

  /**
   * Every live task of the workload Running and as many as its acknowledged replicas; every
   * acknowledged stand-alone claim there and allocated; every deleted one gone.
   */
  private static boolean converged(ApiClient api, Storm storm) {
    var tasks =
        api.list(Kinds.TASK).items().stream().filter(t -> !t.metadata().isDeleting()).toList();
    if (tasks.size() != storm.replicas()
        || !tasks.stream().allMatch(t -> t.status().phase() == TaskPhase.Running)) {
      return false;
    }
    var claims = api.list(Kinds.RESOURCE_CLAIM).items();
    for (var name : storm.liveClaims()) {
      if (claims.stream()
          .noneMatch(
              c -> c.metadata().name().equals(name) && c.status().allocation().isPresent())) {
        return false;
      }
    }
    return claims.stream().noneMatch(c -> storm.deletedClaims().contains(c.metadata().name()));
  }

  /** {@code /readyz} of one server: its status code and its line. */
  private static String readyz(URI server, javax.net.ssl.SSLContext tls) {
    try (var http =
        HttpClient.newBuilder().sslContext(tls).connectTimeout(Duration.ofSeconds(2)).build()) {
      var response =
          http.send(
              HttpRequest.newBuilder(server.resolve("/readyz"))
                  .timeout(Duration.ofSeconds(2))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      return response.statusCode() + " " + response.body().strip();
    } catch (java.io.IOException e) {
      return "down: " + e;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "interrupted";
    }
  }

  /** The index of the server whose {@code /metrics} says its controllers lead. */
  /**
   * The server that leads, asked for up to 20 s: on two loaded cores a leader's {@code /metrics}
   * may miss one probe's 2-s bound mid-storm (CI saw "no server leads" while server 0's log said it
   * led throughout), and a missed probe is not a missing leader.
   */
  private static int leader(List<URI> servers, javax.net.ssl.SSLContext tls) {
    var found = new int[] {-1};
    await(
        "a server leads (its /metrics says qm_controllers_leader 1)",
        Duration.ofSeconds(20),
        () -> {
          leadingServer(servers, tls).ifPresent(i -> found[0] = i);
          return found[0] >= 0;
        });
    return found[0];
  }

  private static OptionalInt leadingServer(List<URI> servers, javax.net.ssl.SSLContext tls) {
    try (var http =
        HttpClient.newBuilder().sslContext(tls).connectTimeout(Duration.ofSeconds(2)).build()) {
      for (int i = 0; i < servers.size(); i++) {
        try {
          var body =
              http.send(
                      HttpRequest.newBuilder(servers.get(i).resolve("/metrics"))
                          .timeout(Duration.ofSeconds(2))
                          .build(),
                      HttpResponse.BodyHandlers.ofString())
                  .body();
          if (body.lines()
              .anyMatch(l -> l.startsWith("qm_controllers_leader ") && l.endsWith(" 1.0"))) {
            return OptionalInt.of(i);
          }
        } catch (java.io.IOException e) {
          // down: not the leader
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return OptionalInt.empty();
        }
      }
    }
    return OptionalInt.empty();
  }

  private static void await(String what, Duration bound, BooleanSupplier condition) {
    await(() -> what, bound, condition);
  }

  /** As above, with a description read at the failure: it may say what was seen last. */
  private static void await(
      java.util.function.Supplier<String> what, Duration bound, BooleanSupplier condition) {
    long deadline = System.nanoTime() + bound.toNanos();
    RuntimeException last = null;
    while (true) {
      try {
        if (condition.getAsBoolean()) {
          return;
        }
      } catch (RuntimeException e) {
        last = e; // a server between lives: look again
      }
      if (System.nanoTime() > deadline) {
        var e = new AssertionError("not within " + bound + ": " + what.get());
        if (last != null) {
          e.addSuppressed(last);
        }
        throw e;
      }
      pause(Duration.ofMillis(100));
    }
  }

  /** The storm's length, or the next look of a bounded wait. */
  private static void pause(Duration d) {
    try {
      Thread.sleep(d);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static double seconds(long nanos) {
    return nanos / 1e9;
  }

  private static int freePort() {
    return LoopbackPorts.free();
  }

  private static void deleteTree(Path dir) throws java.io.IOException {
    try (var walk = Files.walk(dir)) {
      for (var p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
