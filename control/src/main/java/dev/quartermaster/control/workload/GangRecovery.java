package dev.quartermaster.control.workload;

import java.time.Duration;
import java.util.Optional;

/**
 * What the workload controller does with a placed gang that lost part of its placement (a drain, a
 * lost or unhealthy node, an operator's delete, a crash), so that it is never left holding devices
 * for fewer members than it needs.
 *
 * @param lostMemberFails a {@code RestartGang} gang's member stopped from outside while it ran
 *     counts as failed: the gang is stopped and placed again at once ({@link GroupPlan})
 * @param partialBound how long a gang may stay {@code Partial} ({@link PartlyPlaced}) before every
 *     member it has is stopped, whatever its {@code onMemberFailure}: a {@code RestartMember}
 *     gang's replacement has that long to be placed beside the others (in their topology value);
 *     empty: never (the behaviour before issue 44, kept for the simulation's naive variant)
 */
public record GangRecovery(boolean lostMemberFails, Optional<Duration> partialBound) {
  /**
   * 30 s: a replacement that fits is placed within a few seconds (its create, its claims, one
   * allocator decision); one that has not been by then waits for room its gang's topology value
   * does not have, or for a node that is gone.
   */
  public static final GangRecovery DEFAULT =
      new GangRecovery(true, Optional.of(Duration.ofSeconds(30)));

  public GangRecovery {
    partialBound = partialBound == null ? Optional.empty() : partialBound;
  }
}
