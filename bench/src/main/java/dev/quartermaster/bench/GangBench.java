package dev.quartermaster.bench;

import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskPhase;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.control.allocator.Packing;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import java.util.function.IntFunction;
import java.util.function.Predicate;

/**
 * Issue 32's measures of gangs, through the real control plane (allocator, workload controller,
 * task controller, scheduler) over the real store, without agents: a task is placed when it is
 * Scheduled, its claims allocated and it pinned, which is what a gang decides. Each round runs on a
 * fresh store in this one JVM. (a) 1,000 gangs of 8 one-GPU members beside 1,000 workloads of 8
 * single one-GPU tasks on 1,000 nodes of 8 GPUs, alternating; (b) one gang of 1,000 8-GPU members
 * on the same fleet, warm; (c) fragmentation ({@link GangStream}).
 */
final class GangBench implements Bench.Benchmark {
  private static final int NODES = 1_000;
  private static final int GPUS = 8;
  private static final int WORKLOADS = 1_000;
  private static final int WORKERS = 8;
  private static final int TASKS = WORKLOADS * WORKERS;

  /**
   * Rounds of each shape in (a), alternating so that the JIT's warming favours neither: on 2 busy
   * cores one round's rate moves by more than the difference sought. {@code -Dqm.bench.gangRounds}.
   */
  private static final int ROUNDS = Integer.getInteger("qm.bench.gangRounds", 3);

  /** (b): one gang of this many members of {@link #GPUS} GPUs each. */
  private static final int BIG_GANG = NODES;

  /**
   * (b)'s uncounted rounds go on until the compilers took at most this share of one, as
   * EndToEndBench's warm-up does; then {@link #BIG_ROUNDS} counted ones.
   */
  private static final double SETTLED_JIT = 0.10;

  private static final int BIG_WARMUP_MAX = Integer.getInteger("qm.bench.gangWarmupMax", 8);
  private static final int BIG_ROUNDS = Integer.getInteger("qm.bench.gangBigRounds", 3);

  /** Issue 32: a gang of 1,000 members from apply to all placed. */
  private static final double TARGET_BIG_SECONDS = 2.0;

  private static final Predicate<Task> PLACED = t -> t.status().phase() == TaskPhase.Scheduled;

  /** The two shapes of (a): the same tasks, placed one by one or in gangs of 8. */
  private enum Shape {
    SINGLE("single tasks", name -> Workloads.oneGpuEach(name, WORKERS)),
    GANG("gang members", name -> Workloads.gang(name, WORKERS, 1));

    final String what;
    final Function<String, Workload> workload;

    Shape(String what, Function<String, Workload> workload) {
      this.what = what;
      this.workload = workload;
    }
  }

  /** Which of (a), (b), (c) to run: {@code -Dqm.bench.gangParts=b} runs (b) alone. */
  private static final String PARTS = System.getProperty("qm.bench.gangParts", "abc");

  @Override
  public void run(Path dir, double raw, Report report) throws Exception {
    if (PARTS.contains("a")) {
      placementRate(dir, raw, report);
    }
    if (PARTS.contains("b")) {
      bigGang(dir, raw, report);
    }
    if (PARTS.contains("c")) {
      new GangStream(NODES, GPUS).run(dir, report);
    }
  }

