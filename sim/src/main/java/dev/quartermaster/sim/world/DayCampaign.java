package dev.quartermaster.sim.world;

import dev.quartermaster.core.env.OutsideEnv;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * Runs one {@link FleetDay} for {@code ./qm sim --day}: a progress line about every 30 s of wall
 * time, and at the end the fleet, the tasks, the virtual time and steps covered, the wall time,
 * steps per second and the violations. A wall-clock budget, if given, stops the day between two
 * slices of steps; the report then says how far it got.
 */
@OutsideEnv(
    "the day's runner reports how long it took on the real clock, and may stop on it; the day itself"
        + " runs on virtual time")
final class DayCampaign {
  /** Steps between two looks at the wall clock. */
  private static final long SLICE = 2_000;

  private static final long PROGRESS_NANOS = Duration.ofSeconds(30).toNanos();

  private DayCampaign() {}

  /**
   * Runs the day and prints to {@code out}; {@code budget} zero runs it to its end. Returns the
   * exit status: 0 when no promise was broken.
   */
  static int run(
      long seed,
      int nodes,
      int tasks,
      Duration span,
      int checkEvery,
      Duration budget,
      Consumer<String> out) {
    out.accept(
        String.format(
            "fleet day: seed %d, %,d nodes of %d GPUs, %,d tasks over %s of virtual time; every"
                + " promise checked every %,d step(s)%s",
            seed,
            nodes,
            FleetDay.GPUS,
            tasks,
            hours(span),
            checkEvery,
            checkEvery == 1 ? "" : " (sampled: see FleetDay)"));
    var cpu = java.lang.management.ManagementFactory.getThreadMXBean();
    long start = System.nanoTime();
    long cpuStart = cpu.getCurrentThreadCpuTime();
    var day = new FleetDay(seed, nodes, tasks, span, checkEvery);
    long built = System.nanoTime();
    long lastProgress = built;
    boolean stopped = false;
    while (day.advance(SLICE)) {
      long now = System.nanoTime();
      if (now - lastProgress >= PROGRESS_NANOS) {
        lastProgress = now;
        out.accept("  " + progress(day.report(), now - built));
      }
      if (!budget.isZero() && now - start >= budget.toNanos()) {
        stopped = true;
        break;
      }
    }
    var r = day.finish();
    long wall = System.nanoTime() - start;
    long cpuNanos = cpu.getCurrentThreadCpuTime() - cpuStart;
    out.accept(summary(r, wall, built - start, cpuNanos, stopped, budget));
    r.violations().forEach(v -> out.accept("  " + v));
    return r.violations().isEmpty() ? 0 : 1;
  }

  private static String progress(DayReport r, long nanos) {
    return String.format(
        "t=%s: %,d/%,d nodes joined, %,d tasks created, %,d ran, %,d finished; %,d steps, %,d"
            + " checks, %.0f steps/s",
        hours(r.virtualTime()),
        r.joined(),
        r.nodes(),
        r.created(),
        r.ran(),
        r.finished(),
        r.steps(),
        r.checks(),
        r.steps() * 1e9 / Math.max(1, nanos));
  }

  /**
   * The summary; {@code cpuNanos} is the CPU time of the thread that ran the day (the world runs on
   * one), which a machine busy with other work does not inflate as it does the wall time.
   */
  static String summary(
      DayReport r,
      long wallNanos,
      long setupNanos,
      long cpuNanos,
      boolean stopped,
      Duration budget) {
    var b = new StringBuilder();
    b.append(
        r.over()
            ? "the day is over"
            : !r.violations().isEmpty()
                ? "the day ended on a violation"
                : stopped
                    ? "stopped at the wall-clock budget of " + budget.toMinutes() + " min"
                    : "stopped");
    b.append(
        String.format(
            " after %s of %s of virtual time%n", hours(r.virtualTime()), hours(r.span())));
    b.append(
        String.format(
            "  nodes:      %,d of %,d joined; %,d node failures%n",
            r.joined(), r.nodes(), r.faults()));
    b.append(
        String.format(
            "  tasks:      %,d asked for of %,d; %,d created, %,d ran, %,d finished%n",
            r.asked(), r.tasks(), r.created(), r.ran(), r.finished()));
    b.append(String.format("  virtual:    %s%n", hours(r.virtualTime())));
    b.append(
        String.format(
            "  steps:      %,d; promises checked %,d times (every %,d steps%s)%n",
            r.steps(), r.checks(), r.checkEvery(), r.checkEvery() == 1 ? "" : ", sampled"));
    double seconds = wallNanos / 1e9;
    b.append(
        String.format(
            "  wall:       %.1f s (%.1f s building the first nodes)%n", seconds, setupNanos / 1e9));
    b.append(
        String.format(
            "  steps/s:    %.0f%n", r.steps() / Math.max(1e-9, seconds - setupNanos / 1e9)));
    b.append(
        String.format(
            "  cpu:        %.1f s of the day's thread: %.0f steps per CPU second%n",
            cpuNanos / 1e9, r.steps() / Math.max(1e-9, cpuNanos / 1e9)));
    b.append(String.format("  violations: %d", r.violations().size()));
    return b.toString();
  }

  private static String hours(Duration d) {
    return String.format("%d:%02d:%02d", d.toHours(), d.toMinutesPart(), d.toSecondsPart());
  }
}
