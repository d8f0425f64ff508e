package dev.quartermaster.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.client.WatchEvent;
import dev.quartermaster.api.client.WatchHandle;
import dev.quartermaster.api.client.WatchHandler;
import dev.quartermaster.api.client.http.HttpApiClient;
import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.api.node.NodeStatus;
import dev.quartermaster.api.node.PluginInstance;
import dev.quartermaster.api.node.PluginRole;
import dev.quartermaster.api.volume.Volume;
import dev.quartermaster.api.volume.VolumeClaimEvent;
import dev.quartermaster.api.volume.VolumeClaimMachine;
import dev.quartermaster.api.volume.VolumeSpec;
import dev.quartermaster.api.volume.VolumeSpec.AccessMode;
import dev.quartermaster.api.volume.VolumeUse;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskPhase;
import dev.quartermaster.api.workload.TaskSpec;
import dev.quartermaster.api.workload.TaskStatus;
import dev.quartermaster.core.net.LoopbackPorts;
import dev.quartermaster.csi.hostpath.HostpathConfig;
import dev.quartermaster.csi.hostpath.grpc.HostpathServer;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The "Crash" test (I6 for volumes, I5 across restarts): a real {@code qm server} in a
 * child JVM is killed with SIGKILL at each step of a volume claim and restarted on the same data
 * directory and port; the claim must resume from the step it had persisted and run to the end.
 *
 * <p>The test JVM runs the real hostpath plugin (gRPC on a Unix socket, with call latency, so a
 * call's result arrives well after the step before it was persisted) and plays the node agent over
 * the HTTP API: it registers node-1 with the plugin instance and heartbeats it, creates the volume
 * and a task pinned to node-1, finishes the task once the claim is attached, reports the node side
 * detached ({@code NodeDetached}, as the agent would after NodeUnpublish/NodeUnstage) and finally
 * deletes the volume. A watch on volumes, resumed after every restart from the last revision seen,
 * records every persisted step, including those the dying server wrote after the test last looked.
 *
 * <p>A restarted server takes the controllers' lease only after the dead one's expires ({@code
 * LeaderConfig.DEFAULTS}: 15 s), so the kill points run side by side ({@code -Dqm.crash.parallel},
 * default all six), each with its own plugin, data directory and port. {@code
 * -Dqm.crash.points=Taken,Deleting} runs only those; {@code -Dqm.crash.trace=true} prints every
 * step as the watch sees it, runs the servers at DEBUG and keeps their directories under /tmp/qmc*.
 */
@Timeout(300)
class VolumeCrashTest {
  static final String PLUGIN = HostpathConfig.PLUGIN_NAME;
  static final String NODE = "node-1";
  static final String VOLUME = "v";
  static final String TASK = "t";
  static final Duration LATENCY = Duration.ofMillis(300);
  static final Duration SCENARIO_BOUND = Duration.ofSeconds(150);

  /** What the test can see of a volume claim's life, in order. */
  enum Step {
    Pending,
    Created,
    Taken,
    Attached,
    NodeDetached,
    ControllerDetached,
    Free,
    Deleting,
    Deleted,
    Gone
  }

  /** Where the server is killed: as soon as the test sees this step persisted. */
  enum KillPoint {
    Created(Step.Created),
    Taken(Step.Taken),
    Attached(Step.Attached),
    NodeDetached(Step.NodeDetached),
    ControllerDetached(Step.ControllerDetached),
    Deleting(Step.Deleting);

    final Step step;

    KillPoint(Step step) {
      this.step = step;
    }
  }

  record Outcome(
      KillPoint point,
      Step persistedAtKill,
      String killSeen,
      String restartRead,
      List<Step> trajectory,
      Duration restartToLeader,
      Duration restartToGone,
      long destructiveCalls,
      long overlaps,
      List<String> pluginVolumes,
      List<String> volumeDirs) {
    String line() {
      return "kill after %-18s persisted at kill: %-18s (killed on seeing %s; restarted server read %s) steps: %s; after restart: first new step in %.1f s (lease takeover included), done in %.1f s; plugin: %d destructive calls, %d overlapping, %d volumes left"
          .formatted(
              point,
              persistedAtKill,
              killSeen,
              restartRead,
              trajectory,
              restartToLeader.toMillis() / 1000.0,
              restartToGone.toMillis() / 1000.0,
              destructiveCalls,
              overlaps,
              pluginVolumes.size());
    }
  }

  @Test
  void theServerKilledAtEveryStepOfAClaimResumesItAndCompletes() throws Exception {
    // Short, for the Unix sockets (sun_path is 108 bytes).
    var root = Files.createTempDirectory(Path.of("/tmp"), "qmc");
    int parallel = Integer.getInteger("qm.crash.parallel", KillPoint.values().length);
    var pool =
        Executors.newFixedThreadPool(parallel, Thread.ofPlatform().name("crash-", 0).factory());
    try {
      var futures = new ArrayList<Future<Outcome>>();
      var only = System.getProperty("qm.crash.points", "");
      for (var k : KillPoint.values()) {
        if (!only.isEmpty() && !List.of(only.split(",")).contains(k.name())) {
          continue;
        }
        futures.add(pool.submit(() -> new Scenario(k, root.resolve("k" + k.ordinal())).run()));
      }
      var outcomes = new ArrayList<Outcome>();
      for (var f : futures) {
        outcomes.add(f.get(SCENARIO_BOUND.toSeconds() * 2, TimeUnit.SECONDS));
      }
      outcomes.forEach(o -> System.out.println(o.line()));
      for (var o : outcomes) {
        var what = "kill after " + o.point();
        assertThat(o.trajectory())
            .as(what + ": every step, in order")
            .containsSubsequence(
                Step.Created,
                Step.Taken,
                Step.Attached,
                Step.NodeDetached,
                Step.ControllerDetached,
                Step.Free,
                Step.Deleting,
                Step.Deleted,
                Step.Gone);
        assertThat(o.trajectory())
            .as(what + ": never backwards")
            .isSortedAccordingTo(Comparator.naturalOrder());
        assertThat(o.persistedAtKill().compareTo(o.point().step))
            .as(
                what
                    + ": the step persisted at the kill (killed on seeing "
                    + o.killSeen()
                    + "; the restarted server read "
                    + o.restartRead()
                    + ")")
            .isGreaterThanOrEqualTo(0);
        assertThat(o.pluginVolumes()).as(what + ": volumes left in the plugin").isEmpty();
        assertThat(o.volumeDirs()).as(what + ": volume directories left").isEmpty();
        assertThat(o.overlaps()).as(what + ": overlapping destructive calls (I5)").isZero();
        assertThat(o.destructiveCalls())
            .as(what + ": Create, Publish, Unpublish, Delete at least")
            .isGreaterThanOrEqualTo(4);
      }
    } finally {
      pool.shutdownNow();
      if (!Boolean.getBoolean("qm.crash.trace")) {
        deleteTree(root);
      }
    }
  }

  /** One kill point: its own plugin, data directory and port. */
  static final class Scenario {
    private final KillPoint point;
    private final Path dir;
    private final Path data;
    private final Path log;
    private final int port;
    private final List<Step> trajectory = Collections.synchronizedList(new ArrayList<>());
    private final LinkedBlockingQueue<Boolean> changes = new LinkedBlockingQueue<>();
    private final AtomicBoolean killed = new AtomicBoolean();

    /** The first revision at which the volume was seen with a claim (0: not yet). */
    private final java.util.concurrent.atomic.AtomicLong claimSeenAt =
        new java.util.concurrent.atomic.AtomicLong();

    private volatile long lastRevision;

    /** What made the test kill the server: the step, its revision and who saw it. */
    private volatile String killSeen = "";

    private volatile Process child;
    private volatile HttpApiClient api;
    private volatile WatchHandle watch;

    Scenario(KillPoint point, Path dir) throws IOException {
      this.point = point;
      this.dir = Files.createDirectories(dir);
      this.data = dir.resolve("data");
      this.log = dir.resolve("server.log");
      this.port = freePort();
    }

    Outcome run() throws Exception {
      var sock = dir.resolve("csi.sock");
      var config =
          HostpathConfig.of(NODE, dir.resolve("plugin"))
              .withRoles(true, true)
              .withOverlapDetection(false, LATENCY);
      var plugin = HostpathServer.start(config, "unix://" + sock, Optional.empty());
      ScheduledExecutorService heartbeats = Executors.newSingleThreadScheduledExecutor();
      try {
        var instance =
            new PluginInstance(
                PLUGIN,
                "unix://" + sock,
                "1",
                Set.of(PluginRole.Controller, PluginRole.Node),
                true,
                "",
                NODE);
        start();
        var api = this.api;
        var since = Instant.now();
        var node = api.create(new Node(ObjectMeta.named(NODE), null, null));
        api.updateStatus(node.withStatus(nodeStatus(instance, since)));
        // The agent's heartbeat: a new status.heartbeat every 2 s (NotReady after 40 s without
        // one).
        heartbeats.scheduleWithFixedDelay(() -> heartbeat(instance, since), 2, 2, TimeUnit.SECONDS);
        api.create(
            new Volume(
                ObjectMeta.named(VOLUME),
                new VolumeSpec(PLUGIN, 1 << 20, AccessMode.SingleNodeWriter, Map.of()),
                null));

        Step persistedAtKill = null;
        Instant restartedAt = null;
        Instant leaderAt = null;
        Step stepAtRestart = null;
        String restartRead = "";
        boolean deleteRequested = false;
        var deadline = Instant.now().plus(SCENARIO_BOUND);
        while (true) {
          if (Instant.now().isAfter(deadline)) {
            throw new AssertionError(
                "kill after "
                    + point
                    + ": not done within "
                    + SCENARIO_BOUND
                    + "; steps "
                    + snapshot()
                    + "; last volume "
                    + safeGet()
                    + "; server log "
                    + log
                    + ":\n"
                    + tail(log));
          }
          if (killed.get() && restartedAt == null) {
            // Killed (by this loop or by the watch): a new server on the same data directory and
            // port.
            assertThat(child.waitFor(30, TimeUnit.SECONDS))
                .as("child exits after SIGKILL")
                .isTrue();
            restartedAt = Instant.now();
            start();
            // The new server waits for the dead one's lease: what it reads now is what was
            // persisted.
            var read = this.api.get(Kinds.VOLUME, VOLUME);
            persistedAtKill = step(read);
            restartRead =
                persistedAtKill
                    + read.map(r -> " at revision " + r.metadata().revision()).orElse("");
            stepAtRestart = persistedAtKill;
            continue;
          }
          Optional<Volume> current;
          try {
            current = this.api.get(Kinds.VOLUME, VOLUME);
          } catch (RuntimeException e) {
            awaitChange();
            continue;
          }
          if (current.isEmpty()) {
            if (!deleteRequested) {
              throw new AssertionError("volume vanished before its delete; steps " + snapshot());
            }
            break;
          }
          var v = current.get();
          var s = observe(v);
          if (restartedAt != null && leaderAt == null && s != stepAtRestart) {
            leaderAt = Instant.now();
          }
          if (killed.get() && restartedAt == null) {
            // the watch killed it after our read: act on nothing until the restart
            continue;
          }
          try {
            switch (s) {
              case Created -> {
                if (this.api.get(Kinds.TASK, TASK).isEmpty()) {
                  this.api.create(
                      new Task(
                          ObjectMeta.named(TASK),
                          new TaskSpec(
                              Optional.of(NODE),
                              List.of("true"),
                              Map.of(),
                              List.of(),
                              List.of(VolumeUse.writer(VOLUME)),
                              "exec",
                              Optional.empty()),
                          null));
                }
              }
              case Attached -> {
                var t = this.api.get(Kinds.TASK, TASK).orElseThrow();
                if (!t.status().phase().isFinished()) {
                  // The task ran and exited: the agent says so.
                  var st = t.status();
                  this.api.updateStatus(
                      t.withStatus(
                          new TaskStatus(
                              TaskPhase.Succeeded,
                              "Completed",
                              "exited 0",
                              Optional.of(NODE),
                              st.deviceCheck(),
                              Optional.of(0),
                              st.startedAt().or(() -> Optional.of(Instant.now())),
                              Optional.of(Instant.now()),
                              st.conditions())));
                } else {
                  // The agent unpublished and unstaged it: NodeDetached, compare-and-set on the
                  // volume.
                  var claims =
                      v.status().claims().stream()
                          .map(
                              c ->
                                  c.task().equals(TASK)
                                      ? VolumeClaimMachine.apply(
                                              c, new VolumeClaimEvent.NodeReleased())
                                          .orElse(c)
                                      : c)
                          .toList();
                  observe(this.api.updateStatus(v.withStatus(v.status().withClaims(claims))));
                }
              }
              case Free -> {
                if (!deleteRequested) {
                  deleteRequested = true;
                  observe(this.api.delete(Kinds.VOLUME, VOLUME).object());
                }
              }
              default -> {}
            }
          } catch (ApiException e) {
            // A conflict is a race with the controller (read again); a failed request, our own kill
            // landing before its answer did.
            if (!e.is(Reason.Conflict)
                && !e.is(Reason.NotFound)
                && !e.is(Reason.AlreadyExists)
                && !killed.get()) {
              throw e;
            }
          } catch (RuntimeException e) {
            if (!killed.get()) {
              throw e;
            }
          }
          awaitChange();
        }
        var gone = Instant.now();
        if (restartedAt == null) {
          throw new AssertionError("kill after " + point + ": never killed; steps " + snapshot());
        }
        // The watch's DELETED event arrives just after the GET that found the volume gone.
        awaitStep(Step.Gone);
        var pluginVolumes =
            plugin.plugin().listVolumes(100, "").entries().stream()
                .map(e -> e.volumeId() + " published to " + e.publishedNodeIds())
                .toList();
        List<String> dirs;
        try (var files = Files.list(config.stateDir().resolve("volumes"))) {
          dirs = files.map(p -> p.getFileName().toString()).toList();
        }
        var stats = plugin.plugin().overlapStats();
        return new Outcome(
            point,
            persistedAtKill,
            killSeen,
            restartRead,
            snapshot(),
            Duration.between(restartedAt, leaderAt == null ? gone : leaderAt),
            Duration.between(restartedAt, gone),
            stats.destructiveCalls(),
            stats.overlaps(),
            pluginVolumes,
            dirs);
      } finally {
        heartbeats.shutdownNow();
        stop();
        plugin.close();
      }
    }

    /** Records what the test saw, and kills the server if it is the kill point. */
    private Step observe(Volume v) {
      var s = step(v);
      if (s.compareTo(point.step) >= 0 && killed.compareAndSet(false, true)) {
        child.toHandle().destroyForcibly();
        // The scenario's own loop runs on the pool's "crash-" threads; everything else is the
        // watch.
        killSeen =
            s
                + " at revision "
                + v.metadata().revision()
                + " by "
                + (Thread.currentThread().getName().startsWith("crash-") ? "a read" : "the watch");
      }
      return s;
    }

    private Step step(Optional<Volume> v) {
      return v.map(this::step).orElse(Step.Gone);
    }

    private Step step(Volume v) {
      if (!v.status().claims().isEmpty()) {
        claimSeenAt.accumulateAndGet(
            v.metadata().revision(), (a, b) -> a == 0 ? b : Math.min(a, b));
      }
      if (v.metadata().isDeleting()) {
        return v.status().externalId().isEmpty() ? Step.Deleted : Step.Deleting;
      }
      if (v.status().externalId().isEmpty()) {
        return Step.Pending;
      }
      if (v.status().claims().isEmpty()) {
        // Free only after a claim: a read and the watch see the volume on different threads, and
        // a read's older copy (no claim yet) must not pass for the free volume after the claim.
        long first = claimSeenAt.get();
        return first != 0 && v.metadata().revision() > first ? Step.Free : Step.Created;
      }
      var c = v.status().claims().getFirst();
      return switch (c.state()) {
        case Taken -> c.attached() ? Step.Attached : Step.Taken;
        case NodeDetached -> Step.NodeDetached;
        case ControllerDetached -> Step.ControllerDetached;
        case Free -> Step.Free;
      };
    }

    /**
     * Starts a server on the data directory and waits until it answers; opens the client and the
     * watch.
     */
    private void start() throws Exception {
      var old = this.api;
      if (old != null) {
        old.close();
      }
      var java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
      var command =
          List.of(
              java,
              "--enable-native-access=ALL-UNNAMED",
              "-XX:TieredStopAtLevel=1",
              "-XX:+UseSerialGC",
              "-Xmx256m",
              "-cp",
              System.getProperty("java.class.path"),
              Main.class.getName(),
              "server",
              "--data",
              data.toString(),
              "--listen",
              "127.0.0.1:" + port);
      var pb =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
      // Its client config goes here, not into the user's ~/.config.
      pb.environment().put("XDG_CONFIG_HOME", dir.resolve("config").toString());
      if (Boolean.getBoolean("qm.crash.trace")) {
        pb.environment().put("QM_LOG_LEVEL", "DEBUG");
      }
      child = pb.start();
      var token = data.resolve("admin.token");
      var deadline = Instant.now().plus(Duration.ofSeconds(60));
      while (true) {
        if (!child.isAlive()) {
          throw new AssertionError(
              "qm server exited " + child.exitValue() + " at start; " + log + ":\n" + tail(log));
        }
        if (Instant.now().isAfter(deadline)) {
          throw new AssertionError(
              "qm server did not answer within 60 s; " + log + ":\n" + tail(log));
        }
        if (Files.exists(token)) {
          var client =
              new HttpApiClient(
                  URI.create("http://127.0.0.1:" + port), Files.readString(token).trim());
          try {
            client.list(Kinds.VOLUME);
            api = client;
            break;
          } catch (RuntimeException e) {
            client.close();
          }
        }
        try {
          child.onExit().get(50, TimeUnit.MILLISECONDS); // the next look, or at once if it died
        } catch (TimeoutException stillRunning) {
          // look again
        }
      }
      watch =
          api.watch(
              Kinds.VOLUME,
              lastRevision,
              new WatchHandler<Volume>() {
                @Override
                public void onEvent(WatchEvent<Volume> e) {
                  if (!e.object().metadata().name().equals(VOLUME)) {
                    return;
                  }
                  lastRevision = e.revision();
                  var s = e.type() == WatchEvent.Type.DELETED ? Step.Gone : observe(e.object());
                  synchronized (trajectory) {
                    if (trajectory.isEmpty() || trajectory.getLast() != s) {
                      trajectory.add(s);
                      if (Boolean.getBoolean("qm.crash.trace")) {
                        System.out.println(
                            Instant.now()
                                + " "
                                + point
                                + " rev "
                                + e.revision()
                                + " "
                                + s
                                + " "
                                + e.object().status());
                      }
                    }
                  }
                  changes.offer(true);
                }

                @Override
                public void onGone(long compactedRevision) {
                  trajectory.add(Step.Pending); // fails the order check: history was lost
                  changes.offer(true);
                }
              });
    }

    private void stop() {
      var w = watch;
      if (w != null) {
        w.close();
      }
      var a = api;
      if (a != null) {
        a.close();
      }
      var c = child;
      if (c != null && c.isAlive()) {
        c.toHandle().destroyForcibly();
        try {
          c.waitFor(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }

    private void heartbeat(PluginInstance instance, Instant since) {
      try {
        var a = api;
        var n = a.get(Kinds.NODE, NODE).orElseThrow();
        a.updateStatus(n.withStatus(nodeStatus(instance, since)));
      } catch (RuntimeException e) {
        // the server is down or the node was just written: the next beat tries again
      }
    }

    private static NodeStatus nodeStatus(PluginInstance instance, Instant since) {
      var conditions =
          List.of(
              new Condition(
                  "AgentReady",
                  Condition.Status.True,
                  "Heartbeat",
                  "test agent",
                  Optional.of(since)),
              new Condition(
                  "DevicesReady",
                  Condition.Status.True,
                  "AllPresent",
                  "no devices",
                  Optional.of(since)));
      return new NodeStatus(
          conditions, Optional.of(Instant.now()), "boot-1", "test", List.of(), List.of(instance));
    }

    /**
     * Waits for the watch to report a change, at most 100 ms (then the loop reads again). The watch
     * itself kills the server at the kill point, so this only paces the test's own actions.
     */
    private void awaitChange() throws InterruptedException {
      changes.poll(100, TimeUnit.MILLISECONDS);
      changes.clear();
    }

    private void awaitStep(Step s) throws InterruptedException {
      var deadline = Instant.now().plusSeconds(10);
      while (!snapshot().contains(s) && Instant.now().isBefore(deadline)) {
        changes.poll(50, TimeUnit.MILLISECONDS);
      }
    }

    private List<Step> snapshot() {
      synchronized (trajectory) {
        return List.copyOf(trajectory);
      }
    }

    private String safeGet() {
      try {
        return String.valueOf(api.get(Kinds.VOLUME, VOLUME));
      } catch (RuntimeException e) {
        return e.toString();
      }
    }
  }

  private static int freePort() {
    return LoopbackPorts.free();
  }

  private static String tail(Path file) {
    try {
      var lines = Files.readAllLines(file);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    } catch (IOException e) {
      return "(" + e + ")";
    }
  }

  private static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    try (var walk = Files.walk(root)) {
      for (var p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