  /** (a). */
  private static void placementRate(Path dir, double raw, Report report) throws Exception {
    report.heading(
        "gangs (a): "
            + WORKLOADS
            + " workloads x "
            + WORKERS
            + " one-GPU workers over "
            + NODES
            + " nodes x "
            + GPUS
            + " GPUs, as gangs and as single tasks; control plane, no agents (placed = Scheduled)");
    report.text(
        "  each round: a fresh store, the controllers leading, then 32 writers apply the "
            + WORKLOADS
            + " workloads; timed to the last task Scheduled");
    for (var shape : Shape.values()) {
      // The first rounds of a JVM are the JIT's (44 % of the CPU in one): one of each, uncounted.
      var round = placeAll(dir.resolve("a-warm-" + shape.name().toLowerCase(Locale.ROOT)), shape);
      report.line(
          "  warm-up (uncounted), " + shape.what + " placed/s",
          String.format(Locale.ROOT, "%.0f (%s)", round.perSecond(), round.jit()));
    }
    var rates = new EnumMap<Shape, List<Double>>(Shape.class);
    var cpus = new EnumMap<Shape, List<Double>>(Shape.class);
    var lastRound = new EnumMap<Shape, Round>(Shape.class);
    for (int r = 1; r <= ROUNDS; r++) {
      // Alternating which goes first, so that neither always gets the warmer JVM.
      var order =
          r % 2 == 1 ? List.of(Shape.SINGLE, Shape.GANG) : List.of(Shape.GANG, Shape.SINGLE);
      for (var shape : order) {
        var round =
            placeAll(dir.resolve("a-" + shape.name().toLowerCase(Locale.ROOT) + "-" + r), shape);
        rates.computeIfAbsent(shape, s -> new ArrayList<>()).add(round.perSecond());
        cpus.computeIfAbsent(shape, s -> new ArrayList<>()).add(round.cpuMicrosPerTask());
        lastRound.put(shape, round);
        report.figure(
            "round " + r + ": " + shape.what + " placed/s" + round.incomplete(),
            round.perSecond(),
            "tasks/s",
            raw);
        report.line(
            "  CPU per placed task (whole process; " + cores() + " cores)",
            String.format(
                Locale.ROOT,
                "%.0f µs (%s); last task created %.2f s, last claim %.2f s, last placed %.2f s",
                round.cpuMicrosPerTask(),
                round.jit(),
                round.lastCreatedSeconds(),
                round.lastClaimSeconds(),
                round.seconds()));
      }
    }
    for (var shape : Shape.values()) {
      report.line(
          "over "
              + ROUNDS
              + " rounds, "
              + shape.what
              + ": placed/s median (min-max); CPU per task median (min-max)",
          String.format(
              Locale.ROOT,
              "%.0f (%.0f-%.0f); %.0f µs (%.0f-%.0f)",
              Stats.median(rates.get(shape)),
              Stats.min(rates.get(shape)),
              Stats.max(rates.get(shape)),
              Stats.median(cpus.get(shape)),
              Stats.min(cpus.get(shape)),
              Stats.max(cpus.get(shape))));
    }
    for (var shape : Shape.values()) {
      var last = lastRound.get(shape);
      report.line(
          "  " + shape.what + ", last round: store transactions per task", last.txPerTask());
      report.line("  " + shape.what + ", last round: object writes per task", last.writes());
      report.line(
          "  " + shape.what + ", last round: reconciles per task (wall time)", last.reconciles());
      report.line(
          "  " + shape.what + ", last round: allocator decisions lost to a conflict",
          Long.toString(last.conflicts()));
    }
    report.target(
        "gang members placed/s: the single tasks' median",
        Stats.median(rates.get(Shape.GANG)),
        Stats.median(rates.get(Shape.SINGLE)));
    report.line(
        "  CPU per task, gang member / single task (medians)",
        String.format(
            Locale.ROOT,
            "%.2fx",
            Stats.median(cpus.get(Shape.GANG)) / Stats.median(cpus.get(Shape.SINGLE))));
  }

  private static Round placeAll(Path dir, Shape shape) throws Exception {
    return round(dir, TASKS, i -> shape.workload.apply("job-" + i), WORKLOADS);
  }

