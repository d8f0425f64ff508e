package dev.quartermaster.cli.metrics;

import dev.quartermaster.api.gang.GangState;
import dev.quartermaster.api.gang.GangStatus;
import dev.quartermaster.api.gang.WorkloadGangs;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.core.env.Env;
import dev.quartermaster.core.informer.EventHandler;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Optional;

/**
 * {@code qm_gang_wait_seconds}: how long a gang waited, from the moment its workload's status first
 * said Waiting (its {@code since}, kept across reasons: members being created, then not fitting) to
 * this server's cache seeing it Placed. Measured on the workloads informer, so every replica
 * measures, and only on the update that places it: the adds a restart replays are gangs placed long
 * ago. A gang placed again after {@code RestartGang} counts once more; a workload gang's line is
 * the workload's, a group gang's its group's ({@link WorkloadGangs#statuses}).
 */
public final class GangWaitTime implements EventHandler<Workload> {
  /**
   * From a gang placed as soon as its members exist (a second) to one queued behind others (hours).
   */
  static final Duration[] BUCKETS = {
    Duration.ofMillis(100),
    Duration.ofMillis(500),
    Duration.ofSeconds(1),
    Duration.ofSeconds(5),
    Duration.ofSeconds(15),
    Duration.ofSeconds(60),
    Duration.ofMinutes(5),
    Duration.ofMinutes(30),
    Duration.ofHours(2),
    Duration.ofHours(8)
  };

  private final Env env;
  private final Timer timer;

  public GangWaitTime(Env env, MeterRegistry registry) {
    this.env = env;
    this.timer =
        Timer.builder("qm.gang.wait")
            .description("time a gang waited, holding nothing, until it was placed")
            .serviceLevelObjectives(BUCKETS)
            .register(registry);
  }

  @Override
  public void onUpdate(Workload old, Workload current) {
    var before = WorkloadGangs.statuses(old.status());
    WorkloadGangs.statuses(current.status())
        .forEach(
            (gang, now) -> {
              if (now.state() != GangState.Placed) {
                return;
              }
              Optional.ofNullable(before.get(gang))
                  .filter(GangStatus::isWaiting)
                  .flatMap(GangStatus::since)
                  .ifPresent(
                      since -> {
                        var waited = Duration.between(since, env.now());
                        timer.record(waited.isNegative() ? Duration.ZERO : waited);
                      });
            });
  }
}
