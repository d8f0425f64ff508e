package dev.quartermaster.sim.world;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The fleet's day ({@code ./qm sim --day}) in small: 200 nodes of 8 GPUs joining and failing, and
 * jobs of 2,000 tasks in all, over a few virtual minutes (the tasks' lives scaled down with it):
 * the day runs to its end, most tasks run and finish, nodes fail and come back, and every sampled
 * check of every promise passes. The full day is for the command line; this proves its path in CI.
 */
class FleetDayTest {
  private static final int NODES = 40;
  private static final int TASKS = 200;
  private static final Duration SPAN = Duration.ofMinutes(1);

  @Test
  void aSmallFleetsDayRunsToItsEndWithEveryPromiseKept() {
    Campaign.quiet();
    var day = new FleetDay(1, NODES, TASKS, SPAN, FleetDay.defaultCheckEvery(NODES));
    while (day.advance(10_000)) {
      // the day goes on
    }
    var r = day.finish();
    assertThat(r.violations()).as("violations").isEmpty();
    assertThat(r.over()).as("the day is over").isTrue();
    assertThat(r.virtualTime()).isGreaterThanOrEqualTo(SPAN);
    assertThat(r.joined()).isEqualTo(NODES);
    assertThat(r.asked()).isEqualTo(TASKS);
    assertThat(r.created()).isGreaterThanOrEqualTo(TASKS);
    assertThat(r.finished()).as("tasks finished").isGreaterThan(TASKS / 2);
    assertThat(r.ran()).as("tasks ran").isGreaterThanOrEqualTo(r.finished() / 2);
    assertThat(r.faults()).as("node failures").isPositive();
    assertThat(r.checks()).as("checks").isGreaterThan(r.steps() / r.checkEvery() - 1);
  }
}