  /** (b). */
  private static void bigGang(Path dir, double raw, Report report) throws Exception {
    report.heading(
        "gangs (b): one gang of "
            + BIG_GANG
            + " members x "
            + GPUS
            + " GPUs on "
            + NODES
            + " nodes x "
            + GPUS
            + " GPUs; control plane, no agents (placed = Scheduled)");
    double jit = 1;
    int warm = 0;
    while (warm < BIG_WARMUP_MAX && (warm < 1 || jit > SETTLED_JIT)) {
      warm++;
      var round = bigRound(dir.resolve("b-warm-" + warm));
      jit = round.jit().share();
      report.line(
          "  warm-up " + warm + " (uncounted): apply to all placed",
          String.format(Locale.ROOT, "%.2f s, %s", round.seconds(), round.jit()));
    }
    var seconds = new ArrayList<Double>();
    for (int r = 1; r <= BIG_ROUNDS; r++) {
      var round = bigRound(dir.resolve("b-" + r));
      seconds.add(round.seconds());
      report.line(
          "round " + r + ": apply to all " + BIG_GANG + " members placed" + round.incomplete(),
          String.format(
              Locale.ROOT,
              "%.2f s (last member created %.2f s, last claim created %.2f s); %s",
              round.seconds(),
              round.lastCreatedSeconds(),
              round.lastClaimSeconds(),
              round.jit()));
      report.line(
          "  CPU per member (whole process)",
          String.format(Locale.ROOT, "%.0f µs", round.cpuMicrosPerTask()));
      if (r == BIG_ROUNDS) {
        report.line("  store transactions per member", round.txPerTask());
        report.line("  object writes per member", round.writes());
        report.line("  reconciles per member (wall time)", round.reconciles());
        report.line(
            "  allocator decisions lost to a conflict (redone whole)",
            Long.toString(round.conflicts()));
      }
    }
    double median = Stats.median(seconds);
    report.line(
        "  apply to all placed, median of " + BIG_ROUNDS + " rounds (min-max)",
        String.format(
            Locale.ROOT,
            "%.2f s (%.2f-%.2f); target %.1f s or less: %s",
            median,
            Stats.min(seconds),
            Stats.max(seconds),
            TARGET_BIG_SECONDS,
            median <= TARGET_BIG_SECONDS ? "met" : "NOT met"));
  }

  private static Round bigRound(Path dir) throws Exception {
    return round(dir, BIG_GANG, i -> Workloads.gang("big", BIG_GANG, GPUS), 1);
  }

  /**
   * On a fresh fleet: {@code workloads} workloads applied by 32 writers ({@code make} gives the
   * i-th), timed from the first apply until all {@code tasks} of theirs are placed.
   */
  private static Round round(Path dir, int tasks, IntFunction<Workload> make, int workloads)
      throws Exception {
    try (var plane = FleetPlane.start(dir, NODES, GPUS, Packing.BEST_FIT)) {
      var api = plane.api();
      long from = api.list(Kinds.TASK).revision();
      try (var placed = Arrivals.watch(api, Kinds.TASK, from, tasks, PLACED);
          var created = Arrivals.watch(api, Kinds.TASK, from, tasks, t -> true);
          var claims = Arrivals.watch(api, Kinds.RESOURCE_CLAIM, from, tasks, c -> true);
          var writes = WriteCensus.watch(plane.cluster().store())) {
        var reconciles = ReconcileCensus.observe(plane.controllers().loops());
        long conflictsBefore = plane.controllers().allocator().conflicts();
        long start = Stopwatch.nanos();
        long cpuBefore = CpuTime.nanos();
        long jitBefore = CpuTime.jitMillis();
        ControlPlaneBench.parallel(workloads, i -> api.create(make.apply(i)));
        long left = placed.await(Duration.ofMinutes(5));
        double seconds = (Stopwatch.nanos() - start) / 1e9;
        var jit = CpuTime.jitSince(jitBefore, cpuBefore);
        long cpu = CpuTime.nanos() - cpuBefore;
        int done = (int) (tasks - left);
        writes.upTo(plane.cluster().store().currentRevision());
        return new Round(
            seconds,
            done,
            left,
            cpu / 1e3 / Math.max(1, done),
            jit,
            (created.lastNanos() - start) / 1e9,
            (claims.lastNanos() - start) / 1e9,
            String.format(Locale.ROOT, "%.2f", writes.transactions() / (double) tasks),
            writes.perKind(tasks),
            reconciles.perTask(tasks),
            plane.controllers().allocator().conflicts() - conflictsBefore);
      }
    }
  }

  /** One round's figures. */
  private record Round(
      double seconds,
      int placed,
      long left,
      double cpuMicrosPerTask,
      CpuTime.Jit jit,
      double lastCreatedSeconds,
      double lastClaimSeconds,
      String txPerTask,
      String writes,
      String reconciles,
      long conflicts) {
    double perSecond() {
      return placed / seconds;
    }

    String incomplete() {
      return left == 0 ? "" : " (INCOMPLETE: " + left + " not placed in 5 min)";
    }
  }

  private static int cores() {
    return Runtime.getRuntime().availableProcessors();
  }
}
