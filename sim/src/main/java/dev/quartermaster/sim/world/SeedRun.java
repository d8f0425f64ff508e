package dev.quartermaster.sim.world;

import dev.quartermaster.api.claim.DeviceRequest;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.claim.ResourceClaimSpec;
import dev.quartermaster.api.claim.ResourceClaimStatus;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.volume.Volume;
import dev.quartermaster.api.volume.VolumeSpec;
import dev.quartermaster.api.volume.VolumeStatus;
import dev.quartermaster.api.volume.VolumeUse;
import dev.quartermaster.api.workload.ClaimTemplate;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskPhase;
import dev.quartermaster.api.workload.TaskSpec;
import dev.quartermaster.api.workload.TaskStatus;
import dev.quartermaster.api.workload.TaskTemplate;
import dev.quartermaster.api.workload.VolumeClaimTemplate;
import dev.quartermaster.api.workload.VolumeRetention;
import dev.quartermaster.api.workload.WorkerGroup;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.api.workload.WorkloadSpec;
import dev.quartermaster.api.workload.WorkloadStatus;
import dev.quartermaster.control.cluster.Labels;
import dev.quartermaster.core.env.DeterministicEnv;
import dev.quartermaster.sim.csi.SimStorage;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * One seed of the whole-cluster simulation: 3 nodes × 4 GPUs in two NVLink cliques ({@link
 * Topology}), a workload of 1-GPU workers (each slot with its own single-writer volume), a
 * stand-alone claim with its task (reading a shared volume), two or three gangs competing for the
 * rest and more ({@link Gangs}), and a batch job that finishes ({@link #batch}); {@link Chaos}
 * draws faults and operator actions from the seed for the first {@code steps} steps (a step is one
 * event of the world), every promise is checked after every step; then the faults stop, everything
 * heals, and every workload must converge (L1) within {@link #CONVERGE_BOUND} of virtual time: each
 * wanted task runs, or waits for devices that are not free where it may go (the fleet cannot hold
 * every job at once), and a gang that is not placed does not fit.
 */
public final class SeedRun {
  public static final Duration CONVERGE_BOUND = Duration.ofMinutes(20);

  /**
   * The steps of faults a seed runs by default: making every job (the gangs' ones too) takes about
   * 2,500 of them, so 3,000 leave about 40 s of virtual time for the faults to strike a cluster
   * that runs, as 2,000 did before the gangs.
   */
  public static final int STEPS = 3000;

  static final String WORKLOAD = "train";
  static final String GROUP = "w";
  static final String SOLO = "solo";
  static final String SHARED = "dataset";
  private static final int EVENTS_KEPT = 40;

  /** How a seed ended. */
  public sealed interface Outcome {
    long seed();

    /**
     * @param evictions how many workloads were evicted (preempted or reclaimed), each judged by Q2
     */
    record Passed(long seed, int steps, int faults, Duration virtualTime, long evictions)
        implements Outcome {}

    record Violated(long seed, int step, List<String> violations, List<String> lastEvents)
        implements Outcome {}
  }

  private final long seed;
  private final int steps;
  private final WholeCluster world;
  private final Promises promises;
  private final Predicate<String> judged;
  private final Deque<String> events = new ArrayDeque<>();
  private List<Gangs.Job> gangs = List.of();
  private int step;
  private final int migNodes;
  private final int shareNodes;

  /** Time-sliced jobs a run with sharing nodes applies over its fault window. */
  static final int TURN_JOBS = 20;

  /** MPS jobs per run with sharing nodes ({@link MpsJobs}). */
  static final int SHARE_JOBS = 20;

  /** Slice jobs a run with MIG nodes applies over its fault window. */
  static final int SLICE_JOBS = 10;

  private java.util.Optional<WorkloadWatch> watch = java.util.Optional.empty();
  private java.util.function.Consumer<String> trace = line -> {};

  public SeedRun(long seed, int steps) {
    this(seed, steps, Variant.REAL);
  }

  /** A run of {@code variant} (for naive variants). */
  public SeedRun(long seed, int steps, Variant variant) {
    this(seed, steps, variant, violation -> true);
  }

  /**
   * A run of {@code variant} that ends only on the violations {@code judged} accepts (by their
   * lines, which start with the promise's name): to show that one promise sees a naive variant on
   * its own, where another would stop the run first.
   */
  public SeedRun(long seed, int steps, Variant variant, Predicate<String> judged) {
    this(seed, steps, variant, judged, 0);
  }

  /**
   * As above, with {@code migNodes} more nodes whose GPUs are in Dynamic MIG mode, running slice
   * jobs ({@link MigJobs}) beside the rest; 0 is the run as the seed campaigns found it.
   */
  public SeedRun(long seed, int steps, Variant variant, Predicate<String> judged, int migNodes) {
    this(seed, steps, variant, judged, migNodes, 0);
  }

  /**
   * As above, with {@code shareNodes} more nodes, after the MIG ones, whose GPUs are time-sliced
   * and switched by an operator ({@link TimeSliceJobs}); 0 is the run as the seed campaigns found
   * it.
   */
  public SeedRun(
      long seed,
      int steps,
      Variant variant,
      Predicate<String> judged,
      int migNodes,
      int shareNodes) {
    this.seed = seed;
    this.steps = steps;
    this.judged = judged;
    this.migNodes = migNodes;
    this.shareNodes = shareNodes;
    this.world =
        new WholeCluster(seed, 3 + migNodes + shareNodes, 4, 0, migNodes, shareNodes, variant);
    for (int i = 1; i <= 3; i++) {
      world.labelNode("node-" + i, Topology.labels(i));
    }
    // Half the seeds run on storage that keeps a node's mounts on detach (hostpath), where a fenced
    // writer's target outlives its claim until its agent comes back and unpublishes it.
    world
        .storage()
        .detachEffect(
            seed % 2 == 0
                ? SimStorage.DetachEffect.KeepsNodeMounts
                : SimStorage.DetachEffect.DropsNodeMounts);
    this.promises = new Promises(world);
  }

  /**
   * This run printing every change to workload {@code name}'s tasks and admission to {@code out}.
   */
  public SeedRun watching(String name, java.util.function.Consumer<String> out) {
    watch = java.util.Optional.of(new WorkloadWatch(name, out));
    return this;
  }

  /**
   * This run writing a line to {@code out} for each step (its number, virtual time and pending
   * tasks) and for each committed write (revision, key, a hash of the value): two runs of one seed
   * must write the same lines, and the first line where they part shows where a replay diverged.
   */
  public SeedRun tracing(java.util.function.Consumer<String> out) {
    trace = out;
    world
        .store()
        .onCommit(
            (revision, changes) -> {
              for (var c : changes) {
                out.accept(
                    "  r"
                        + revision
                        + " "
                        + c.type()
                        + " "
                        + c.kv().key()
                        + " #"
                        + Integer.toHexString(java.util.Arrays.hashCode(c.kv().value())));
              }
            });
    return this;
  }

  private void look() {
    trace.accept(
        "step " + step + " t=" + world.env().nanoTime() + " pending=" + world.env().pendingTasks());
    watch.ifPresent(
        w -> w.look(world, String.format("[step %d, t=%.3fs]", step, virtualMillis() / 1000.0)));
  }

  private long virtualMillis() {
    return Duration.between(DeterministicEnv.DEFAULT_START, world.env().now()).toMillis();
  }

  public static Outcome run(long seed, int steps) {
    return new SeedRun(seed, steps).run();
  }

  void event(String what) {
    events.addLast(String.format("[step %d, t=%ss] %s", step, virtualSeconds(), what));
    if (events.size() > EVENTS_KEPT) {
      events.removeFirst();
    }
  }

  private long virtualSeconds() {
    return Duration.between(DeterministicEnv.DEFAULT_START, world.env().now()).toSeconds();
  }

  long seed() {
    return seed;
  }

  WholeCluster world() {
    return world;
  }

  Promises promises() {
    return promises;
  }

  /** The gang jobs of this seed. */
  List<Gangs.Job> gangs() {
    return gangs;
  }

  /** The violations after a step that end the run. */
  private List<String> violations(Chaos chaos) {
    var bad = chaos.drainViolations();
    bad.addAll(promises.check());
    bad.removeIf(judged.negate());
    return bad;
  }

  /** {@code w} is applied now (again a little later if the API fails it). */
  private void arrive(Workload w) {
    try {
      world.api().create(w);
      boolean urgent = w.spec().priority().isPresent();
      event("operator: apply " + (urgent ? "urgent " : "") + "workload " + w.metadata().name());
      if (urgent && world.env().random().nextBoolean()) {
        // Fail-over while the admission controller chooses victims, or while they stop.
        world
            .env()
            .schedule(
                Duration.ofMillis(world.env().random().nextInt(2_000)),
                () -> {
                  event("leader fails over during the urgent job's preemption");
                  world.failOverLeader();
                });
      }
    } catch (dev.quartermaster.api.error.ApiException e) {
      if (!e.is(dev.quartermaster.api.error.ApiError.Reason.AlreadyExists)) {
        world.env().schedule(Duration.ofSeconds(1), () -> arrive(w));
      }
    }
  }

  public Outcome run() {
    var env = world.env();
    try {
      world.api().create(workload(2 + env.random().nextInt(5)));
      world.api().create(soloClaim());
      world.api().create(sharedVolume());
      world.api().create(soloTask());
      Queues.create(world.api(), env.random());
      gangs = Gangs.draw(env.random());
      for (int i = 0; i < gangs.size(); i++) {
        var w = Queues.assign(gangs.get(i).workload(), i, env.random());
        if (w.spec().priority().isPresent()) {
          // The urgent job comes once the others hold the quota, so that it preempts or reclaims.
          var at = Duration.ofSeconds(5 + env.random().nextInt(50));
          env.schedule(at, () -> arrive(w));
        } else {
          world.api().create(w);
        }
      }
      // A batch job that finishes: its devices must go back with its quota (HELD); in half the
      // seeds it is deleted a little after, by its TTL.
      var batch = Queues.assign(batch(env.random().nextBoolean()), 1, env.random());
      env.schedule(Duration.ofSeconds(1 + env.random().nextInt(20)), () -> arrive(batch));
      if (env.random().nextInt(3) == 0) {
        // Fail-over while the first admissions are decided and written.
        env.schedule(
            Duration.ofMillis(env.random().nextInt(500)),
            () -> {
              event("leader fails over during the first admissions");
              world.failOverLeader();
            });
      }
      var chaos = new Chaos(this, env.random());
      chaos.schedule();
      if (migNodes > 0) {
        // Drawn apart, so that the rest of the seed's draws stay as they are without MIG.
        var slices = new java.util.SplittableRandom(seed * 0x9E3779B97F4A7C15L + 46);
        MigJobs.start(this, slices, SLICE_JOBS);
        chaos.migCrashes(slices);
        SliceAsks.start(this, slices);
      }
      if (shareNodes > 0) {
        // Drawn apart too: a seed's other draws stay as they are without sharing nodes.
        var turns = new java.util.SplittableRandom(seed * 0x9E3779B97F4A7C15L + 47);
        TimeSliceJobs.start(this, turns, TURN_JOBS);
        // MPS shares and their daemons' crashes, drawn apart again.
        var shares = new java.util.SplittableRandom(seed * 0x9E3779B97F4A7C15L + 48);
        MpsJobs.start(this, shares, SHARE_JOBS);
        chaos.mpsDaemonCrashes(shares);
      }
      for (step = 1; step <= steps; step++) {
        if (!env.runNext()) {
          break;
        }
        look();
        var bad = violations(chaos);
        if (!bad.isEmpty()) {
          return new Outcome.Violated(seed, step, bad, List.copyOf(events));
        }
      }
      chaos.stopAndHeal();
      promises.gangs().faultsStopped();
      event("faults stopped; everything healed");
      long deadline = env.nanoTime() + CONVERGE_BOUND.toNanos();
      while (!converged()) {
        if (env.nanoTime() > deadline || !env.runNext()) {
          return new Outcome.Violated(
              seed,
              step,
              List.of(
                  "L1: not converged "
                      + CONVERGE_BOUND.toMinutes()
                      + " min after the faults stopped: "
                      + notConverged()),
              List.copyOf(events));
        }
        step++;
        look();
        var bad = violations(chaos);
        if (!bad.isEmpty()) {
          return new Outcome.Violated(seed, step, bad, List.copyOf(events));
        }
      }
      return new Outcome.Passed(
          seed,
          step,
          chaos.faults(),
          Duration.ofSeconds(virtualSeconds()),
          promises.queues().evictions());
    } catch (RuntimeException e) {
      var trace = new ArrayList<String>();
      trace.add("crash: " + e);
      for (var f : e.getStackTrace()) {
        if (trace.size() > 8) {
          break;
        }
        trace.add("  at " + f);
      }
      return new Outcome.Violated(seed, step, trace, List.copyOf(events));
    }
  }

  private boolean converged() {
    return notConverged().isEmpty();
  }

  /** What keeps the cluster from its desired state; empty when every workload and task is there. */
  String notConverged() {
    var w = world.api().get(Kinds.WORKLOAD, WORKLOAD);
    var tasks = world.view().tasks();
    var capacity = Capacity.of(world.view(), promises.gangs().partialHoldings());
    if (w.isPresent()) {
      int want = w.get().spec().groups().getFirst().replicas();
      var group =
          tasks.stream()
              .filter(t -> WORKLOAD.equals(t.metadata().labels().get(Labels.WORKLOAD)))
              .toList();
      long running =
          group.stream()
              .filter(t -> t.status().phase() == TaskPhase.Running && !t.metadata().isDeleting())
              .count();
      long waiting = group.stream().filter(t -> waitsForDevices(t, capacity)).count();
      if (group.size() != want || running + waiting != want) {
        return "workload "
            + WORKLOAD
            + " wants "
            + want
            + " running, has "
            + group.size()
            + " task(s), "
            + running
            + " running: "
            + group.stream()
                .map(
                    t ->
                        t.metadata().name()
                            + "="
                            + t.status().phase()
                            + "/"
                            + t.status().reason()
                            + (t.metadata().isDeleting() ? "(deleting)" : ""))
                .toList()
            + "; "
            + group.stream()
                .filter(t -> t.status().phase() != TaskPhase.Running)
                .map(t -> t.status().message() + "; " + claimsOf(t))
                .toList();
      }
    }
    // A leftover publication (a fenced writer's, on storage that keeps node mounts) is unpublished
    // by
    // its node's agent, or the volume can never be unstaged there and handed over.
    var leftovers = world.orphanPublications();
    if (!leftovers.isEmpty()) {
      return "publications no claim names are left on nodes whose agents run: " + leftovers;
    }
    // A stand-alone task is never replaced: once it has ended (lost with its node, say), that is
    // final.
    var solo =
        world
            .api()
            .get(Kinds.TASK, SOLO)
            .filter(t -> !t.metadata().isDeleting() && !t.status().phase().isFinished());
    if (solo.isPresent()
        && solo.get().status().phase() != TaskPhase.Running
        && !waitsForDevices(solo.get(), capacity)) {
      return "task "
          + SOLO
          + " (node "
          + solo.get().spec().node().orElse("none")
          + ") is "
          + solo.get().status().phase()
          + ": "
          + solo.get().status().message()
          + "; "
          + claimsOf(solo.get());
    }
    var released = promises.releases().notConverged();
    if (!released.isEmpty()) {
      return released;
    }
    var queued = promises.queues().notConverged();
    if (!queued.isEmpty()) {
      return queued;
    }
    var starting = promises.starts().notConverged();
    if (!starting.isEmpty()) {
      return starting;
    }
    return promises.gangs().notConverged();
  }

  /**
   * Whether task {@code t} (no gang's member) waits for devices that are not free where it may go:
   * none of its claims is allocated, and no schedulable node (its pinned one, if pinned: a claim
   * deleted and made again under a scheduled task can only go to its node) has the GPUs they ask
   * for free.
   */
  private boolean waitsForDevices(Task t, Capacity capacity) {
    var phase = t.status().phase();
    if (t.metadata().isDeleting() || phase == TaskPhase.Running || phase.isFinished()) {
      return false;
    }
    int gpus = 0;
    for (var name : t.spec().claims()) {
      var c = world.view().claim(name);
      if (c.isEmpty()
          || c.get().metadata().isDeleting()
          || c.get().status().allocation().isPresent()) {
        return false;
      }
      gpus += c.get().spec().requests().stream().mapToInt(r -> r.count()).sum();
    }
    var pin = t.spec().node();
    return pin.isPresent()
        ? capacity.free().getOrDefault(pin.get(), 0) < gpus
        : !capacity.fits(1, gpus, Optional.empty(), Optional.empty());
  }

  /** Where {@code t}'s claims stand, for a message about why it does not run. */
  private String claimsOf(Task t) {
    return t.metadata().name()
        + "'s claims: "
        + t.spec().claims().stream()
            .map(
                name ->
                    world.view().claims().stream()
                        .filter(c -> c.metadata().name().equals(name))
                        .findFirst()
                        .map(
                            c ->
                                name
                                    + " (uid "
                                    + c.metadata().uid()
                                    + (c.metadata().isDeleting() ? ", deleting" : "")
                                    + ", allocation "
                                    + c.status()
                                        .allocation()
                                        .map(
                                            a ->
                                                a.node()
                                                    + "/"
                                                    + a.devices().stream()
                                                        .map(d -> d.device())
                                                        .toList())
                                        .orElse("none")
                                    + ", prepare "
                                    + c.status().prepare()
                                    + ", "
                                    + c.status().conditions().stream()
                                        .map(x -> x.type() + "=" + x.status() + ": " + x.message())
                                        .toList()
                                    + ")")
                        .orElse(name + " (none)"))
            .toList();
  }

  static Workload workload(int replicas) {
    var template =
        new TaskTemplate(List.of("train"), Map.of(), "exec", Optional.empty(), List.of(), Map.of());
    var claim =
        new ClaimTemplate(
            "gpu",
            new ResourceClaimSpec(
                List.of(new DeviceRequest("gpu", "gpu", 1, List.of())), Optional.empty()));
    // Each worker slot writes its own volume: a replaced worker's volume changes hands between
    // nodes.
    var scratch =
        new VolumeClaimTemplate(
            "scratch",
            new VolumeSpec(
                WholeCluster.PLUGIN, 1 << 20, VolumeSpec.AccessMode.SingleNodeWriter, Map.of()));
    var group =
        new WorkerGroup(
            GROUP,
            replicas,
            template,
            List.of(claim),
            null,
            List.of(scratch),
            VolumeRetention.Delete);
    return new Workload(
        ObjectMeta.named(WORKLOAD),
        new WorkloadSpec(List.of(group), Optional.empty()),
        WorkloadStatus.EMPTY);
  }

  /**
   * Two workers of one GPU each whose command ends by itself ({@code done}: exit 0 after {@link
   * dev.quartermaster.sim.node.SimProcesses#RUN_TIME}): a job that is over once both succeeded.
   */
  static Workload batch(boolean withTtl) {
    var template =
        new TaskTemplate(List.of("done"), Map.of(), "exec", Optional.empty(), List.of(), Map.of());
    var claim =
        new ClaimTemplate(
            "gpu",
            new ResourceClaimSpec(
                List.of(new DeviceRequest("gpu", "gpu", 1, List.of())), Optional.empty()));
    var group = new WorkerGroup(GROUP, 2, template, List.of(claim), null);
    var spec = new WorkloadSpec(List.of(group), Optional.empty());
    return new Workload(
        ObjectMeta.named(BATCH),
        withTtl ? spec.withTtlSecondsAfterFinished(BATCH_TTL_SECONDS) : spec,
        WorkloadStatus.EMPTY);
  }

  static final String BATCH = "batch";

  /** How long the batch job is kept once over, in the seeds that give it a TTL. */
  static final int BATCH_TTL_SECONDS = 20;

  static ResourceClaim soloClaim() {
    return new ResourceClaim(
        ObjectMeta.named(SOLO + "-gpu"),
        new ResourceClaimSpec(
            List.of(new DeviceRequest("gpu", "gpu", 1, List.of())), Optional.empty()),
        ResourceClaimStatus.EMPTY);
  }

  static Task soloTask() {
    return new Task(
        ObjectMeta.named(SOLO),
        new TaskSpec(
            Optional.empty(),
            List.of("serve"),
            Map.of(),
            List.of(SOLO + "-gpu"),
            List.of(VolumeUse.reader(SHARED)),
            "exec",
            Optional.empty()),
        TaskStatus.EMPTY);
  }

  /** A dataset every node may read, which the stand-alone task reads. */
  static Volume sharedVolume() {
    return new Volume(
        ObjectMeta.named(SHARED),
        new VolumeSpec(
            WholeCluster.PLUGIN, 1 << 20, VolumeSpec.AccessMode.MultiNodeReaderOnly, Map.of()),
        VolumeStatus.EMPTY);
  }

  /**
   * Runs {@code action}, ignoring what an operator would see as "try again" (conflict, gone,
   * taken).
   */
  static void tolerant(Runnable action) {
    try {
      action.run();
    } catch (ApiException e) {
      // an operator's command that lost a race; the next one may win
    }
  }
}
