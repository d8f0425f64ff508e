package dev.quartermaster.sim.world;

import dev.quartermaster.core.env.OutsideEnv;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs the whole-cluster simulation over many seeds: {@code ./qm sim --seeds N --steps M [--from
 * S]} (or {@code --seed S} to replay one). Prints progress, every violation with its seed and the
 * last events before it, and a summary with wall time and steps per second. {@code ./qm sim --day}
 * runs one seed of a fleet's day instead ({@link FleetDay}, {@link DayCampaign}).
 */
@OutsideEnv(
    "the campaign runner reports how long the seeds took on the real clock; the seeds themselves run on virtual time")
public final class Campaign {
  private Campaign() {}

  /**
   * MIG nodes in each seed unless told otherwise ({@code --mig K}): none, so a seed's world is the
   * one it was before MIG (and a seed found before replays as it did); a MIG node about doubles a
   * seed's cost.
   */
  public static final int MIG_NODES = 0;

  private static final String USAGE =
      """
      usage: qm sim [--seeds N] [--steps M] [--from S] [--mig K] [--share K] [--per-seed FILE]
             qm sim --seed S [--steps M] [--mig K] [--share K] [--watch WORKLOAD] [--trace FILE]
             qm sim --stream [--no-backfill] [--seeds N] [--from S]
             qm sim --day [--nodes N] [--tasks T] [--seed S] [--hours H] [--check-every K]
                    [--budget MINUTES]
        --seeds N        run seeds S..S+N-1 (default 100), printing progress and every violation
        --steps M        steps per seed before the faults stop (default %d)
        --from S         the first seed (default 1)
        --mig K          K more nodes, each with GPUs in Dynamic MIG mode, running slice jobs and
                         agent crashes between a MIG create and its record (default %d; 0: none)
        --share K        K more nodes with time-sliced GPUs, running jobs on replicas, and an
                         operator switching one GPU of each between time-sliced and whole
        --per-seed FILE  write a line per seed (seed, steps, passed|violated) to compare two trees
        --seed S         replay one seed, with the events that led to a violation
        --watch W        print every change to workload W's tasks, claims and admission
        --trace FILE     one line per step and per committed write (the same file in any JVM)
        --stream         a large gang behind a stream of small jobs (HOL, issue 44)
        --day            one seed of a fleet's day (issue 50): N nodes of 8 GPUs joining and
                         failing, jobs of T tasks in all; prints steps/s and the violations
        --nodes N        the day's fleet (default %d)
        --tasks T        the tasks the day's jobs ask for (default %d)
        --hours H        the virtual time the day covers (default 24)
        --check-every K  check every promise once every K steps (default: nodes / 5, at least 1)
        --budget M       stop the day after M minutes of wall time and say how far it got
      """
          .formatted(SeedRun.STEPS, MIG_NODES, FleetDay.NODES, FleetDay.TASKS);

  /** The result of a campaign. */
  public record Summary(
      int seeds, long steps, List<SeedRun.Outcome.Violated> failures, long millis, long evictions) {
    public double stepsPerSecond() {
      return millis == 0 ? 0 : steps * 1000.0 / millis;
    }

    public String line() {
      return String.format(
          "%d seeds, %d steps, %d with violations, %.1f s, %.0f steps/s, %d evictions",
          seeds, steps, failures.size(), millis / 1000.0, stepsPerSecond(), evictions);
    }
  }

  /**
   * Silences the components' own logs (java.util.logging, which core's System.Logger writes to): a
   * campaign logs millions of expected retries, and a violation carries its own last events.
   */
  public static void quiet() {
    java.util.logging.Logger.getLogger("").setLevel(java.util.logging.Level.OFF);
    for (var h : java.util.logging.Logger.getLogger("").getHandlers()) {
      h.setLevel(java.util.logging.Level.OFF);
    }
  }

  /**
   * Runs seeds {@code from .. from+count-1}, each with {@code migNodes} MIG nodes; {@code progress}
   * gets a line every {@code every} seeds.
   */
  public static Summary run(
      long from,
      int count,
      int steps,
      int migNodes,
      int every,
      java.util.function.Consumer<String> progress) {
    return run(from, count, steps, migNodes, every, progress, line -> {});
  }

  /**
   * As above; {@code perSeed} gets a line per seed ({@code seed steps passed|violated}), so two
   * trees can be compared seed by seed (a change meant to keep behaviour keeps every seed's steps).
   */
  public static Summary run(
      long from,
      int count,
      int steps,
      int migNodes,
      int every,
      java.util.function.Consumer<String> progress,
      java.util.function.Consumer<String> perSeed) {
    return run(from, count, steps, migNodes, 0, every, progress, perSeed);
  }

  /** As above, with {@code shareNodes} nodes of time-sliced GPUs in each seed too. */
  public static Summary run(
      long from,
      int count,
      int steps,
      int migNodes,
      int shareNodes,
      int every,
      java.util.function.Consumer<String> progress,
      java.util.function.Consumer<String> perSeed) {
    var failures = new ArrayList<SeedRun.Outcome.Violated>();
    long total = 0;
    long evictions = 0;
    long start = System.nanoTime();
    for (long seed = from; seed < from + count; seed++) {
      var outcome =
          new SeedRun(seed, steps, Variant.REAL, line -> true, migNodes, shareNodes).run();
      switch (outcome) {
        case SeedRun.Outcome.Passed p -> {
          total += p.steps();
          evictions += p.evictions();
          perSeed.accept(seed + " " + p.steps() + " passed");
        }
        case SeedRun.Outcome.Violated v -> {
          total += v.step();
          failures.add(v);
          progress.accept(describe(v));
          perSeed.accept(seed + " " + v.step() + " violated");
        }
      }
      long done = seed - from + 1;
      if (every > 0 && done % every == 0) {
        progress.accept(
            String.format(
                "  %d/%d seeds, %d violated, %.0f s",
                done, count, failures.size(), (System.nanoTime() - start) / 1e9));
      }
    }
    return new Summary(count, total, failures, (System.nanoTime() - start) / 1_000_000, evictions);
  }

