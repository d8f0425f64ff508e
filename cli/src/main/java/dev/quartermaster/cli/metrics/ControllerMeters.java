package dev.quartermaster.cli.metrics;

import dev.quartermaster.control.cluster.ControlLoop;
import dev.quartermaster.control.cluster.ControllerMetrics;
import dev.quartermaster.control.cluster.ReconcileOutcome;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.List;

/**
 * The controllers' metrics over Micrometer: {@code
 * qm_controller_reconciles_total{controller,result}}, {@code
 * qm_controller_reconcile_errors_total{controller}}, the latency histogram {@code
 * qm_controller_reconcile_seconds{controller}} and {@code qm_controller_queue_depth{controller}}.
 */
public final class ControllerMeters implements ControllerMetrics {
  /** Reconciles are store round trips: a millisecond to a few seconds under load. */
  static final Duration[] BUCKETS = {
    Duration.ofMillis(1),
    Duration.ofMillis(5),
    Duration.ofMillis(10),
    Duration.ofMillis(25),
    Duration.ofMillis(50),
    Duration.ofMillis(100),
    Duration.ofMillis(250),
    Duration.ofMillis(500),
    Duration.ofSeconds(1),
    Duration.ofMillis(2500),
    Duration.ofSeconds(5),
    Duration.ofSeconds(10)
  };

  private final MeterRegistry registry;

  public ControllerMeters(MeterRegistry registry) {
    this.registry = registry;
  }

  /**
   * Registers every loop's queue depth and zeroes its counters, so a scrape shows each controller
   * from the start rather than only after its first reconcile.
   */
  public void register(List<ControlLoop> loops) {
    for (var loop : loops) {
      Gauge.builder("qm.controller.queue.depth", loop, l -> l.queue().len())
          .description(
              "keys waiting for a worker in the controller's queue (not those being reconciled or delayed)")
          .tag("controller", loop.name())
          .register(registry);
      for (var outcome : ReconcileOutcome.values()) {
        reconciles(loop.name(), outcome);
      }
      errors(loop.name());
      timer(loop.name());
    }
  }

  @Override
  public void reconciled(String controller, Duration took, ReconcileOutcome outcome) {
    reconciles(controller, outcome).increment();
    if (outcome == ReconcileOutcome.ERROR) {
      errors(controller).increment();
    }
    timer(controller).record(took);
  }

  private Counter reconciles(String controller, ReconcileOutcome outcome) {
    return Counter.builder("qm.controller.reconciles")
        .description("reconciles finished, by result")
        .tags("controller", controller, "result", outcome.label())
        .register(registry);
  }

  private Counter errors(String controller) {
    return Counter.builder("qm.controller.reconcile.errors")
        .description("reconciles that threw (retried with backoff)")
        .tag("controller", controller)
        .register(registry);
  }

  private Timer timer(String controller) {
    return Timer.builder("qm.controller.reconcile")
        .description("time one reconcile took")
        .serviceLevelObjectives(BUCKETS)
        .tag("controller", controller)
        .register(registry);
  }
}
