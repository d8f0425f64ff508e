package dev.quartermaster.sim.world;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.volume.Volume;
import dev.quartermaster.api.volume.VolumeSpec;
import dev.quartermaster.api.volume.VolumeSpec.AccessMode;
import dev.quartermaster.api.volume.VolumeStatus;
import dev.quartermaster.api.volume.VolumeUse;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskSpec;
import dev.quartermaster.api.workload.TaskStatus;
import dev.quartermaster.core.env.Env;
import dev.quartermaster.core.serial.KeyedSerializer;
import dev.quartermaster.core.serial.NoSerializer;
import dev.quartermaster.core.serial.NomadFuturePerKey;
import dev.quartermaster.core.serial.Serializer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Nomad #15415 in the whole cluster: 50 task slots on 10 nodes claim and release 20 single-writer
 * volumes of one plugin over and over (each slot runs a short task, and when it ends the next
 * generation is created, possibly on another node), with the plugin in overlap-detect mode. The
 * real system: no destructive calls overlap, calls start in submission order per plugin, every
 * promise holds at every step, and at the end every claim is free and nothing is attached. The
 * naive serializers are caught: none overlaps calls; Nomad's first cut starts them out of order.
 */
class VolumeIncidentTest {
  static final int NODES = 10;
  static final int VOLUMES = 20;
  static final int SLOTS = 50;
  static final int GENERATIONS = 3;

  record Outcome(
      List<String> violations,
      boolean finished,
      long overlaps,
      long outOfOrder,
      long starts,
      Duration longestWait,
      long destructiveCalls,
      List<String> left) {}

  @Test
  void theRealSerializerKeepsEveryCallAloneInOrderAndFreesEveryClaim() {
    Campaign.quiet();
    for (long seed : seeds()) {
      var o = run(seed, KeyedSerializer::new);
      assertThat(o.violations()).as("seed %d", seed).isEmpty();
      assertThat(o.finished())
          .as("seed %d: every generation ran and every claim was freed (%s)", seed, o)
          .isTrue();
      assertThat(o.overlaps()).as("seed %d", seed).isZero();
      assertThat(o.outOfOrder()).as("seed %d", seed).isZero();
      assertThat(o.starts())
          .as("seed %d: calls went through the serializer", seed)
          .isGreaterThan(SLOTS * GENERATIONS);
      System.out.println(
          "volume incident, seed "
              + seed
              + ": "
              + o.destructiveCalls()
              + " destructive calls, "
              + o.starts()
              + " serialized starts, longest wait "
              + o.longestWait().toMillis()
              + " ms, 0 overlaps");
    }
  }

  @Test
  void withoutASerializerCallsOverlap() {
    Campaign.quiet();
    var o = run(1, env -> new NoSerializer<>());
    System.out.println(
        "no serializer: "
            + o.overlaps()
            + " overlapping calls, violations "
            + o.violations().size());
    assertThat(o.overlaps()).isPositive();
    assertThat(o.violations()).anyMatch(v -> v.startsWith("I5 plugin"));
  }

  @Test
  void nomadsFirstCutStartsCallsOutOfOrder() {
    Campaign.quiet();
    var o = run(1, NomadFuturePerKey::new);
    System.out.println(
        "Nomad's future per plugin: "
            + o.outOfOrder()
            + " calls started out of order, longest wait "
            + o.longestWait().toMillis()
            + " ms");
    assertThat(o.outOfOrder()).isPositive();
  }

  static long[] seeds() {
    var one = Long.getLong("qm.seed");
    if (one != null) {
      return new long[] {one};
    }
    return new long[] {1, 2, 3};
  }

