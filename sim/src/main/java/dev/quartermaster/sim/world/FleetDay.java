package dev.quartermaster.sim.world;

import dev.quartermaster.core.env.DeterministicEnv;
import dev.quartermaster.store.compaction.HistoryCompactor;
import dev.quartermaster.store.compaction.HistoryPlan;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * One seed of the whole-cluster simulation at fleet scale, over a virtual day (issue 50): {@code
 * nodes} machines of {@link #GPUS} GPUs, each with its real agent, join over the day and fail and
 * come back ({@link FleetChurn}), while a stream of jobs asks for {@code tasks} tasks in all
 * ({@link DayJobs}), under the two leader-elected control-plane replicas of every seed.
 *
 * <p>The promises of {@link Promises} are checked every {@code checkEvery} steps, not after every
 * step as a {@link SeedRun} checks them: each check looks over every node, ledger, process, claim
 * and task, so at 10,000 nodes a check after every step would cost thousands of times a step. A
 * sampled check sees the state at that step as a full one does, and a promise judged across steps
 * (PHASE, I4, G1, ...) judges it against the last check's; what holds between two checks and is
 * undone before the next can go unseen. The day's jobs use no volumes, whose GRANT promise judges a
 * new volume claim by its task now, which a sample could see finished since. TERM is judged at
 * every commit, whatever the sampling; I6 at every agent's restart.
 *
 * <p>A step is one event of the world, and a running node makes 3 to 5 a virtual second
 * (heartbeats, device rescans, its agent's ticks and watches; more in a larger fleet), so a whole
 * day is a quarter to half a million steps a node: hours of CPU at 1,000 nodes, more than a day of
 * it at 10,000. The caller drives it in slices ({@link #advance}) and may stop between them (a
 * wall-clock budget is the runner's, outside the world); {@link #report} says how far it got.
 */
public final class FleetDay {
  public static final int GPUS = 8;
  public static final int NODES = 10_000;
  public static final int TASKS = 100_000;
  public static final Duration DAY = Duration.ofDays(1);

  /** How often the store's history is compacted, as {@code qm server} does by default. */
  static final Duration COMPACT_EVERY = Duration.ofMinutes(1);

  private final long seed;
  private final int nodes;
  private final int tasks;
  private final Duration span;
  private final int checkEvery;
  private final WholeCluster world;
  private final Promises promises;
  private final TaskTally tally;
  private final FleetChurn churn;
  private final DayJobs jobs;
  private final List<String> violations = new ArrayList<>();
  private long steps;
  private long checks;
  private long checkedAt = -1;
  private boolean over;

  /**
   * @param span the virtual time the day covers ({@link #DAY}; shorter in a test)
   * @param checkEvery check every promise once every this many steps (1: after each)
   */
  public FleetDay(long seed, int nodes, int tasks, Duration span, int checkEvery) {
    if (nodes < 1 || tasks < 0 || checkEvery < 1 || span.isNegative() || span.isZero()) {
      throw new IllegalArgumentException(
          "a day needs a node, no negative tasks, a span and checks every 1 step or more");
    }
    this.seed = seed;
    this.nodes = nodes;
    this.tasks = tasks;
    this.span = span;
    this.checkEvery = checkEvery;
    this.world = new WholeCluster(seed, Math.min(nodes, FleetChurn.FIRST), GPUS, 0, Variant.REAL);
    this.tally = new TaskTally(world.view());
    world.store().onCommit(tally);
    this.promises = new Promises(world);
    this.churn = new FleetChurn(world, promises, violations::add, nodes, GPUS, span);
    this.jobs = new DayJobs(world.env(), world.api(), tasks, span);
    // As the server does (LocalServer's defaults): a day's history would otherwise fill the heap,
    // and watchers further behind than it re-list, as they must against a real server.
    HistoryCompactor.start(
        world.store(), world.env(), HistoryPlan.Limits.DEFAULT_REVISIONS, COMPACT_EVERY);
    churn.start();
    jobs.start();
    world.env().schedule(span, () -> over = true);
  }

  /**
   * How often a day checks every promise unless told: once every {@code nodes / 5} steps (after
   * each step below 10 nodes). A check looks over every node, so it costs about as much as a fifth
   * of a step per node (measured: 3 ms at 1,000 nodes, where a step takes about 10 µs); checking
   * that often keeps the proof's cost per step about the same whatever the fleet, at about as much
   * as the steps themselves.
   */
  public static int defaultCheckEvery(int nodes) {
    return Math.max(1, nodes / 5);
  }

  /**
   * Runs up to {@code max} more steps (a step is one event of the world); true while the day goes
   * on: its span not covered and no promise broken.
   */
  public boolean advance(long max) {
    var env = world.env();
    for (long i = 0; i < max && going(); i++) {
      try {
        if (!env.runNext()) {
          over = true; // nothing left to happen: the day cannot go on
          break;
        }
        steps++;
        if (steps % checkEvery == 0) {
          check();
        }
      } catch (RuntimeException e) {
        violations.add("crash at step " + steps + ": " + e);
        for (var f : e.getStackTrace()) {
          if (violations.size() > 8) {
            break;
          }
          violations.add("  at " + f);
        }
      }
    }
    return going();
  }

  /**
   * Checks the last state (unless the last step's check did, or a violation ended the day) and says
   * how far the day got: call it once, when the day is over or its caller stops it.
   */
  public DayReport finish() {
    if (violations.isEmpty() && steps != checkedAt) {
      check();
    }
    return report();
  }

  private boolean going() {
    return !over && violations.isEmpty();
  }

  private void check() {
    checks++;
    checkedAt = steps;
    violations.addAll(promises.check());
  }

  /** How far the day got so far (its last state checked only as sampled). */
  public DayReport report() {
    var virtual = Duration.between(DeterministicEnv.DEFAULT_START, world.env().now());
    return new DayReport(
        seed,
        nodes,
        churn.joined(),
        tasks,
        jobs.asked(),
        tally.created(),
        tally.ran(),
        tally.finished(),
        virtual,
        span,
        steps,
        checks,
        checkEvery,
        churn.faults(),
        violations,
        over && violations.isEmpty());
  }
}
