package dev.quartermaster.sim.world;

import dev.quartermaster.api.claim.DeviceRequest;
import dev.quartermaster.api.claim.ResourceClaimSpec;
import dev.quartermaster.api.gang.GangSpec;
import dev.quartermaster.api.gang.GangTopology;
import dev.quartermaster.api.gang.MemberFailurePolicy;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.workload.ClaimTemplate;
import dev.quartermaster.api.workload.RestartPolicy;
import dev.quartermaster.api.workload.TaskTemplate;
import dev.quartermaster.api.workload.WorkerGroup;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.api.workload.WorkloadSpec;
import dev.quartermaster.api.workload.WorkloadStatus;
import dev.quartermaster.control.cluster.Labels;
import dev.quartermaster.core.env.DeterministicEnv;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.random.RandomGenerator;

/**
 * The head-of-line promise (HOL, issue 44) under a stream of small jobs: 6 nodes × 4 GPUs; every 1
 * to 2 s a 1-GPU job arrives that declares {@code activeDeadlineSeconds} (10 to 40 s, drawn) and
 * either ends by itself after 5 s or runs until its deadline stops it; a user deletes each job once
 * it is over (as a TTL would). Some seconds in, a gang of 3 to 5 members of 4 GPUs arrives, which
 * needs that many whole nodes; the stream goes on for {@link #STREAM} after it, always enough to
 * keep a few GPUs busy on every node. In half the seeds the leader fails over while the gang waits.
 * Every promise of {@link Promises} is checked after every step, and HOL: the gang is placed within
 * {@link #bound} of its arrival — the longest deadline of the jobs it waits on, twice when a
 * fail-over makes the new leader see them start anew, plus {@link #SLACK}. Without the reservation
 * ({@link dev.quartermaster.control.allocator.Backfill#OFF}) small jobs keep landing on every node
 * and the gang waits for the whole stream.
 */
public final class JobStream {
  static final int NODES = 6;
  static final int GPUS = 4;
  static final String GANG = "big";

  /** How long the stream goes on after the gang arrives. */
  static final Duration STREAM = Duration.ofMinutes(5);

  /** The longest deadline a small job declares. */
  static final int MAX_DEADLINE_SECONDS = 40;

  /** Room for starts, stops, releases and watch delays on top of the deadlines. */
  static final Duration SLACK = Duration.ofSeconds(30);

  private static final int EVENTS_KEPT = 30;

  /** How a seed ended. */
  public sealed interface Outcome {
    long seed();

    /**
     * @param waited how long the gang waited from its arrival until it was placed
     * @param busy the mean share of the fleet's GPUs allocated while it waited (sampled each
     *     second)
     * @param jobs how many small jobs arrived before it was placed
     */
    record Placed(long seed, Duration waited, double busy, int jobs) implements Outcome {}

    /**
     * HOL broken, and nothing else: the gang was not placed within its bound ({@code waited}), with
     * {@code busy} of the GPUs allocated meanwhile.
     */
    record Starved(long seed, Duration waited, double busy, int jobs, String violation)
        implements Outcome {}

    record Violated(long seed, List<String> violations, List<String> lastEvents)
        implements Outcome {}
  }

  private final long seed;
  private final WholeCluster world;
  private final Promises promises;
  private final RandomGenerator random;
  private final Deque<String> events = new ArrayDeque<>();
  private final int members;
  private final boolean failOver;
  private int jobs;
  private long arrived = -1;
  private double busySum;
  private int busySamples;

  public JobStream(long seed, Variant variant) {
    this.seed = seed;
    this.world = new WholeCluster(seed, NODES, GPUS, variant);
    this.promises = new Promises(world);
    this.random = new java.util.SplittableRandom(seed ^ 0x5EEDL);
    this.members = 3 + random.nextInt(3);
    this.failOver = random.nextBoolean();
  }

  public static Outcome run(long seed, Variant variant) {
    return new JobStream(seed, variant).run();
  }

