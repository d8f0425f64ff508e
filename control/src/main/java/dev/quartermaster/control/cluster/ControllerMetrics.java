package dev.quartermaster.control.cluster;

import java.time.Duration;

/**
 * What a {@link ControlLoop} tells about each reconcile. Defined here, with a no-op default, so
 * that control stays free of any metrics library: the server's edge implements it over Micrometer,
 * and the simulation, which runs the same loops, keeps {@link #NONE}.
 */
@FunctionalInterface
public interface ControllerMetrics {
  /** Records nothing: the default for tests, benches and the simulation. */
  ControllerMetrics NONE = (controller, took, outcome) -> {};

  /**
   * One reconcile of {@code controller} finished.
   *
   * @param took measured on the loop's {@code Env} (virtual time in the simulation)
   */
  void reconciled(String controller, Duration took, ReconcileOutcome outcome);
}