  public static String describe(SeedRun.Outcome.Violated v) {
    var b =
        new StringBuilder("seed ")
            .append(v.seed())
            .append(" violated at step ")
            .append(v.step())
            .append(" (replay: ./qm sim --seed ")
            .append(v.seed())
            .append("):\n");
    v.violations().forEach(x -> b.append("  ").append(x).append('\n'));
    b.append("  last events:\n");
    v.lastEvents().forEach(e -> b.append("    ").append(e).append('\n'));
    return b.toString();
  }

  public static void main(String[] args) {
    long from = 1;
    int seeds = 100;
    int steps = SeedRun.STEPS;
    int migNodes = MIG_NODES;
    int shareNodes = 0;
    boolean stream = false;
    boolean day = false;
    int nodes = FleetDay.NODES;
    int tasks = FleetDay.TASKS;
    int hours = 24;
    int checkEvery = 0;
    int budget = 0;
    var backfill = dev.quartermaster.control.allocator.Backfill.RESERVE;
    String watch = null;
    java.nio.file.Path trace = null;
    java.nio.file.Path perSeed = null;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--stream" -> stream = true;
        case "--day" -> day = true;
        case "--nodes" -> nodes = Integer.parseInt(args[++i]);
        case "--tasks" -> tasks = Integer.parseInt(args[++i]);
        case "--hours" -> hours = Integer.parseInt(args[++i]);
        case "--check-every" -> checkEvery = Integer.parseInt(args[++i]);
        case "--budget" -> budget = Integer.parseInt(args[++i]);
        case "--no-backfill" -> backfill = dev.quartermaster.control.allocator.Backfill.OFF;
        case "--seeds" -> seeds = Integer.parseInt(args[++i]);
        case "--steps" -> steps = Integer.parseInt(args[++i]);
        case "--mig", "--mig-nodes" -> migNodes = Integer.parseInt(args[++i]);
        case "--share", "--share-nodes" -> shareNodes = Integer.parseInt(args[++i]);
        case "--help", "-h" -> {
          System.out.println(USAGE);
          System.exit(0);
        }
        case "--from" -> from = Long.parseLong(args[++i]);
        case "--watch" -> watch = args[++i];
        case "--trace" -> trace = java.nio.file.Path.of(args[++i]);
        case "--per-seed" -> perSeed = java.nio.file.Path.of(args[++i]);
        case "--seed" -> {
          from = Long.parseLong(args[++i]);
          seeds = 1;
        }
        default -> {
          System.err.println("qm sim: unknown option " + args[i] + "\n" + USAGE);
          System.exit(2);
        }
      }
    }
    quiet();
    if (day) {
      System.exit(
          DayCampaign.run(
              from,
              nodes,
              tasks,
              java.time.Duration.ofHours(hours),
              checkEvery > 0 ? checkEvery : FleetDay.defaultCheckEvery(nodes),
              java.time.Duration.ofMinutes(budget),
              System.out::println));
    }
    if (stream) {
      System.exit(JobStream.campaign(from, seeds, backfill, System.out::println));
    }
    if (watch != null || trace != null) {
      var run = new SeedRun(from, steps, Variant.REAL, line -> true, migNodes, shareNodes);
      if (watch != null) {
        run.watching(watch, System.out::println);
      }
      java.io.PrintWriter traceOut = null;
      if (trace != null) {
        try {
          traceOut =
              new java.io.PrintWriter(
                  java.nio.file.Files.newBufferedWriter(
                      trace, java.nio.charset.StandardCharsets.UTF_8));
        } catch (java.io.IOException e) {
          System.err.println("qm sim: cannot write " + trace + ": " + e.getMessage());
          System.exit(2);
        }
        run.tracing(traceOut::println);
      }
      var outcome = run.run();
      if (traceOut != null) {
        traceOut.close();
      }
      if (outcome instanceof SeedRun.Outcome.Passed p) {
        System.out.println(
            "seed " + from + ": " + p.steps() + " steps, " + p.evictions() + " evictions");
      }
      System.out.println(
          outcome instanceof SeedRun.Outcome.Violated v ? describe(v) : "seed " + from + " passed");
      System.exit(outcome instanceof SeedRun.Outcome.Violated ? 1 : 0);
    }
    System.out.printf(
        "whole-cluster simulation: seeds %d..%d, %d steps each%s%n",
        from,
        from + seeds - 1,
        steps,
        (migNodes == 0 ? "" : ", " + migNodes + " MIG node(s) of H200s in Dynamic mode")
            + (shareNodes == 0 ? "" : ", " + shareNodes + " node(s) of time-sliced and MPS GPUs"));
    var lines = new ArrayList<String>();
    var summary =
        run(
            from,
            seeds,
            steps,
            migNodes,
            shareNodes,
            Math.max(1, seeds / 20),
            System.out::println,
            lines::add);
    if (perSeed != null) {
      try {
        java.nio.file.Files.write(perSeed, lines);
      } catch (java.io.IOException e) {
        System.err.println("qm sim: cannot write " + perSeed + ": " + e.getMessage());
        System.exit(2);
      }
    }
    System.out.println(summary.line());
    System.exit(summary.failures().isEmpty() ? 0 : 1);
  }
}
