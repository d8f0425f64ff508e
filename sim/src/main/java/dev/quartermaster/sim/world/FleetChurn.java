package dev.quartermaster.sim.world;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The fleet over a day: nine machines in ten join during the bring-up (the first tenth of the span,
 * at most {@link #BRING_UP}), the rest one by one over the day; and nodes fail, about one a day for
 * every five nodes: half of them are agent crashes ({@code kill -9}, the agent back 10 s to 10
 * minutes later), half lose their heartbeats (cut off from the server for 20 s to 10 minutes,
 * mostly past the grace period, so the node is declared lost and its tasks go) and come back. Every
 * draw comes from the world's seed.
 */
final class FleetChurn {
  /** The longest bring-up: a fleet this large is racked and booted over minutes, not at once. */
  static final Duration BRING_UP = Duration.ofMinutes(10);

  /** Nodes present before anything runs: the two that serve the CSI controller, as in a seed. */
  static final int FIRST = 2;

  private final WholeCluster world;
  private final Promises promises;
  private final Consumer<String> violations;
  private final int nodes;
  private final int gpus;
  private final Duration span;
  private final List<WholeCluster.NodeSlot> joined = new ArrayList<>();
  private long faults;

  FleetChurn(
      WholeCluster world,
      Promises promises,
      Consumer<String> violations,
      int nodes,
      int gpus,
      Duration span) {
    this.world = world;
    this.promises = promises;
    this.violations = violations;
    this.nodes = nodes;
    this.gpus = gpus;
    this.span = span;
    joined.addAll(world.nodes());
  }

  /** Schedules every join, and the first failure. */
  void start() {
    var env = world.env();
    var random = env.random();
    long bringUp = Math.min(BRING_UP.toNanos(), span.toNanos() / 10);
    int early = Math.max(joined.size(), nodes * 9 / 10);
    for (int i = joined.size() + 1; i <= nodes; i++) {
      long window = i <= early ? bringUp : span.toNanos();
      var name = "node-" + i;
      env.schedule(
          Duration.ofNanos(random.nextLong(window)), () -> joined.add(world.join(name, gpus)));
    }
    nextFailure();
  }

  int joined() {
    return joined.size();
  }

  long faults() {
    return faults;
  }

  private void nextFailure() {
    var random = world.env().random();
    double perDay = Math.max(1, nodes / 5.0);
    double meanGap = span.toNanos() / perDay;
    long gap = (long) (-Math.log(1 - random.nextDouble()) * meanGap);
    world.env().schedule(Duration.ofNanos(gap), this::fail);
  }

  private void fail() {
    nextFailure();
    var random = world.env().random();
    var n = joined.get(random.nextInt(joined.size()));
    if (n.agent.isEmpty() || n.api.isCut()) {
      return; // already down: this failure found nothing more to break
    }
    faults++;
    if (random.nextBoolean()) {
      promises.beforeCrash(n);
      world.crashAgent(n);
      world.env().schedule(seconds(10, 600), () -> restart(n));
    } else {
      n.api.cut(true);
      world.env().schedule(seconds(20, 600), () -> n.api.cut(false));
    }
  }

  /** As under systemd: an agent that cannot start (the server unreachable) is started again. */
  private void restart(WholeCluster.NodeSlot n) {
    if (n.agent.isPresent()) {
      return;
    }
    try {
      world.startAgent(n);
    } catch (RuntimeException e) {
      world.env().schedule(Duration.ofSeconds(5), () -> restart(n));
      return;
    }
    promises.afterRestart(n).forEach(violations);
  }

  private Duration seconds(int min, int max) {
    return Duration.ofMillis(1000L * min + world.env().random().nextLong(1000L * (max - min) + 1));
  }
}