  static Outcome run(long seed, Function<Env, Serializer<String>> serializer) {
    var recorders = new ArrayList<Recording>();
    var world =
        new WholeCluster(
            seed,
            NODES,
            1,
            Variant.volumeCalls(
                env -> {
                  var r = new Recording(serializer.apply(env), env);
                  recorders.add(r);
                  return r;
                }));
    var promises = new Promises(world);
    var api = world.api();
    var watched = System.getProperty("qm.watchVolume");
    if (watched != null) {
      world
          .store()
          .onCommit(
              (rev, changes) ->
                  changes.forEach(
                      e -> {
                        if (e.kv().key().endsWith("/" + watched)
                            || e.kv().key().contains("/job-12-0")) {
                          var text =
                              new String(e.kv().value(), java.nio.charset.StandardCharsets.UTF_8);
                          System.out.println(
                              "t="
                                  + world.env().now()
                                  + " "
                                  + e.type()
                                  + " "
                                  + e.kv().key()
                                  + " "
                                  + text.substring(Math.max(0, text.indexOf("\"status\""))));
                        }
                      }));
    }
    for (int v = 0; v < VOLUMES; v++) {
      api.create(
          new Volume(
              ObjectMeta.named("vol-" + v),
              new VolumeSpec(WholeCluster.PLUGIN, 1 << 20, AccessMode.SingleNodeWriter, Map.of()),
              VolumeStatus.EMPTY));
    }
    int[] generation = new int[SLOTS];
    for (int s = 0; s < SLOTS; s++) {
      create(world, s, 0);
    }
    var violations = new ArrayList<String>();
    var random = new java.util.SplittableRandom(seed);
    boolean finished =
        world
            .env()
            .runUntil(
                () -> {
                  violations.addAll(promises.check());
                  if (!violations.isEmpty()) {
                    return true;
                  }
                  boolean allDone = true;
                  for (int s = 0; s < SLOTS; s++) {
                    var name = name(s, generation[s]);
                    var t = world.view().task(name);
                    if (t.isPresent()
                        && t.get().status().phase().isFinished()
                        && !t.get().metadata().isDeleting()) {
                      api.delete(Kinds.TASK, name);
                      if (generation[s] + 1 < GENERATIONS) {
                        generation[s]++;
                        // The next generation lands on another node now and then: the volume must
                        // change hands.
                        create(
                            world,
                            s,
                            generation[s],
                            random.nextInt(4) == 0 ? random.nextInt(NODES) : s % NODES);
                      }
                    }
                    allDone &=
                        generation[s] + 1 == GENERATIONS && world.view().task(name).isEmpty();
                  }
                  return allDone
                      && world.view().volumes().stream()
                          .allMatch(v -> v.status().claims().isEmpty())
                      && world.storage().volumeIds().stream()
                          .allMatch(id -> world.storage().attachedTo(id).isEmpty());
                },
                Duration.ofHours(2));
    long outOfOrder = recorders.stream().mapToLong(Recording::outOfOrder).sum();
    long starts = recorders.stream().mapToLong(Recording::starts).sum();
    var longest =
        recorders.stream()
            .map(Recording::longestWait)
            .max(Duration::compareTo)
            .orElse(Duration.ZERO);
    var left = new ArrayList<String>();
    world.view().tasks().stream()
        .limit(5)
        .forEach(
            t ->
                left.add(
                    "task "
                        + t.metadata().name()
                        + " on "
                        + t.spec().node().orElse("?")
                        + " "
                        + t.status().phase()
                        + " "
                        + t.status().reason()
                        + ": "
                        + t.status().message()
                        + (t.metadata().isDeleting()
                            ? " (deleting " + t.metadata().finalizers() + ")"
                            : "")));
    world.view().volumes().stream()
        .filter(v -> !v.status().claims().isEmpty() || v.metadata().name().equals("vol-12"))
        .limit(5)
        .forEach(
            v ->
                left.add(
                    "volume "
                        + v.metadata().name()
                        + " "
                        + v.status().claims()
                        + " "
                        + v.status().conditions()));
    return new Outcome(
        violations,
        finished && violations.isEmpty(),
        world.storage().overlaps(),
        outOfOrder,
        starts,
        longest,
        world.storage().destructiveCalls(),
        left);
  }

  static String name(int slot, int generation) {
    return "job-" + slot + "-" + generation;
  }

  static void create(WholeCluster world, int slot, int generation) {
    create(world, slot, generation, slot % NODES);
  }

  static void create(WholeCluster world, int slot, int generation, int node) {
    var spec =
        new TaskSpec(
            Optional.of("node-" + (1 + node)),
            List.of("done"),
            Map.of(),
            List.of(),
            List.of(VolumeUse.writer("vol-" + (slot % VOLUMES))),
            "exec",
            Optional.empty());
    world.api().create(new Task(ObjectMeta.named(name(slot, generation)), spec, TaskStatus.EMPTY));
  }

  /**
   * Records FIFO order per key and the longest wait, around whichever serializer the controller is
   * given.
   */
  static final class Recording implements Serializer<String> {
    private final Serializer<String> delegate;
    private final Env env;
    private final Map<String, Long> submitted = new java.util.HashMap<>();
    private final Map<String, Long> lastStarted = new java.util.HashMap<>();
    private long outOfOrder;
    private long starts;
    private long longestWaitNanos;

    Recording(Serializer<String> delegate, Env env) {
      this.delegate = delegate;
      this.env = env;
    }

    @Override
    public <T> CompletionStage<T> submit(String key, Supplier<? extends CompletionStage<T>> call) {
      long seq = submitted.merge(key, 1L, Long::sum);
      long at = env.nanoTime();
      return delegate.submit(
          key,
          () -> {
            starts++;
            long previous = lastStarted.getOrDefault(key, 0L);
            if (seq < previous) {
              outOfOrder++;
            }
            lastStarted.put(key, Math.max(previous, seq));
            longestWaitNanos = Math.max(longestWaitNanos, env.nanoTime() - at);
            return call.get();
          });
    }

    long outOfOrder() {
      return outOfOrder;
    }

    long starts() {
      return starts;
    }

    Duration longestWait() {
      return Duration.ofNanos(longestWaitNanos);
    }
  }
}