  /**
   * Runs seeds {@code from .. from+count-1} with the allocator's head of the line as {@code
   * backfill} says, printing each outcome and a summary (the gang's wait: median and longest; the
   * GPUs busy while it waited); returns the exit status: 0 when no seed violated a promise.
   */
  static int campaign(
      long from,
      int count,
      dev.quartermaster.control.allocator.Backfill backfill,
      java.util.function.Consumer<String> out) {
    var variant = Variant.backfill(backfill);
    out.accept(
        "stream of small jobs, then a gang of 3-5 x 4 GPUs on "
            + NODES
            + " x "
            + GPUS
            + " GPUs: seeds "
            + from
            + ".."
            + (from + count - 1)
            + (backfill == dev.quartermaster.control.allocator.Backfill.OFF
                ? " (no reservation: the naive variant)"
                : ""));
    var waits = new ArrayList<Long>();
    double busy = 0;
    int violated = 0;
    for (long seed = from; seed < from + count; seed++) {
      var outcome = run(seed, variant);
      switch (outcome) {
        case Outcome.Placed p -> {
          waits.add(p.waited().toMillis());
          busy += p.busy();
          out.accept(
              String.format(
                  "  seed %d: placed after %.1f s, %.0f%% of GPUs busy while it waited, %d small"
                      + " jobs",
                  seed, p.waited().toMillis() / 1e3, p.busy() * 100, p.jobs()));
        }
        case Outcome.Starved v -> {
          violated++;
          out.accept(
              String.format(
                  "  seed %d violated: %s; %.0f%% of GPUs busy while it waited",
                  seed, v.violation(), v.busy() * 100));
        }
        case Outcome.Violated v -> {
          violated++;
          out.accept("  seed " + seed + " violated: " + String.join("; ", v.violations()));
        }
      }
    }
    waits.sort(null);
    out.accept(
        String.format(
            "%d seeds, %d violated; gang placed in %d: median wait %.1f s, longest %.1f s, %.0f%%"
                + " of GPUs busy while it waited",
            count,
            violated,
            waits.size(),
            waits.isEmpty() ? 0 : waits.get(waits.size() / 2) / 1e3,
            waits.isEmpty() ? 0 : waits.getLast() / 1e3,
            waits.isEmpty() ? 0 : busy / waits.size() * 100));
    return violated == 0 ? 0 : 1;
  }

  /** The bound HOL gives the gang from its arrival. */
  Duration bound() {
    var deadlines = Duration.ofSeconds(MAX_DEADLINE_SECONDS * (failOver ? 2L : 1L));
    return deadlines.plus(SLACK);
  }

  public Outcome run() {
    var env = world.env();
    var gangAt = Duration.ofSeconds(15 + random.nextInt(20));
    long start = env.nanoTime();
    long streamEnd = start + gangAt.plus(STREAM).toNanos();
    arrive(streamEnd);
    env.schedule(gangAt, this::gangArrives);
    env.schedule(Duration.ofSeconds(1), this::sweep);
    try {
      while (env.runNext()) {
        var bad = promises.check();
        if (arrived >= 0) {
          long waited = env.nanoTime() - arrived;
          if (placed()) {
            return new Outcome.Placed(
                seed, Duration.ofNanos(waited), busySamples == 0 ? 0 : busySum / busySamples, jobs);
          }
          if (waited > bound().toNanos() && bad.isEmpty()) {
            return new Outcome.Starved(
                seed,
                Duration.ofNanos(waited),
                busySamples == 0 ? 0 : busySum / busySamples,
                jobs,
                "HOL: gang "
                    + GANG
                    + " ("
                    + members
                    + " × "
                    + GPUS
                    + " GPUs) not placed "
                    + Duration.ofNanos(waited).toSeconds()
                    + " s after it arrived (bound "
                    + bound().toSeconds()
                    + " s: the longest deadline it waits on"
                    + (failOver ? ", twice for a fail-over," : "")
                    + " plus slack); "
                    + jobs
                    + " small jobs arrived meanwhile, "
                    + allocated()
                    + " of "
                    + NODES * GPUS
                    + " GPUs allocated now");
          }
        }
        if (!bad.isEmpty()) {
          return new Outcome.Violated(seed, bad, List.copyOf(events));
        }
      }
      return new Outcome.Violated(seed, List.of("the world stopped"), List.copyOf(events));
    } catch (RuntimeException e) {
      var trace = new ArrayList<String>();
      trace.add("crash: " + e);
      for (var f : e.getStackTrace()) {
        if (trace.size() > 8) {
          break;
        }
        trace.add("  at " + f);
      }
      return new Outcome.Violated(seed, trace, List.copyOf(events));
    }
  }

