package dev.quartermaster.sim.world;

import java.time.Duration;
import java.util.List;

/**
 * Where a {@link FleetDay} stands: the fleet, the tasks, the virtual time and steps it covered, the
 * promise checks it made (one every {@code checkEvery} steps, and one at the end) and what they
 * found.
 *
 * @param joined nodes that have joined so far, of {@code nodes}
 * @param created task incarnations created; {@code ran} of them were seen Running and {@code
 *     finished} ended (succeeded, failed, or stopped by their deadline)
 * @param asked tasks the day's jobs asked for so far, of {@code tasks}
 * @param over whether the day's span was covered (false: stopped early, or violated)
 */
public record DayReport(
    long seed,
    int nodes,
    int joined,
    int tasks,
    int asked,
    long created,
    long ran,
    long finished,
    Duration virtualTime,
    Duration span,
    long steps,
    long checks,
    int checkEvery,
    long faults,
    List<String> violations,
    boolean over) {

  public DayReport {
    violations = List.copyOf(violations);
  }
}
