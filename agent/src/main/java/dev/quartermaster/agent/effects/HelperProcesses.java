package dev.quartermaster.agent.effects;

import java.io.IOException;
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
}