  private void event(String what) {
    long s = Duration.between(DeterministicEnv.DEFAULT_START, world.env().now()).toSeconds();
    events.addLast("[t=" + s + "s] " + what);
    if (events.size() > EVENTS_KEPT) {
      events.removeFirst();
    }
  }

  /** A small job arrives, and the next one is scheduled, until the stream ends. */
  private void arrive(long streamEnd) {
    var env = world.env();
    if (env.nanoTime() >= streamEnd) {
      return;
    }
    int deadline = 10 + random.nextInt(MAX_DEADLINE_SECONDS - 9);
    var command = random.nextBoolean() ? "done" : "train";
    var name = "s-" + jobs++;
    SeedRun.tolerant(() -> world.api().create(smallJob(name, command, deadline)));
    event("job " + name + " (" + command + ", deadline " + deadline + " s) arrives");
    env.schedule(Duration.ofMillis(1000 + random.nextInt(1001)), () -> arrive(streamEnd));
  }

  private void gangArrives() {
    SeedRun.tolerant(() -> world.api().create(gang(members)));
    arrived = world.env().nanoTime();
    event("gang " + GANG + " (" + members + " × " + GPUS + " GPUs) arrives");
    if (failOver) {
      world
          .env()
          .schedule(
              Duration.ofSeconds(5 + random.nextInt(20)),
              () -> {
                event("leader fails over while the gang waits");
                world.failOverLeader();
              });
    }
  }

  /**
   * Each second: a user deletes the small jobs that are over (every task finished), and the GPUs
   * allocated are sampled while the gang waits.
   */
  private void sweep() {
    var finished = new java.util.TreeMap<String, Boolean>();
    for (var t : world.view().tasks()) {
      var w = t.metadata().labels().get(Labels.WORKLOAD);
      if (w != null && w.startsWith("s-")) {
        finished.merge(w, t.status().phase().isFinished(), Boolean::logicalAnd);
      }
    }
    finished.forEach(
        (w, over) -> {
          if (over) {
            SeedRun.tolerant(() -> world.api().delete(Kinds.WORKLOAD, w));
          }
        });
    if (arrived >= 0 && !placed()) {
      busySum += allocated() / (double) (NODES * GPUS);
      busySamples++;
    }
    world.env().schedule(Duration.ofSeconds(1), this::sweep);
  }

  /** Whether every member of the gang holds its GPUs. */
  private boolean placed() {
    return world.view().claims().stream()
            .filter(c -> c.metadata().name().startsWith(GANG + "-"))
            .filter(c -> c.status().allocation().isPresent())
            .count()
        >= members;
  }

  private int allocated() {
    return world.view().claims().stream()
        .flatMap(c -> c.status().allocation().stream())
        .mapToInt(a -> a.devices().size())
        .sum();
  }

  private static ClaimTemplate gpus(int n) {
    return new ClaimTemplate(
        "gpu",
        new ResourceClaimSpec(
            List.of(new DeviceRequest("gpu", "gpu", n, List.of())), Optional.empty()));
  }

  static Workload smallJob(String name, String command, int deadlineSeconds) {
    var template =
        new TaskTemplate(List.of(command), Map.of(), "exec", Optional.empty(), List.of(), Map.of())
            .withActiveDeadlineSeconds(deadlineSeconds);
    var group = new WorkerGroup("w", 1, template, List.of(gpus(1)), RestartPolicy.Never);
    return new Workload(
        ObjectMeta.named(name),
        new WorkloadSpec(List.of(group), Optional.empty()),
        WorkloadStatus.EMPTY);
  }

  static Workload gang(int members) {
    var template =
        new TaskTemplate(List.of("train"), Map.of(), "exec", Optional.empty(), List.of(), Map.of());
    var group =
        new WorkerGroup("workers", members, template, List.of(gpus(GPUS)), RestartPolicy.Never)
            .withGang(
                new GangSpec(
                    Optional.empty(), MemberFailurePolicy.RestartGang, GangTopology.ANYWHERE));
    return new Workload(
        ObjectMeta.named(GANG),
        new WorkloadSpec(List.of(group), Optional.empty()),
        WorkloadStatus.EMPTY);
  }
}
