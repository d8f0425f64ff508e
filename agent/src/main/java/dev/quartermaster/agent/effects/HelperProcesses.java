package dev.quartermaster.agent.effects;

import dev.quartermaster.agent.domaind.DaemonAnswer;
import dev.quartermaster.api.node.DomainDaemon;
import java.io.IOException;
import java.time.Instant;
import java.util.List;
import java.util.Set;

/**
 * The per-compute-domain helper daemons on this node (the stand-in for NVIDIA's IMEX daemon). Real:
 * {@link OsHelperProcesses}; for tests and the simulation: {@link InMemoryHelperProcesses}.
 */
public interface HelperProcesses {

  /** The domains whose helper is running now. */
  Set<String> running();

  /** Starts the helper for {@code domain}; does nothing if it is running. */
  void start(String domain) throws IOException;

  /** Stops the helper for {@code domain}; does nothing if it is not running. */
  void stop(String domain) throws IOException;

  /**
   * The state of the helper of each domain in {@code wanted}, as the node reports it: one that is
   * not running (it died) is {@code Restarting} (the next effects reconcile starts it again), one
   * that runs is {@code Ready} or {@code Starting} as its readiness check says.
   */
  List<DomainDaemon> daemons(java.util.Set<String> wanted, Instant now);

  /**
   * Asks {@code domain}'s helper now whether it is ready, as a claim's prepare must before it
   * completes; one that is not running is {@link DaemonAnswer.Silent}. Changes nothing.
   */
  DaemonAnswer readiness(String domain);
}
